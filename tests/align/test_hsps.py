"""Next alignments (Waterman-Eggert): the compiled passes against a plain
Python transcription of the reference with forbidden pairs."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from swgpu.align import reference
from swgpu.align.alignment import cigar_to_ops
from swgpu.align.hsps import next_alignments
from swgpu.io.sequence import Sequence
from swgpu.scoring import ScoreMatrix, Scoring
from oracle import aligned_pairs

NEG = reference.NEG




def _oracle(q, t, scoring, banned):
    """The reference's three steps with the pairs ``banned`` forbidden."""
    o, e = scoring.gap_open, scoring.gap_extend
    S = scoring.matrix.values.tolist()
    m, n = len(q), len(t)
    H = [[0] * (n + 1) for _ in range(m + 1)]
    E = [[NEG] * (n + 1) for _ in range(m + 1)]
    F = [[NEG] * (n + 1) for _ in range(m + 1)]
    best, ie, je = 0, 0, 0
    for i in range(1, m + 1):
        for j in range(1, n + 1):
            E[i][j] = max(E[i][j - 1] - e, H[i][j - 1] - o)
            F[i][j] = max(F[i - 1][j] - e, H[i - 1][j] - o)
            diag = NEG if (i - 1, j - 1) in banned else H[i - 1][j - 1] + S[q[i - 1]][t[j - 1]]
            H[i][j] = max(0, diag, E[i][j], F[i][j])
            if H[i][j] > best:
                best, ie, je = H[i][j], i, j
    if best <= 0:
        return None
    G, Vs, Vc, Ws, Wc = ([[NEG] * (je + 1) for _ in range(ie + 1)] for _ in range(5))
    start = None
    for i in range(ie - 1, -1, -1):
        for j in range(je - 1, -1, -1):
            s = S[q[i]][t[j]]
            g = s if (i, j) == (ie - 1, je - 1) else s + max(G[i + 1][j + 1], Vs[i + 1][j + 1], Ws[i + 1][j + 1])
            G[i][j] = NEG if (i, j) in banned else g
            after_v = max(G[i + 1][j], Vc[i + 1][j], Ws[i + 1][j])
            Vs[i][j], Vc[i][j] = after_v - o, after_v - e
            after_w = max(G[i][j + 1], Wc[i][j + 1], Vs[i][j + 1])
            Ws[i][j], Wc[i][j] = after_w - o, after_w - e
            if start is None and G[i][j] == best:
                start = (i, j)
    i0, j0 = start
    # global path of q[i0:ie], t[j0:je], the reference's traceback
    a, b = q[i0:ie], t[j0:je]
    mm, nn = len(a), len(b)
    H = [[NEG] * (nn + 1) for _ in range(mm + 1)]
    E = [[NEG] * (nn + 1) for _ in range(mm + 1)]
    F = [[NEG] * (nn + 1) for _ in range(mm + 1)]
    H[0][0] = 0
    for j in range(1, nn + 1):
        E[0][j] = H[0][j] = -(o + (j - 1) * e)
    for i in range(1, mm + 1):
        F[i][0] = H[i][0] = -(o + (i - 1) * e)
    for i in range(1, mm + 1):
        for j in range(1, nn + 1):
            E[i][j] = max(E[i][j - 1] - e, H[i][j - 1] - o)
            F[i][j] = max(F[i - 1][j] - e, H[i - 1][j] - o)
            diag = NEG if (i0 + i - 1, j0 + j - 1) in banned else H[i - 1][j - 1] + S[a[i - 1]][b[j - 1]]
            H[i][j] = max(diag, E[i][j], F[i][j])
    ops, i, j, state = [], mm, nn, "H"
    while i > 0 or j > 0:
        if state == "H":
            diag = NEG if i == 0 or j == 0 or (i0 + i - 1, j0 + j - 1) in banned \
                else H[i - 1][j - 1] + S[a[i - 1]][b[j - 1]]
            if i > 0 and j > 0 and H[i][j] == diag:
                ops.append("M")
                i, j = i - 1, j - 1
            elif H[i][j] == E[i][j]:
                state = "E"
            else:
                state = "F"
        elif state == "E":
            ops.append("D")
            if not (j > 1 and E[i][j] == E[i][j - 1] - e):
                state = "H"
            j -= 1
        else:
            ops.append("I")
            if not (i > 1 and F[i][j] == F[i - 1][j] - e):
                state = "H"
            i -= 1
    return best, i0, j0, "".join(reversed(ops))


_DNA = st.text("ACGTN", min_size=0, max_size=40)


@settings(max_examples=150, deadline=None)
@given(q=_DNA, t=_DNA, gaps=st.sampled_from([(5, 2), (3, 3), (1, 1), (8, 1)]), count=st.integers(1, 4),
       protein=st.booleans())
