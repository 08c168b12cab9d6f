"""Placement of work on devices and the executors that run it."""
