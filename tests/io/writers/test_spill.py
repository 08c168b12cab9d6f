"""Output held back (``Spill``) and put behind what is written before it."""

import gzip

import numpy as np
import pytest

from swgpu.io.writers import OutputFile
from swgpu.io.writers import spill as spill_module
from swgpu.io.writers.spill import Spill

PIECES = [b"abc", np.frombuffer(b"0123456789", np.uint8), "d\u00e9f", memoryview(b"ghi"), b""]
WANT = b"abc0123456789d\xc3\xa9fghi"


@pytest.mark.parametrize("limit", [0, 5, 1 << 20])
@pytest.mark.parametrize("suffix", [".sam", ".sam.gz"])
def test_replay_behind_a_header(tmp_path, limit, suffix):
    spill = Spill(str(tmp_path), limit=limit)
    for piece in PIECES:
        spill.write(piece)
    path = tmp_path / f"out{suffix}"
    with OutputFile(str(path)) as out:
        out.write_bytes(b"@HD\n")
        out.write("@CO\ttext\n")
        descriptor = out.descriptor()
        assert (descriptor is None) == suffix.endswith(".gz")
        spill.replay(out.write_bytes, descriptor)
        out.write_bytes(b"end\n")
    spill.close()
    data = gzip.decompress(path.read_bytes()) if suffix.endswith(".gz") else path.read_bytes()
    assert data == b"@HD\n@CO\ttext\n" + WANT + b"end\n"
    assert spill.size == len(WANT)


def test_a_buffer_kept_in_memory_is_copied(tmp_path):
    spill = Spill(str(tmp_path))
    data = np.frombuffer(b"xyz", np.uint8).copy()
    spill.write(data)
    data[:] = ord("-")
    got = []
    spill.replay(got.append)
    assert b"".join(got) == b"xyz"


def test_copy_falls_back_to_reading(tmp_path, monkeypatch):
    def refuse(*args):
        raise OSError(22, "Invalid argument")

    monkeypatch.setattr(spill_module.os, "sendfile", refuse)
    spill = Spill(str(tmp_path), limit=0)
    for piece in PIECES:
        spill.write(piece)
    path = tmp_path / "out.sam"
    with OutputFile(str(path)) as out:
        out.write_bytes(b"H\n")
        spill.replay(out.write_bytes, out.descriptor())
    assert path.read_bytes() == b"H\n" + WANT


def test_replay_into_a_pipe(tmp_path):
    import os
    import threading

    spill = Spill(str(tmp_path), limit=0)
    big = bytes(range(256)) * 4096  # 1 MiB: more than a pipe holds
    spill.write(big)
    spill.write(b"end")
    r, w = os.pipe()
    got = []
    reader = threading.Thread(target=lambda: got.append(os.fdopen(r, "rb").read()))
    reader.start()
    try:
        with OutputFile(f"/dev/fd/{w}") as out:
            out.write_bytes(b"H\n")
            spill.replay(out.write_bytes, out.descriptor())
    finally:
        os.close(w)
        reader.join()
    assert got[0] == b"H\n" + big + b"end"


@pytest.mark.parametrize("limit", [0, 1 << 20])
def test_header_lines_copied_behind_the_first_line(tmp_path, limit):
    from swgpu.io.texts import Texts
    from swgpu.io.writers.sam_targets import HeaderTargets

    names = Texts.from_strings([f"chr{k}" for k in range(300)])
    want = None
    for descriptor in (False, True):
        listed = HeaderTargets(str(tmp_path), limit=limit)
        listed.add(names, np.arange(0, 300, 2), np.arange(150) + 1000)
        listed.add(names, np.arange(1, 300, 2), np.arange(150) + 5000)
        path = tmp_path / f"h{int(descriptor)}.sam"
        with OutputFile(str(path)) as out:
            listed.write(out.write_bytes, "@PG\tID:swgpu", out.descriptor if descriptor else None)
            out.write_bytes(b"record\n")
        listed.close()
        got = path.read_bytes()
        lines = got.decode().splitlines()
        assert lines[0].startswith("@HD") and lines[1] == "@SQ\tSN:chr0\tLN:1000" and lines[-1] == "record"
        assert len([x for x in lines if x.startswith("@SQ")]) == 300
        want = got if want is None else want
        assert got == want


def test_a_full_output_is_named(tmp_path):
    import os

    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    spill = Spill(str(tmp_path), limit=0)
    spill.write(b"x" * 100_000)
    out = OutputFile("/dev/full")
    with pytest.raises(OSError) as caught:
        out.write_bytes(b"H\n")
        spill.replay(out.write_bytes, out.descriptor())
    assert caught.value.filename == "/dev/full"
    spill.close()
