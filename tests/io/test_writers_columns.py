"""The compiled batch writers give the record-by-record writers' bytes."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swgpu import Scoring, Sequence
from swgpu.align.batch import AlignmentBatch
from swgpu.engines import get_engine
from swgpu.io.alphabet import COMPLEMENT_BYTES
from swgpu.io.writers import format_blast6
from swgpu.io.writers.blast6 import COLUMNS, subject_title
from swgpu.io.writers.columns import (BATCH_COLUMNS, LETTER_COLUMNS, POSITIVE_COLUMNS, TITLE_COLUMNS, blast6_lines,
                                      sam_lines)
from swgpu.io.writers.rows import Rows, Texts
from swgpu.io.writers.sam import sam_record
from swgpu.scoring import Statistics

COMPLEMENT_TABLE = COMPLEMENT_BYTES


def _random_pairs(rng, n, protein=False):
    letters = "ARNDCQEGHILKMFPSTWYVX" if protein else "ACGTN"
    out = []
    for k in range(n):
        m = int(rng.integers(1, 60))
        a = "".join(rng.choice(list(letters), m))
        if rng.random() < 0.6:  # related: a mutated copy inside flanks
            core = list(a[int(rng.integers(0, m)):])
            for i in range(len(core)):
                if rng.random() < 0.15:
                    core[i] = str(rng.choice(list(letters)))
            if len(core) > 4 and rng.random() < 0.5:
                cut = int(rng.integers(1, len(core) - 1))
                core = core[:cut] + core[cut + int(rng.integers(1, 3)):]
            b = "".join(rng.choice(list(letters), int(rng.integers(0, 20)))) + "".join(core) \
                + "".join(rng.choice(list(letters), int(rng.integers(0, 20))))
        else:
            b = "".join(rng.choice(list(letters), int(rng.integers(1, 60))))
        if rng.random() < 0.3 and not protein:
            a = a.lower()
        out.append((Sequence.from_text(f"q{k}", a, "protein" if protein else "dna"),
                    Sequence.from_text(f"t{k} desc", b, "protein" if protein else "dna")))
    return out


def _alignments(pairs, scoring, strands):
    tracer = get_engine("cpu").tracer(scoring)
    alns = []
    for (q, t), s in zip(pairs, strands):
        aln = tracer.align(q.reverse_complement() if s == "-" else q, t)
        aln.strand = s
        alns.append(aln)
    stats = Statistics.for_scoring(scoring)
    stats.annotate_each(alns, [(len(q), len(t), 1) for q, t in pairs])
    return alns


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), evalues=st.booleans(), protein=st.booleans(), arrays=st.booleans())
def test_batch_lines_equal_record_lines(seed, evalues, protein, arrays):
    """The compiled kernels, and (``arrays``) the array operations of small batches."""
    from unittest import mock

    from swgpu.io.writers import columns, rows

    with mock.patch.object(rows, "worth", lambda n: not arrays), mock.patch.object(columns, "worth", lambda n: not arrays):
        _batch_lines_equal_record_lines(seed, evalues, protein)


def _batch_lines_equal_record_lines(seed, evalues, protein):
    rng = np.random.default_rng(seed)
    pairs = _random_pairs(rng, 30, protein)
    if protein:
        scoring = Scoring.default("protein") if evalues else Scoring.build("protein", matrix="BLOSUM50",
                                                                          gap_open=9, gap_extend=3)
        strands = ["+"] * len(pairs)
    else:
        scoring = Scoring.build("dna", gap_open=7, gap_extend=2) if evalues else Scoring.default("dna")
        strands = [str(rng.choice(["+", "-"])) for _ in pairs]
    alns = _alignments(pairs, scoring, strands)
    batch = AlignmentBatch.from_alignments(alns)
    qnames = Texts.from_strings([q.name for q, _ in pairs])
    tnames = Texts.from_strings([t.name for _, t in pairs])
    qletters = Texts.from_strings([q.text for q, _ in pairs], "latin-1")
    live = [k for k, a in enumerate(alns) if not a.empty]
    sub = batch.take(np.array(live, dtype=np.int64))
    got = bytes(sam_lines(sub, qnames, tnames, qletters, COMPLEMENT_TABLE))
    want = "".join(sam_record(alns[k], pairs[k][0].text, False, False, "\n") for k in live)
    assert got.decode() == want
    got = bytes(sam_lines(sub, qnames, tnames, None))
    assert got.decode() == "".join(sam_record(alns[k], None, False, False, "\n") for k in live)
    if len(live) < len(alns):
        assert sam_lines(batch, qnames, tnames, qletters, COMPLEMENT_TABLE) is None  # unmapped records
    assert bytes(blast6_lines(batch, qnames, tnames)).decode() == "".join(format_blast6(alns[k]) + "\n" for k in live)
    columns = sorted(BATCH_COLUMNS)
    rng.shuffle(columns)
    assert bytes(blast6_lines(batch, qnames, tnames, columns)).decode() == \
        "".join(format_blast6(alns[k], columns) + "\n" for k in live)
    # titles: "name description", the name alone without one (non-ASCII kept)
    descriptions = {t.name: ("" if k % 3 else f"protéine {k}") for k, (_, t) in enumerate(pairs)}
    titles = Texts.from_strings([subject_title(t.name, descriptions.get(t.name)) for _, t in pairs])
    for cols in (["qseqid", "stitle", "evalue"], ["salltitles", "sseqid", "stitle"]):
        assert bytes(blast6_lines(batch, qnames, tnames, cols, ttitles=titles)).decode() == \
            "".join(format_blast6(alns[k], cols, descriptions) + "\n" for k in live)


def test_unsupported_columns_are_left_to_the_record_writer():
    assert set(COLUMNS) - BATCH_COLUMNS == POSITIVE_COLUMNS | LETTER_COLUMNS | TITLE_COLUMNS
    empty = AlignmentBatch.from_alignments([])
    assert blast6_lines(empty, Texts.from_strings([]), Texts.from_strings([]), ["qseqid", "stitle"]) is None
    assert bytes(blast6_lines(empty, Texts.from_strings([]), Texts.from_strings([]))) == b""


def test_batch_views_equal_the_alignments():
    rng = np.random.default_rng(5)
    pairs = _random_pairs(rng, 40)
    scoring = Scoring.build("dna", gap_open=7, gap_extend=2)
    strands = [str(rng.choice(["+", "-"])) for _ in pairs]
    alns = _alignments(pairs, scoring, strands)
    batch = AlignmentBatch.from_alignments(alns)
    views = batch.alignments([q for q, _ in pairs], [t for _, t in pairs], scoring)
    assert [v.__dict__ for v in views] == [a.__dict__ for a in alns]
    assert batch.cigars() == [a.cigar for a in alns]
    both = AlignmentBatch.concat([batch.take(np.arange(10)), batch.take(np.arange(10, 40))])
    assert both.cigars() == batch.cigars() and both.score.tolist() == batch.score.tolist()


@settings(max_examples=60, deadline=None)
@given(values=st.lists(st.integers(-2**62, 2**62), min_size=1, max_size=30),
       words=st.lists(st.text(st.characters(blacklist_characters="\0", blacklist_categories=("Cs",)), max_size=6),
                      min_size=1, max_size=30))
def test_rows_in_array_operations_equal_the_compiled_pass(values, words):
    from unittest import mock

    from swgpu.io.writers import rows as R

    n = min(len(values), len(words))
    texts = Texts.from_strings(words)
    out = []
    for arrays in (False, True):
        with mock.patch.object(R, "worth", lambda k: not arrays):
            r = Rows(n)
            r.int(np.array(values[:n]))
            r.const("\t")
            r.text(texts, np.arange(n)[::-1])
            r.const("")
            r.int(np.array(values[:n])[::-1])
            r.const("AS:i:\n")
            out.append(r.render())
    assert out[0] == out[1]


def test_texts_and_rows():
    texts = Texts.from_strings(["", "é", "abc", ""])
    assert texts.strings() == ["", "é", "abc", ""]
    assert Texts.from_strings([]).strings() == []
    rows = Rows(3)
    rows.int(np.array([0, -10, 1234567890123]))
    rows.const("|")
    rows.text(texts, np.array([1, 0, 2]))
    rows.const("\n")
    assert rows.render(threads=1) == "0|é\n-10|\n1234567890123|abc\n".encode()


@pytest.mark.parametrize("n", [1, 70_000])
def test_rows_on_threads_equal_one_thread(n):
    rng = np.random.default_rng(n)
    values = rng.integers(-10**12, 10**12, n)
    texts = Texts.from_strings([str(v) for v in rng.integers(0, 1000, 50).tolist()])
    pick = rng.integers(0, 50, n)

    def render(threads):
        rows = Rows(n)
        rows.text(texts, pick)
        rows.const("\t")
        rows.int(values)
        rows.const("\n")
        return rows.render(threads)

    assert render(4) == render(1)
    assert render(1).decode().splitlines()[:3] == [f"{texts.strings()[p]}\t{v}" for p, v in
                                                   zip(pick[:3].tolist(), values[:3].tolist())]


def test_path_runs_on_threads_equal_one_thread(monkeypatch):
    import numba  # noqa: F401

    from swgpu.align import runs
    from swgpu.align.runs import path_runs

    monkeypatch.setattr(runs, "ARRAY_COLUMNS", 0)  # (the compiled pass at every size)
    rng = np.random.default_rng(9)
    n = 40_000
    sizes = rng.integers(0, 12, n)
    off = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(sizes, out=off[1:])
    ops = rng.choice(np.array([0, 0, 0, 1, 2], np.uint8), int(off[-1]))
    q, t = rng.integers(0, 5, 20 * n).astype(np.uint8), rng.integers(0, 5, 20 * n).astype(np.uint8)
    qpos, tpos = np.arange(n) * 20, np.arange(n) * 20
    one = path_runs(ops, off, q, qpos, t, tpos, 4, threads=1)
    four = path_runs(ops, off, q, qpos, t, tpos, 4, threads=4)
    for x, y in zip(one[0] + one[1], four[0] + four[1]):
        np.testing.assert_array_equal(x, y)
    assert one[0][2][-1] == one[0][0].size and one[0][0].sum() == ops.size


def test_path_runs_with_arrays_equal_the_compiled_pass(monkeypatch):
    import numba  # noqa: F401  (loaded: path_runs takes the compiled pass at every size)

    from swgpu.align import runs
    from swgpu.align.runs import _path_runs_arrays, path_runs

    monkeypatch.setattr(runs, "ARRAY_COLUMNS", 0)

    rng = np.random.default_rng(11)
    for n in (1, 2, 5, 300, 3000):
        sizes = rng.integers(0, 15, n)
        sizes[rng.random(n) < 0.1] = 0  # empty paths, also first and last
        off = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(sizes, out=off[1:])
        ops = rng.choice(np.array([0, 0, 1, 2], np.uint8), int(off[-1]))
        q, t = rng.integers(0, 5, 30 * n).astype(np.uint8), rng.integers(0, 5, 30 * n).astype(np.uint8)
        qpos, tpos = rng.integers(0, 10, n) + np.arange(n) * 30, rng.integers(0, 10, n) + np.arange(n) * 30
        want = path_runs(ops, off, q, qpos, t, tpos, 4, threads=1)
        got = _path_runs_arrays(ops, off, q, qpos, t, tpos, 4)
        for x, y in zip(want[0] + want[1], got[0] + got[1]):
            np.testing.assert_array_equal(x, y)
    none = np.zeros(4, dtype=np.int64)  # paths without a column
    got = _path_runs_arrays(np.zeros(0, np.uint8), none, q, none[:3], t, none[:3], 4)
    assert got[0][2].tolist() == [0, 0, 0, 0] and all(c.tolist() == [0, 0, 0] for c in got[1])
