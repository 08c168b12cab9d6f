"""``swgpu search`` writes its hits as columns: byte for byte what the record
writer writes of the same hits made one by one (each a ``PairJob`` traced on
its own), in every format, on both strands, with titles, and for a query
without hits (blast7's report of it)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

COMP = str.maketrans("ACGT", "TGCA")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("search")
    rng = np.random.default_rng(21)
    genome = "".join(rng.choice(list("ACGT"), 30_000))
    with open(folder / "db.fa", "w") as fh:
        for k in range(200):
            a = int(rng.integers(0, len(genome) - 900))
            fh.write(f">t{k} window at {a}\n{genome[a:a + int(rng.integers(1, 900))]}\n")
    with open(folder / "q.fa", "w") as fh:
        for k in range(9):
            a = int(rng.integers(0, len(genome) - 200))
            text = genome[a:a + int(rng.integers(15, 200))]
            fh.write(f">q{k % 4} probe {k}\n{text.translate(COMP)[::-1] if k % 2 else text}\n")
        fh.write(">none\nN\n")  # (no hit)
    return folder


def _records(args, folder, fmt, columns=None):
    """The old path: each hit traced as a PairJob, written record by record."""
    from swgpu import Scoring, read_sequences
    from swgpu.cli.options import write_alignments
    from swgpu.cli.search import _descriptions
    from swgpu.io.database import Database
    from swgpu.workloads.search import Searcher
    from swgpu.workloads.search.hits import restat

    db = Database.from_fasta(folder / "db.fa")
    queries = read_sequences(folder / "q.fa")
    searcher = Searcher(db, Scoring.default("dna"), device="cpu")
    rows = []
    for k, q in enumerate(queries):
        picks, _, fit = searcher._ranked(q, searcher.strand_scores([q], "both")[0], 4, 10.0)
        hits = searcher._traceback.all(searcher._jobs(q, picks))
        restat(fit, hits, db)
        rows += [(h, q.text, k) for h in hits]
    assert len(rows) > 20 and {h.strand for h, _, _ in rows} == {"+", "-"}
    opts = SimpleNamespace(output=str(folder / "records.out"), format=fmt, argv=args, columns=columns,
                           db="db.fa", target=None, genome=None, pairs=None)
    write_alignments(opts, searcher.scoring, rows, queries=queries,
                     descriptions=_descriptions(db, bool({"stitle", "salltitles"} & set(columns or ()))))
    return (folder / "records.out").read_bytes()


@pytest.mark.parametrize("fmt, outfmt", [("blast6", None), ("blast7", None), ("sam", None), ("json", None),
                                         ("pairwise", None), ("blast6", "6 qseqid sseqid stitle evalue bitscore "
                                                                        "qseq sseq btop sstrand")])
def test_columns_write_what_the_records_write(run_cli, files, fmt, outfmt):
    from swgpu.io.writers.choice import choose_format

    args = ["search", "-q", "q.fa", "-d", "db.fa", "--device", "cpu", "--top", "4", "-o", "hits.out", "--quiet"]
    args += ["--outfmt", outfmt] if outfmt else ["-f", fmt]
    code, _, err = run_cli(args, files)
    assert code == 0, err
    fmt, columns = choose_format(None if outfmt else fmt, outfmt, None, "blast6")
    assert (files / "hits.out").read_bytes() == _records(args, files, fmt, columns)


@pytest.mark.parametrize("fmt, loads", [("pairwise", True), ("json", True), ("sam", False), ("blast6", False)])
def test_many_hits_of_a_format_without_array_columns_load_the_compiled_writers(run_cli, files, monkeypatch, fmt,
                                                                               loads):
    """The hits of all parts together decide (a GPU search's parts are each below the mark)."""
    from swgpu.io import compiled

    asked = []
    monkeypatch.setattr(compiled, "COMPILED_RECORDS", 10)
    monkeypatch.setattr(compiled, "load_numba", lambda: asked.append(True))
    code, _, err = run_cli(["search", "-q", "q.fa", "-d", "db.fa", "--device", "cpu", "--top", "4", "-f", fmt,
                            "-o", "many.out", "--quiet"], files)
    assert code == 0, err
    assert bool(asked) == loads
