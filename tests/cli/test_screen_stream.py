"""screen's alignments traced and written batch by batch: the same output for any batch size."""

from __future__ import annotations

import numpy as np
import pytest

from swgpu.workloads.screen import Screener


def _pairs(tmp_path, n=300, seed=2):
    rng = np.random.default_rng(seed)
    letters = np.array(list("ACGT"))
    q, t = [], []
    for k in range(n):
        target = "".join(rng.choice(letters, int(rng.integers(40, 90))))
        a = int(rng.integers(0, 20))
        read = list(target[a:a + int(rng.integers(20, 40))])
        for i in range(len(read)):
            if rng.random() < 0.05:
                read[i] = str(rng.choice(letters))
        if rng.random() < 0.1:
            read = list(rng.choice(letters, len(read)))
        q.append(f">r{k} read {k}\n{''.join(read)}\n")
        t.append(f">w{k}\n{target}\n")
    (tmp_path / "q.fa").write_text("".join(q))
    (tmp_path / "t.fa").write_text("".join(t))
    return tmp_path / "q.fa", tmp_path / "t.fa"


@pytest.mark.parametrize("fmt, extra", [("sam", []), ("blast6", []), ("json", []), ("sam", ["--strand", "both"]),
                                        ("blast6", ["--gap-open", "7", "--outfmt", "qseqid sseqid evalue stitle"])])
def test_small_batches_give_the_output_of_one(run_cli, tmp_path, monkeypatch, fmt, extra):
    q, t = _pairs(tmp_path)
    outs = []
    for chunk in (1 << 18, 7):
        monkeypatch.setattr(Screener, "chunk", chunk)
        out = tmp_path / f"o.{fmt}"
        args = ["screen", "-q", q, "-t", t, "--device", "cpu", "--threshold", "20", "-f", fmt, "-o", out, *extra]
        code, _, err = run_cli(args)
        assert code == 0, err
        outs.append(out.read_text())
    assert outs[0] == outs[1]
    assert outs[0].count("\n") > 100


def test_python_api_result_is_the_batches_together(tmp_path):
    from swgpu import Scoring
    from swgpu.io.pairs import read_pair_files

    queries, targets = read_pair_files(*_pairs(tmp_path, 60))
    screener = Screener(Scoring.default("dna"), device="cpu")
    whole = screener.screen(queries, targets, 20)
    screener.chunk = 5
    parts = screener.screen(queries, targets, 20)
    assert [a.__dict__ for a in parts.alignments] == [a.__dict__ for a in whole.alignments]
    assert len(whole.alignments) == whole.selected.size > 10


@pytest.mark.parametrize("fmt", ["sam", "blast6"])
def test_small_runs_without_compiled_code_give_the_same_bytes(run_cli, tmp_path, fmt):
    import subprocess
    import sys

    q, t = _pairs(tmp_path, 200)
    args = ["screen", "-q", str(q), "-t", str(t), "--device", "cpu", "--threshold", "20", "-f", fmt,
            "--gap-open", "7"]
    code, _, err = run_cli([*args, "-o", tmp_path / "in.out"])  # this process has Numba loaded: compiled paths
    assert code == 0, err
    probe = ("import sys, runpy; sys.argv = ['swgpu', *sys.argv[1:]]\n"
             "from swgpu.cli.main import main\n"
             "from swgpu.io import compiled\n"
             "assert not compiled.worth(1)\n"  # a new process: the array and record-by-record paths
             "sys.exit(main())\n")
    proc = subprocess.run([sys.executable, "-c", probe, *args, "-o", str(tmp_path / "in.out")], capture_output=True,
                          text=True, env={**__import__("os").environ, "SWGPU_DETACH": "0"})
    assert proc.returncode == 0, proc.stderr
    mine = (tmp_path / "in.out").read_text()
    code, _, err = run_cli([*args, "-o", tmp_path / "in.out"])
    assert (tmp_path / "in.out").read_text() == mine


@pytest.mark.gpu
@pytest.mark.parametrize("compiled_from", [0, 10**9])
@pytest.mark.parametrize("fmt, extra", [("sam", ["--strand", "both"]), ("blast6", ["--gap-open", "7"]),
                                        ("sam", ["--gap-open", "7"])])
