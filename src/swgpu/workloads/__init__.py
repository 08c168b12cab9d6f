"""Workloads built on the engines, one package each: ``align`` (pairs),
``search``, ``screen``, ``scan``, ``longalign`` (genome-scale align), and
``genome`` (what scan and longalign share); the modules beside them
(``tracing``, ``strands``, ``limits``) are shared by all, ``bench`` times them."""
