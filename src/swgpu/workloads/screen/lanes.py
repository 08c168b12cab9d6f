"""A screen's parts over several GPUs of one process.

Each GPU (a *lane*: its engine and pair scorer, :attr:`Screener.lanes`) has a
thread that takes the next part of the stream as soon as it is free, reads it
(one lane at a time: the stream is read in order), scores it and traces its
selected pairs on its GPU; a pool of as many threads makes what the caller
will write of each part. The parts are handed to the caller in input order,
so the output is the one GPU's, byte for byte; a lane takes no part more than
``2 x lanes`` ahead of the one the caller is at, which bounds the memory.
A failed part stops the lanes and its error is raised in the caller.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

from ...align.batch import AlignmentBatch

__all__ = ["stream_lanes"]


def stream_lanes(screener, parts, threshold, render=None):
    """:meth:`Screener.stream` on every lane of ``screener``; yields its
    :class:`~.screener.ScreenPart` objects in order, each with what
    ``render`` made of it (``rendered``) on a pool of as many threads as lanes."""
    from .screener import ScreenPart

    lanes = screener.lanes
    busy = screener.busy = {"read": 0.0, "score": 0.0, "traceback": 0.0}
    if render is not None:
        busy["render"] = 0.0
    source = iter(parts)
    lock = threading.Lock()
    changed = threading.Condition(lock)
    state = {"taken": 0, "first": 0, "given": 0, "ended": False, "stop": False}
    done: dict[int, ScreenPart] = {}
    failed: list[BaseException] = []
    ahead = 2 * len(lanes)

    def add(stage: str, seconds: float) -> None:
        with lock:
            busy[stage] += seconds

    def rendered(part):
        t0 = time.perf_counter()
        try:
            return render(part)
        finally:
            add("render", time.perf_counter() - t0)

    def take():
        """``(index, first pair, pair lists)`` of the next part, or None at the end."""
        with lock:
            while not (failed or state["ended"] or state["stop"]) and state["taken"] - state["given"] >= ahead:
                changed.wait()
            if failed or state["ended"] or state["stop"]:
                return None
            t0 = time.perf_counter()
            pair = next(source, None)
            busy["read"] += time.perf_counter() - t0
            if pair is None:
                state["ended"] = True
                changed.notify_all()
                return None
            k, first = state["taken"], state["first"]
            state["taken"] += 1
            state["first"] += len(pair[0])
            return k, first, pair

    def lane(engine, scorer) -> None:
        try:
            while (got := take()) is not None:
                k, first, (queries, targets) = got
                t0 = time.perf_counter()
                result = screener.scored(queries, targets, threshold, scorer)
                add("score", time.perf_counter() - t0)
                batch = None
                if threshold is not None:
                    t0 = time.perf_counter()
                    batch = AlignmentBatch.concat(list(screener.traced(result, engine)))
                    add("traceback", time.perf_counter() - t0)
                    queries, targets = result.sources
                part = ScreenPart(queries, targets, first, result, batch)
                if renderer is not None:  # (a Future until the caller takes the part)
                    part.rendered = renderer.submit(rendered, part)
                with lock:
                    done[k] = part
                    changed.notify_all()
        except BaseException as exc:
            with lock:
                failed.append(exc)
                changed.notify_all()

    # the lanes' threads score and trace; a pool as large renders the parts they made
    renderer = None if render is None else ThreadPoolExecutor(len(lanes), thread_name_prefix="swgpu-render")
    threads = [threading.Thread(target=lane, args=pair, name=f"swgpu-lane-{k}", daemon=True)
               for k, pair in enumerate(lanes)]
    for t in threads:
        t.start()
    try:
        k = 0
        while True:
            with lock:
                while k not in done and not failed and not (state["ended"] and k >= state["taken"]):
                    changed.wait()
                if k in done:
                    part = done.pop(k)
                elif failed:
                    raise failed[0]
                else:
                    return
                state["given"] = k + 1
                changed.notify_all()
            if renderer is not None:
                part.rendered = part.rendered.result()
            yield part
            k += 1
    finally:
        with lock:  # no lane reads from here on
            state["stop"] = True
            changed.notify_all()
        for t in threads:
            t.join()
        if renderer is not None:
            renderer.shutdown(wait=False, cancel_futures=True)
        close = getattr(source, "close", None)
        if close is not None:
            close()
