"""Several alignments of a query in one database sequence (``max_hsps``):
the planted copies are found where they are, none shares an aligned pair
with another, the first is the one-alignment result, and engines agree."""

from __future__ import annotations

import numpy as np
import pytest

from swgpu import Scoring, Sequence
from swgpu.exceptions import InputError
from swgpu.io.database import Database
from swgpu.workloads.align import align_all
from swgpu.workloads.search import Searcher
from oracle import aligned_pairs

ENGINES = ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)]
PROTEIN = "ARNDCQEGHILKMFPSTWYV"


def _cuda_or_skip(kind):
    if kind == "cuda":
        from swgpu.engines.cuda import runtime

        if not runtime.available():
            pytest.skip(f"no CUDA device: {runtime.why_unavailable()}")




def _planted(rng, domain: str, copies: list[int], length: int) -> str:
    text = list("".join(rng.choice(list(PROTEIN), length)))
    for at in copies:
        text[at:at + len(domain)] = domain
    return "".join(text)


@pytest.fixture(scope="module")
def two_domain_db():
    rng = np.random.default_rng(11)
    domain = "".join(rng.choice(list(PROTEIN), 60))
    seqs = [Sequence.from_text(f"r{k}", "".join(rng.choice(list(PROTEIN), 300)), "protein") for k in range(40)]
    seqs.append(Sequence.from_text("two", _planted(rng, domain, [40, 250], 400), "protein"))
    seqs.append(Sequence.from_text("one", _planted(rng, domain, [100], 300), "protein"))
    return Database.from_sequences(seqs), Sequence.from_text("q", domain, "protein")


@pytest.mark.parametrize("kind", ENGINES)
def test_a_domain_planted_twice_gives_two_alignments(two_domain_db, kind):
    _cuda_or_skip(kind)
    db, query = two_domain_db
    scoring = Scoring.default("protein")
    searcher = Searcher(db, scoring, device=kind)
    one = searcher.search_one(query, top=2, evalue=1e-3).hits
    more = searcher.search_one(query, top=2, evalue=1e-3, max_hsps=3).hits
    assert [(h.target, h.target_start) for h in one] == [("two", 40), ("one", 100)]
    assert [(h.target, h.target_start, h.primary) for h in more] == [("two", 40, True), ("two", 250, False),
                                                                    ("one", 100, True)]
    assert (more[0].cigar, more[0].score) == (one[0].cigar, one[0].score)
    assert more[1].score == more[0].score and more[1].evalue == more[0].evalue
    assert not (aligned_pairs(more[0]) & aligned_pairs(more[1]))


def test_search_batches_and_one_by_one_agree(two_domain_db):
    db, query = two_domain_db
    searcher = Searcher(db, Scoring.default("protein"), device="cpu")
    alone = searcher.search_one(query, top=5, max_hsps=4, evalue=10).hits
    (together,) = list(searcher.search([query], top=5, max_hsps=4, evalue=10))
    assert [(h.target, h.score, h.cigar, h.target_start) for h in alone] == \
        [(h.target, h.score, h.cigar, h.target_start) for h in together.hits]
    assert all(h.evalue <= 10 for h in alone if not h.primary)


def test_pairwise_align_gives_the_further_alignments(two_domain_db):
    db, query = two_domain_db
    target = next(db.sequence(i) for i in range(len(db)) if db.names[i] == "two")
    scoring = Scoring.default("protein")
    (first,) = list(align_all([query], [target], scoring, device="cpu"))
    got = list(align_all([query], [target], scoring, device="cpu", max_hsps=2))
    assert [(a.target_start, a.primary) for a in got] == [(40, True), (250, False)]
    assert got[0].cigar == first.cigar


@pytest.mark.parametrize("bad", [0, -1, 1.5, True])
def test_max_hsps_must_be_a_positive_whole_number(two_domain_db, bad):
    db, query = two_domain_db
    with pytest.raises(InputError, match="max_hsps"):
        Searcher(db, Scoring.default("protein"), device="cpu").search_one(query, max_hsps=bad)


def test_qcovs_counts_the_query_in_any_alignment_of_the_pair():
    from swgpu.io.writers.blast6 import format_blast6

    rng = np.random.default_rng(4)
    a, b = ("".join(rng.choice(list(PROTEIN), 50)) for _ in range(2))
    filler = "".join(rng.choice(list(PROTEIN), 80))
    query = Sequence.from_text("q", a + b, "protein")
    target = Sequence.from_text("t", b + filler + a, "protein")  # the domains swapped: no one alignment holds both
    got = list(align_all([query], [target], Scoring.default("protein"), device="cpu", max_hsps=2))
    assert len(got) == 2 and {(x.query_start, x.query_end) for x in got} == {(0, 50), (50, 100)}
    assert [format_blast6(x, "qcovs qcovhsp") for x in got] == ["100\t50", "100\t50"]
    (alone,) = list(align_all([query], [target], Scoring.default("protein"), device="cpu"))
    assert format_blast6(alone, "qcovs qcovhsp") == "50\t50"


@pytest.mark.parametrize("evalue", [1e-3, 1.0, 10.0])
def test_further_alignments_within_an_evalue_are_those_of_no_threshold(two_domain_db, evalue):
    # further alignments are searched only down to the least score within the
    # E-value: the same ones as searching them all and leaving out the others;
    # qcovs counts the alignments reported
    db, query = two_domain_db
    searcher = Searcher(db, Scoring.default("protein"), device="cpu")
    got = searcher.search_one(query, top=8, max_hsps=4, evalue=evalue).hits
    every = searcher.search_one(query, top=8, max_hsps=4).hits
    targets = {h.target for h in got}
    want = [h for h in every if h.target in targets and (h.primary or h.evalue <= evalue)]
    assert [(h.target, h.score, h.cigar, h.target_start, h.evalue) for h in got] == \
        [(h.target, h.score, h.cigar, h.target_start, h.evalue) for h in want]
    for name in targets:
        group = [h for h in got if h.target == name]
        spans = set().union(*(range(h.query_start, h.query_end) for h in group))
        for h in group:
            assert (h.query_covered if len(group) > 1 else len(spans)) == len(spans)
