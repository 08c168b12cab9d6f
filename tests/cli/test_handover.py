"""Bytes handed over a pipe (swgpu.cli.handover)."""

import os
import threading

from swgpu.cli import handover


def _through(prepare):
    r, w = handover.pipe()
    sender = threading.Thread(target=handover.send, args=(w, prepare))
    sender.start()
    got = handover.receive(r)
    sender.join()
    return got


def test_bytes_arrive_whole():
    data = os.urandom(3_000_001)
    assert _through(lambda: data) == data


def test_nothing_for_empty_or_failing_prepare():
    assert _through(lambda: b"") is None

    def fails():
        raise MemoryError

    assert _through(fails) is None


def test_a_sender_that_ends_early():
    r, w = handover.pipe()
    os.write(w, (100).to_bytes(8, "little") + b"abc")
    os.close(w)
    assert handover.receive(r) is None


def test_a_receiver_that_is_gone():
    r, w = handover.pipe()
    os.close(r)
    handover.send(w, lambda: b"x" * 5_000_000)  # no error: the sender's process goes on