def test_gpu_batches_equal_the_cpu(run_cli, tmp_path, monkeypatch, fmt, extra, compiled_from):
    from swgpu.io import compiled

    q, t = _pairs(tmp_path, 3000, seed=5)
    monkeypatch.setattr(Screener, "chunk", 1000)
    monkeypatch.setattr(compiled, "COMPILED_RECORDS", compiled_from)
    outs = []
    for device in ("cpu", "cuda"):
        out = tmp_path / f"o.{fmt}"
        code, _, err = run_cli(["screen", "-q", q, "-t", t, "--device", device, "--threshold", "20", "-f", fmt,
                                "-o", out, *extra])
        assert code == 0, err
        outs.append("".join(line for line in out.read_text().splitlines(True) if not line.startswith("@PG")))
    assert outs[0] == outs[1] and outs[0].count("\n") > 2000


@pytest.mark.parametrize("fmt, extra", [("sam", []), ("blast6", []), ("json", []), ("pairwise", []),
                                        ("sam", ["--strand", "both"]), ("tsv", [])])
def test_small_parts_of_the_files_give_the_output_of_one(run_cli, tmp_path, monkeypatch, fmt, extra):
    """The pairs read, scored, traced and written in parts of a few pairs (and
    SAM records held in a temporary file past a few bytes): the same bytes."""
    import gzip

    import swgpu.cli.screen_parts as screen_cli
    from swgpu.io import chunks
    from swgpu.io.writers import spill

    q, t = _pairs(tmp_path)
    (tmp_path / "t.fa.gz").write_bytes(gzip.compress(t.read_bytes()))
    args = ["screen", "-q", q, "-t", tmp_path / "t.fa.gz", "--device", "cpu", *extra]
    args += [] if fmt == "tsv" else ["--threshold", "20", "-f", fmt]
    outs = []
    for part, block, limit in ((1 << 18, 1 << 26, 1 << 29), (7, 300, 100), (64, 2000, 1 << 29)):
        monkeypatch.setattr(screen_cli, "PART", part)
        monkeypatch.setattr(screen_cli, "CPU_PART", part)
        monkeypatch.setattr(chunks, "BLOCK", block)
        monkeypatch.setattr(spill, "LIMIT", limit)
        out = tmp_path / f"o.{fmt}"
        code, _, err = run_cli([*args, "-o", out])
        assert code == 0, err
        assert "300 pairs" in err
        outs.append(out.read_text())
    assert outs[0] == outs[1] == outs[2]
    assert outs[0].count("\n") > 100


def test_unequal_files_in_parts_are_refused_with_both_counts(run_cli, tmp_path, monkeypatch):
    import swgpu.cli.screen_parts as screen_cli
    from swgpu.io import chunks

    q, t = _pairs(tmp_path)
    t.write_text("".join(t.read_text().splitlines(keepends=True)[:-4]))
    monkeypatch.setattr(screen_cli, "PART", 16)
    monkeypatch.setattr(screen_cli, "CPU_PART", 16)
    monkeypatch.setattr(chunks, "BLOCK", 500)
    out = tmp_path / "o.sam"
    code, _, err = run_cli(["screen", "-q", q, "-t", t, "--device", "cpu", "--threshold", "20", "-o", out])
    assert code == 2 and "has 300 records but" in err and "has 298" in err
    assert not out.exists()


@pytest.mark.parametrize("part", [1 << 18, 5])
def test_a_target_name_twice_in_sam_is_listed_once_or_refused(run_cli, tmp_path, monkeypatch, part):
    """Targets named alike (the same window) across parts: one @SQ line; two lengths under one name: refused."""
    import swgpu.cli.screen_parts as screen_cli

    monkeypatch.setattr(screen_cli, "PART", part)
    monkeypatch.setattr(screen_cli, "CPU_PART", part)

    window = "ACGTTGCATTGACCGATTACAGGCATTACGATCGATCGGATCATTTACG"
    (tmp_path / "q.fa").write_text("".join(f">r{k}\n{window[k:k + 30]}\n" for k in range(12)))
    (tmp_path / "t.fa").write_text(f">w\n{window}\n" * 12)
    out = tmp_path / "o.sam"
    args = ["screen", "-q", tmp_path / "q.fa", "-t", tmp_path / "t.fa", "--device", "cpu", "--threshold", "10",
            "-f", "sam", "-o", out]
    code, _, err = run_cli(args)
    assert code == 0, err
    lines = out.read_text().splitlines()
    assert [x for x in lines if x.startswith("@SQ")] == [f"@SQ\tSN:w\tLN:{len(window)}"]
    assert sum(not x.startswith("@") for x in lines) == 12
    (tmp_path / "t.fa").write_text(f">w\n{window}\n" * 11 + f">w\n{window}A\n")
    code, _, err = run_cli(args)
    assert code == 2 and "names two sequences" in err
    assert out.read_text().splitlines() == lines  # (the earlier output untouched)


