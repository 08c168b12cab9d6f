"""The columns added for BLAST+ parity (``qseq``, ``sseq``, ``btop``, the accession
columns, frames): BLAST's own values on real examples, and the compiled batch
writer byte for byte the record-by-record one."""

from __future__ import annotations

import io
import re

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from swgpu import Scoring, Sequence
from swgpu.align.batch import AlignmentBatch
from swgpu.engines import get_engine
from swgpu.io.texts import Texts
from swgpu.io.writers import AlignmentWriter, format_blast6
from swgpu.io.writers.aligned import blast_aligned, btop
from swgpu.io.writers.columns import BATCH_COLUMNS, LETTER_COLUMNS, blast6_lines
from swgpu.scoring import Statistics

#: Swiss-Prot P02232 and P09187 (the bundled examples).
P02232 = ("MGFTEKQEALVNSSSQLFKQNPSNYSVLFYTIILQKAPTAKAMFSFLKDSAGVVDSPKLGAHAEKVFGMVRDSAVQLRATGEVVLDGKDGSIHIQKGVL"
          "DPHFVVVKEALLKTIKEASGDKWSEELSAAWEVAYDGLATAIKAA")
P09187 = ("MSFTDKQEALVNSSWEAFKQNLPRYSVFFYTVVLEKAPAAKGLFSFLKNSAEVQDSPQLQAHAEKVFGLVRDSAVQLRATGGVVLGDATLGAIHVRKGVV"
          "DPHFVVVKEALLKTIKEAAGDKWSEELNTAWEVAYDALATAIKKA")
#: What ``blastp -query P02232 -subject P09187 -outfmt "6 btop qseq sseq frames qframe sframe"`` writes (2.12.0+).
BLASTP = ("1GS2ED9SWQELA4PLSPNR3LF3IVIV1QE3TA2AGML5DN2GE1VQ3KQ1GQ8ML12EG3-G1GAKTDL1SA2IVQR3LV18SA8SNAT7GA6AK1",
          "MGFTEKQEALVNSSSQLFKQNPSNYSVLFYTIILQKAPTAKAMFSFLKDSAGVVDSPKLGAHAEKVFGMVRDSAVQLRATGEVVL-DGKDGSIHIQKGVLD"
          "PHFVVVKEALLKTIKEASGDKWSEELSAAWEVAYDGLATAIKAA", P09187, "1/1", "1", "1")


def test_protein_columns_are_blastp_ones():
    q, t = Sequence.from_text("P02232", P02232, "protein"), Sequence.from_text("P09187", P09187, "protein")
    aln = get_engine("cpu").tracer(Scoring.default("protein")).align(q, t)
    assert format_blast6(aln, "btop qseq sseq frames qframe sframe").split("\t") == list(BLASTP)
    assert format_blast6(aln, "qacc qaccver sacc saccver sallseqid sallacc").split("\t") == ["P02232"] * 2 + \
        ["P09187"] * 4


def test_minus_strand_columns_are_blastn_ones():
    """A query and its reverse complement against one target: blastn writes the
    second with the query forward, the subject reverse-complemented."""
    target = "TTGACCAGTACGGATCCATGGCAAGCTTGACTGAAATTCCGGTACCATGAACGT"
    query = "CCAGTACGGATCCAAGGCAAGCTTGACTGTTCCGGTACCATG"
    scoring = Scoring.default("dna")
    tracer = get_engine("cpu").tracer(scoring)
    t, q = Sequence.from_text("t", target), Sequence.from_text("q", query)
    plus = tracer.align(q, t)
    minus = tracer.align(q, t)  # the same alignment, as found for the reverse complement of rc(query)
    minus.strand = "-"
    cols = "qstart qend sstart send frames qframe sframe sstrand btop qseq sseq"
    p = format_blast6(plus, cols).split("\t")
    m = format_blast6(minus, cols).split("\t")
    assert p[4:8] == ["1/1", "1", "1", "plus"] and m[4:8] == ["1/-1", "1", "-1", "minus"]
    comp = str.maketrans("ACGT-", "TGCA-")
    assert m[9] == p[9].translate(comp)[::-1] and m[10] == p[10].translate(comp)[::-1]
    assert _from_btop(m[8], m[9].replace("-", ""), m[10].replace("-", "")) == (m[9], m[10])
    assert int(m[2]) > int(m[3])


def _from_btop(ops: str, query: str, subject: str) -> tuple[str, str]:
    """The aligned lines a BTOP string describes, given the letters of both sides."""
    qa, sa, i, j = [], [], 0, 0
    for number, pair in re.findall(r"(\d+)|(..)", ops):
        if number:
            n = int(number)
            qa.append(query[i:i + n]), sa.append(subject[j:j + n])
            i, j = i + n, j + n
        else:
            qa.append(pair[0]), sa.append(pair[1])
            i, j = i + (pair[0] != "-"), j + (pair[1] != "-")
    return "".join(qa), "".join(sa)


