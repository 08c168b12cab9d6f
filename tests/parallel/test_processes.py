"""One process per device (:class:`~swgpu.parallel.processes.DeviceProcesses`):
tasks go to whichever process is free, results come back, and a process's error
comes back as one error of this process, the kind it was."""

from __future__ import annotations

import os
import time

import pytest

from swgpu.exceptions import EngineError, InputError
from swgpu.parallel.processes import DeviceProcesses


def _work(device, config, tasks, results) -> None:
    while (task := tasks.get()) is not None:
        if task == "input":
            raise InputError("bad letters", param="alphabet")
        if task == "bug":
            raise RuntimeError("boom")
        if task == "die":
            os._exit(3)
        if task == "sleep":
            time.sleep(60)
        if task == "quit":
            return
        if task == "file":
            open("/nonexistent-folder/x")
        results.put((device, task * config))


def test_tasks_go_to_the_processes_and_come_back():
    with DeviceProcesses(_work, [0, 1], 3) as pool:
        for k in range(6):
            pool.put(k)
        pool.end()
        got = [pool.get() for _ in range(6)]
    assert sorted(value for _, value in got) == [0, 3, 6, 9, 12, 15]
    assert {device for device, _ in got} <= {0, 1}


@pytest.mark.parametrize("task, kind, message", [
    ("input", InputError, "alphabet: bad letters"),
    ("bug", EngineError, "RuntimeError: boom"),
    ("die", EngineError, "the process of device 0 ended unexpectedly (exit code 3)"),
    ("quit", EngineError, "the processes ended before their work was done"),
    ("file", FileNotFoundError, "[Errno 2] No such file or directory: '/nonexistent-folder/x'"),
])
def test_a_process_error_is_raised_here(task, kind, message):
    with DeviceProcesses(_work, [0], 1) as pool:
        pool.put(task)
        with pytest.raises(kind) as info:
            pool.get()
    assert str(info.value) == message
    if kind is InputError:
        assert info.value.param == "alphabet"


def test_closing_ends_busy_processes_at_once():
    pool = DeviceProcesses(_work, [0, 1], 1)
    pool.put("sleep")
    pool.put("sleep")
    pool.put(2)
    t0 = time.perf_counter()
    pool.close()
    assert time.perf_counter() - t0 < 5
    assert all(not p.is_alive() for p in pool._processes)
