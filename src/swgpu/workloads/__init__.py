"""Workloads built on the engines: ``align`` (pairs), ``search``, ``screen``, ``scan``."""
