"""Placement of work on devices and the executors that run it."""

#: The environment variable naming the Dask scheduler every command runs on (``--scheduler``'s default).
SCHEDULER_ENV = "SWGPU_SCHEDULER"