def _pairs(rng, n, protein):
    letters = "ARNDCQEGHILKMFPSTWYVX" if protein else "ACGTNRYU"
    out = []
    for k in range(n):
        a = "".join(rng.choice(list(letters), int(rng.integers(1, 50))))
        if rng.random() < 0.7:  # related: a mutated copy with an indel, inside flanks
            core = [c if rng.random() > 0.15 else str(rng.choice(list(letters))) for c in a]
            if len(core) > 4:
                cut = int(rng.integers(1, len(core) - 1))
                core = core[:cut] + (core[cut + int(rng.integers(1, 3)):] if rng.random() < 0.5 else
                                     list(rng.choice(list(letters), 2)) + core[cut:])
            b = "".join(rng.choice(list(letters), int(rng.integers(0, 10)))) + "".join(core)
        else:
            b = "".join(rng.choice(list(letters), int(rng.integers(1, 50))))
        if not protein and rng.random() < 0.3:
            a = a.lower()
        kind = "protein" if protein else "dna"
        out.append((Sequence.from_text(f"q{k}", a, kind), Sequence.from_text(f"t{k}", b, kind)))
    return out


def traced(rng, pairs, protein: bool, stats: bool = True):
    """``(scoring, alignments)`` of ``pairs``, DNA ones on a random strand each
    (the query reverse-complemented on the minus strand), with statistics."""
    scoring = Scoring.default("protein" if protein else "dna")
    tracer = get_engine("cpu").tracer(scoring)
    alns = []
    for q, t in pairs:
        minus = not protein and rng.random() < 0.5
        aln = tracer.align(q.reverse_complement() if minus else q, t)
        aln.strand = "-" if minus else "+"
        alns.append(aln)
    if stats:
        Statistics.for_scoring(scoring).annotate_each(alns, [(len(q), len(t), 1) for q, t in pairs])
    return scoring, alns


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), protein=st.booleans())
def test_batch_lines_equal_record_lines_with_letters(seed, protein):
    rng = np.random.default_rng(seed)
    pairs = _pairs(rng, 25, protein)
    scoring, alns = traced(rng, pairs, protein)
    batch = AlignmentBatch.from_alignments(alns)
    qnames = Texts.from_strings([q.name for q, _ in pairs])
    tnames = Texts.from_strings([t.name for _, t in pairs])
    qletters = Texts.from_strings([q.text for q, _ in pairs], "latin-1")
    tletters = Texts.from_strings([t.text for _, t in pairs], "latin-1")
    live = [a for a in alns if not a.empty]
    columns = sorted(BATCH_COLUMNS | LETTER_COLUMNS)
    rng.shuffle(columns)
    want = "".join(format_blast6(a, columns) + "\n" for a in live)
    assert bytes(blast6_lines(batch, qnames, tnames, columns, qletters, tletters)).decode() == want
    assert blast6_lines(batch, qnames, tnames, columns) is None  # letters needed: the record writer's
    # positive-scoring columns: the letters and the matrix (DNA: N against anything scores below 0)
    cols = ["qseqid", "positive", "ppos", "pident", "sseqid"]
    matrix, table = scoring.matrix.values, scoring.alphabet.table
    assert bytes(blast6_lines(batch, qnames, tnames, cols, qletters, tletters, matrix=matrix,
                              table=table)).decode() == "".join(format_blast6(a, cols) + "\n" for a in live)
    assert blast6_lines(batch, qnames, tnames, cols, qletters, tletters) is None  # (no matrix)
    for a in live:
        qseq, sseq = blast_aligned(a)
        ops = btop(a)
        assert _from_btop(ops, qseq.replace("-", ""), sseq.replace("-", "")) == (qseq, sseq)
        assert sum(int(n) for n in re.findall(r"\d+", ops)) == a.matches
    for fmt in ("blast6", "blast7"):  # the writer: columns in compiled code, or record by record
        texts = []
        for compiled in (True, False):
            buf = io.StringIO()
            with AlignmentWriter(buf, fmt, columns=columns, queries=[q.name for q, _ in pairs]
                                 if fmt == "blast7" else None) as w:
                assert w.letters == (True, True)
                if compiled:
                    assert w.write_columns(batch, qnames, tnames, qletters, tletters, query_offset=0)
                else:
                    for k, a in enumerate(alns):
                        w.write(a, query=k if fmt == "blast7" else None)
            texts.append(buf.getvalue())
        assert texts[0] == texts[1]
