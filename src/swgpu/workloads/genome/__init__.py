"""What the genome workloads (``scan``, genome-scale ``align``) share: the
records of a genome as one code array and the traceback windows at end points
(:mod:`.windows`), and their tasks on a Dask cluster (:mod:`.tasks`)."""
