"""The search's batches of queries scored one ahead
(:func:`swgpu.workloads.search.batches.scored_batches`): the same batches and
scores either way, the next batch scored while the caller holds one, errors
raised where their batch comes, and an early stop that leaves no scoring
running."""

from __future__ import annotations

import threading

import pytest

from swgpu.exceptions import InputError
from swgpu.workloads.search.batches import scored_batches


@pytest.mark.parametrize("size", [1, 2, 3, 7, 20])
@pytest.mark.parametrize("depth", [1, 2, 5])
def test_the_same_batches_ahead_or_not(size, depth):
    queries = [f"q{k}" for k in range(7)]
    plain = [(f, b, s) for f, b, s, _, _ in scored_batches(iter(queries), size, lambda b: [len(q) for q in b], False)]
    ahead = [(f, b, s) for f, b, s, _, _ in scored_batches(iter(queries), size, lambda b: [len(q) for q in b], depth)]
    assert plain == ahead
    assert [q for _, b, _ in plain for q in b] == queries
    assert [f for f, _, _ in plain] == list(range(0, 7, size))
    assert list(scored_batches(iter([]), size, lambda b: b, True)) == []


def test_the_next_batch_is_scored_while_the_caller_holds_one():
    started = threading.Event()

    def score(batch):
        if batch == ["b"]:
            started.set()
        return batch

    batches = scored_batches(["a", "b"], 1, score, True)
    next(batches)
    assert started.wait(10)  # (the caller has not asked for it)
    assert next(batches)[1] == ["b"]


def test_meanwhile_runs_on_the_callers_thread_while_the_first_batch_is_scored():
    release, seen = threading.Event(), []

    def score(batch):
        assert release.wait(10)  # (the first batch's scores wait for what the caller does meanwhile)
        return batch

    def meanwhile():
        seen.append(threading.current_thread() is threading.main_thread())
        release.set()

    got = [b for _, b, _, _, _ in scored_batches(["a", "b", "c"], 1, score, True, meanwhile)]
    assert got == [["a"], ["b"], ["c"]] and seen == [True]
    plain = scored_batches(["a"], 1, lambda b: b, False, lambda: seen.append("not ahead"))
    assert [b for _, b, _, _, _ in plain] == [["a"]] and seen == [True]


def test_batches_are_scored_up_to_depth_ahead_and_no_further():
    scored, gate = [], threading.Event()

    def score(batch):
        scored.append(batch[0])
        if batch[0] == "d":
            gate.set()
        return batch

    batches = scored_batches(list("abcdef"), 1, score, 3)
    assert next(batches)[1] == ["a"]  # (b, c and d are then scored while the caller holds a)
    assert gate.wait(10)
    assert scored == list("abcd")
    assert [b[0] for _, b, _, _, _ in batches] == list("bcdef") and scored == list("abcdef")


def test_an_error_comes_where_its_batch_comes():
    def score(batch):
        if "bad" in batch:
            raise InputError("bad query")
        return batch

    for depth in (1, 2):
        batches = scored_batches(["a", "b", "bad", "c"], 2, score, depth)
        assert next(batches)[1] == ["a", "b"]
        with pytest.raises(InputError, match="bad query"):
            next(batches)


def test_an_early_stop_waits_for_the_batch_being_scored():
    running = threading.Event()
    release = threading.Event()
    finished = []

    def score(batch):
        if batch == ["b"]:
            running.set()
            release.wait(10)
            finished.append(True)
        return batch

    batches = scored_batches(["a", "b", "c"], 1, score, True)
    next(batches)
    assert running.wait(10)
    threading.Timer(0.2, release.set).start()
    batches.close()
    assert finished == [True]