@pytest.mark.slow
def test_a_million_pairs_in_small_parts_give_the_output_of_one_part(run_cli, tmp_path, monkeypatch):
    """A million pairs, scored (and the best aligned, SAM) in parts of 4,096 pairs
    read in 1 MiB blocks, give the bytes of one part read whole."""
    import swgpu.cli.screen_parts as screen_cli
    from swgpu.io import chunks
    from swgpu.io.writers import spill

    n = 1_000_000
    rng = np.random.default_rng(11)
    acgt = np.frombuffer(b"ACGT", dtype=np.uint8)
    targets = rng.integers(0, 4, size=(n, 40), dtype=np.uint8)
    reads = targets[:, 5:35].copy()
    hit = rng.random(reads.shape) < 0.1
    reads[hit] = rng.integers(0, 4, size=int(hit.sum()), dtype=np.uint8)
    for name, rows, prefix in (("q.fa", reads, "r"), ("t.fa", targets, "w")):
        letters = np.concatenate([acgt[rows], np.full((n, 1), ord("\n"), np.uint8)], axis=1).tobytes()
        width = rows.shape[1] + 1
        with open(tmp_path / name, "wb") as out:
            out.write(b"".join(b">%s%d\n" % (prefix.encode(), k) + letters[k * width:(k + 1) * width]
                               for k in range(n)))
    outs = {}
    for label, part, block, limit in (("one", 1 << 21, 1 << 30, 1 << 33), ("parts", 4096, 1 << 20, 1 << 20)):
        monkeypatch.setattr(screen_cli, "PART", part)
        monkeypatch.setattr(screen_cli, "CPU_PART", part)
        monkeypatch.setattr(chunks, "BLOCK", block)
        monkeypatch.setattr(spill, "LIMIT", limit)
        for kind, extra in (("tsv", []), ("sam", ["--threshold", "52", "-f", "sam"])):
            out = tmp_path / f"o.{kind}"  # (one name: the @PG line holds it)
            code, _, err = run_cli(["screen", "-q", tmp_path / "q.fa", "-t", tmp_path / "t.fa", "--device", "cpu",
                                    *extra, "-o", out, "--quiet"])
            assert code == 0, err
            outs[label, kind] = out.read_bytes()
    assert outs["one", "tsv"] == outs["parts", "tsv"] and outs["one", "tsv"].count(b"\n") == n + 1
    assert outs["one", "sam"] == outs["parts", "sam"] and outs["one", "sam"].count(b"\n@SQ") > 1000


@pytest.mark.parametrize("fmt, extra", [("sam", []), ("blast6", ["--outfmt", "qseqid sseqid score btop sseq"]),
                                        ("json", []), ("blast7", []), ("tsv", None), ("sam", ["--strand", "both"])])
def test_parts_rendered_on_several_lanes_give_the_output_of_one(run_cli, tmp_path, monkeypatch, fmt, extra):
    """Several lanes (here CPU engines, as the GPUs of a process would be) make
    each part's output bytes on their own threads; the file is one lane's."""
    from swgpu.cli import screen_parts

    q, t = _pairs(tmp_path, 500)
    monkeypatch.setattr(screen_parts, "PART", 70)
    monkeypatch.setattr(screen_parts, "CPU_PART", 70)
    made = Screener.__init__
    outs = []
    for lanes in (1, 3):
        def init(self, *a, **k):
            made(self, *a, **k)
            self.lanes = self.lanes[:1] * lanes

        monkeypatch.setattr(Screener, "__init__", init)
        out = tmp_path / f"o.{fmt}"  # (one name: SAM's @PG line holds the command)
        args = ["screen", "-q", q, "-t", t, "--device", "cpu", "-o", out]
        args += [] if extra is None else ["--threshold", "20", "-f", fmt, *extra]
        code, _, err = run_cli(args)
        assert code == 0, err
        outs.append(out.read_bytes())
    assert outs[0] == outs[1] and outs[0].count(b"\n") > 300