def test_next_alignments_are_the_masked_reference(q, t, gaps, count, protein):
    scoring = Scoring(ScoreMatrix.load("BLOSUM62"), *gaps) if protein else Scoring.default("dna")
    if not protein:
        scoring = Scoring(scoring.matrix, *gaps)
    query = Sequence.from_text("q", q, scoring.alphabet)
    target = Sequence.from_text("t", t, scoring.alphabet)
    first = reference.align(query, target, scoring)
    got = next_alignments(query, target, scoring, [first], count)
    banned = aligned_pairs(first) if not first.empty else set()
    qc, tc = query.codes.tolist(), target.codes.tolist()
    for a in got:
        want = _oracle(qc, tc, scoring, banned)
        assert want is not None
        score, i0, j0, ops = want
        assert (a.score, a.query_start, a.target_start) == (score, i0, j0)
        assert cigar_to_ops(a.cigar).replace("=", "M").replace("X", "M") == ops
        assert not (aligned_pairs(a) & banned)
        banned |= aligned_pairs(a)
    if len(got) < count:
        assert _oracle(qc, tc, scoring, banned) is None


def test_a_query_planted_twice_is_found_twice():
    scoring = Scoring.default("dna")
    probe = "GATTACAGCATTGACCGTAGGCTA"
    target = Sequence.from_text("t", "CC" + probe + "T" * 30 + probe.replace("GCA", "GGA") + "AA")
    query = Sequence.from_text("q", probe)
    first = reference.align(query, target, scoring)
    (second,) = next_alignments(query, target, scoring, [first], 1, min_score=20)
    assert (first.target_start, second.target_start) == (2, 2 + len(probe) + 30)
    assert next_alignments(query, target, scoring, [first, second], 1, min_score=20) == []


@settings(max_examples=80, deadline=None)
@given(q=_DNA, t=_DNA, count=st.integers(1, 4), floor=st.integers(1, 30))
def test_a_least_score_keeps_the_alignments_at_or_above_it(q, t, count, floor):
    # the search stops at the first alignment below the floor: the same ones as
    # without a floor, up to there (scores fall from one to the next)
    scoring = Scoring.default("dna")
    query = Sequence.from_text("q", q, scoring.alphabet)
    target = Sequence.from_text("t", t, scoring.alphabet)
    first = reference.align(query, target, scoring)
    every = next_alignments(query, target, scoring, [first], count)
    kept = next_alignments(query, target, scoring, [first], count, min_score=floor)
    assert [a.score for a in every] == sorted((a.score for a in every), reverse=True)
    want = [a for a in every if a.score >= floor]
    assert [(a.score, a.query_start, a.target_start, a.cigar) for a in kept] == \
        [(a.score, a.query_start, a.target_start, a.cigar) for a in want]


@settings(max_examples=100, deadline=None)
@given(tops=st.lists(st.integers(-2, 300), min_size=0, max_size=20), rate=st.floats(0.01, 1.0),
       scale=st.floats(1e-3, 1e6), threshold=st.floats(1e-6, 100.0))
def test_least_scores_is_the_least_score_within_the_threshold(tops, rate, scale, threshold):
    import numpy as np

    from swgpu.align.hsps import least_scores

    def evalues(s):
        return scale * np.exp(-rate * np.asarray(s, dtype=np.float64))

    got = least_scores(evalues, np.array(tops, dtype=np.int64), threshold).tolist()
    for top, g in zip(tops, got):
        within = [s for s in range(1, top + 1) if evalues(s) <= threshold]
        assert g == (within[0] if within else max(top, 0) + 1)


@settings(max_examples=40, deadline=None)
@given(pairs=st.lists(st.tuples(_DNA, _DNA, st.integers(1, 25)), min_size=1, max_size=8),
       gaps=st.sampled_from([(5, 2), (3, 3), (1, 1)]), count=st.integers(1, 3))
def test_many_pairs_at_once_are_each_pair_alone(pairs, gaps, count):
    from swgpu.align.hsps import next_alignments_many

    scoring = Scoring(Scoring.default("dna").matrix, *gaps)
    qs, ts, firsts, floors = [], [], [], []
    for q, t, floor in pairs:
        query, target = Sequence.from_text("q", q, "dna"), Sequence.from_text("t", t, "dna")
        first = reference.align(query, target, scoring)
        if first.empty:
            continue
        qs.append(query), ts.append(target), firsts.append(first), floors.append(floor)
    got = next_alignments_many(qs, ts, [[f] for f in firsts], scoring, count, floors)
    for query, target, first, floor, each in zip(qs, ts, firsts, floors, got):
        want = next_alignments(query, target, scoring, [first], count, min_score=floor)
        assert [(a.score, a.query_start, a.target_start, a.cigar) for a in each] == \
            [(a.score, a.query_start, a.target_start, a.cigar) for a in want]


def test_a_long_target_with_dear_gaps():
    # (n - 1) * extend + open past 2**30: the horizontal gaps' running values leave
    # the 32-bit range, and the end pass takes its clamped branch
    import numpy as np

    rng = np.random.default_rng(4)
    scoring = Scoring(Scoring.default("dna").matrix, 10000, 10000)
    q = "".join(rng.choice(list("ACGT"), 6))
    t = "".join(rng.choice(list("ACGT"), 110_000))
    query, target = Sequence.from_text("q", q, "dna"), Sequence.from_text("t", t, "dna")
    first = reference.align(query, target, scoring)
    got = next_alignments(query, target, scoring, [first], 1)
    want = _oracle(query.codes.tolist(), target.codes.tolist(), scoring, aligned_pairs(first))
    assert (got[0].score, got[0].query_start, got[0].target_start) == want[:3]
