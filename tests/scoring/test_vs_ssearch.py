"""swgpu's E-values against FASTA36's ssearch36 on real data.

Both routes are compared, on the hits ssearch36 reports with E-values from
1e-5 to 10: the SSEARCH-style fit of the search's own scores
(:meth:`Statistics.search_evalues`), which must agree with every hit within a
factor of 3, and the lambda/K route (:meth:`Statistics.evalue`: BLAST's
tables or the simulation), which can only agree typically -- ssearch36 fits
each query on its own, and its lambda varies by +-10% between queries -- so
its median ratio must be within a factor of 3 and most hits within it.

Gap costs: ssearch36 charges ``f + k g`` for a gap of k residues, as BLAST
does, so swgpu's ``(gap_open, gap_extend)`` is ``-f (gap_open - gap_extend)
-g gap_extend``. Scores are swgpu's CPU engine's, checked equal to
ssearch36's. The simulations these scorings need run once per machine
(seconds each) and are cached.
"""

from __future__ import annotations

import gzip
import re
import shutil
import subprocess

import numpy as np
import pytest

from swgpu.engines import get_engine
from swgpu.io.database import Database
from swgpu.io.readers import read_sequences
from swgpu.scoring import ScoreMatrix, Scoring
from swgpu.scoring.statistics import Statistics

SSEARCH = shutil.which("ssearch36")
pytestmark = pytest.mark.skipif(SSEARCH is None, reason="ssearch36 (FASTA36) is not installed: no reference to compare")

_HIT = re.compile(r"^(\S+) .*\(\s*(\d+)\)\s+(?:\[[fr]\]\s+)?(\d+)\s+[\d.]+\s+([\d.e+-]+)$")


def ssearch(queries, database, *options) -> dict[str, list[tuple[str, int, int, float]]]:
    """``query -> [(subject, length, score, E)]`` of ssearch36's list of best scores."""
    cmd = [SSEARCH, "-q", "-E", "10", "-b", "5000", "-d", "0", *map(str, options), str(queries), str(database)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    hits: dict[str, list] = {}
    query = None
    for line in out.splitlines():
        m = re.match(r"^ +\d+>>>(\S+)", line)
        if m:
            query = m.group(1)
            hits[query] = []
            continue
        m = _HIT.match(line)
        if m and query is not None:
            hits[query].append((m.group(1), int(m.group(2)), int(m.group(3)), float(m.group(4))))
    return hits


def compare(db: Database, scoring: Scoring, queries, hits) -> tuple[np.ndarray, np.ndarray]:
    """Ratios swgpu / ssearch36 of the E-values of the hits from 1e-5 to 10:
    (search-fit route, lambda/K route)."""
    stats = Statistics.for_scoring(scoring)
    scorer = get_engine("cpu", threads=2).database_scorer(scoring)
    scorer.load_database(db.residues, db.offsets)
    where = {re.sub(r"^gi\|\d+\|", "", name): k for k, name in enumerate(db.names)}  # (as ssearch36 names them)
    residues, count = int(db.lengths.sum()), len(db)
    fit_ratios, lk_ratios = [], []
    for query, scores in zip(queries, scorer.scores_many([q.codes for q in queries])):
        fit = stats.search_fit(scores, db.lengths, len(query))
        # the same hits at E 1e-3, up to the factor 3 of the E-values: every hit of ssearch36's is one of
        # swgpu's at 3e-3, every hit of swgpu's at 1e-3 / 3 one of ssearch36's
        every = stats.search_evalues(scores, db.lengths, len(query), residues, count, fit=fit)
        theirs = {name for name, _, _, e in hits[query.name] if e <= 1e-3}
        named = np.array(list(where))[np.argsort(list(where.values()))]
        assert set(named[every <= 3e-3]) >= theirs, query.name
        assert set(named[every <= 1e-3 / 3]) <= theirs, query.name
        chosen = [(s, n, e, name) for name, n, s, e in hits[query.name] if 1e-5 <= e <= 10]
        if not chosen:
            continue
        s, n, e, names = (np.array(x) for x in zip(*chosen))
        assert scores[[where[x] for x in names]].tolist() == s.tolist()    # the same scores as ssearch36
        fit_ratios.append(stats.search_evalues(s, n, len(query), residues, count, fit=fit) / e)
        lk_ratios.append(stats.evalue(s, len(query), residues, count) / e)
    return np.concatenate(fit_ratios), np.concatenate(lk_ratios)


def within(ratios: np.ndarray, factor: float) -> float:
    return float(np.mean((ratios >= 1 / factor) & (ratios <= factor)))


@pytest.fixture(scope="module")
def swissprot(shared_data, tmp_path_factory):
    folder = tmp_path_factory.mktemp("sp")
    path = folder / "sp12k.fa"
    with gzip.open(shared_data / "protein" / "uniprot_sprot12071.fasta.gz", "rb") as src, open(path, "wb") as dst:
        shutil.copyfileobj(src, dst)
    queries = shared_data / "protein" / "queries_brief11.fasta"
    return Database.from_fasta(path), path, read_sequences(queries), queries


@pytest.mark.parametrize("matrix, f, g, lk_median, lk_within", [
    ("BLOSUM62", 11, 1, 2.0, 0.7),     # tabulated (BLAST 11/1)
    ("BLOSUM50", 10, 2, 3.0, 0.4),     # SSEARCH's default; simulated
    ("PAM70", 9, 2, 2.0, 0.6),         # simulated
])
def test_protein_evalues_agree_with_ssearch(swissprot, shared_data, matrix, f, g, lk_median, lk_within):
    db, path, queries, query_file = swissprot
    matrix_file = shared_data / "matrices" / matrix
    scoring = Scoring(ScoreMatrix.load(matrix_file), f + g, g)
    hits = ssearch(query_file, path, "-s", matrix_file, "-f", f, "-g", g)
    by_fit, by_lk = compare(db, scoring, queries, hits)
    assert by_fit.size >= 80
    assert within(by_fit, 3) == 1.0 and within(by_fit, 1.5) >= 0.9
    assert 1 / lk_median <= np.median(by_lk) <= lk_median
    assert within(by_lk, 3) >= lk_within


def _acgt(records):
    return [r for r in records if set(r.text.upper()) <= set("ACGT")]


@pytest.fixture(scope="module")
def rrna(shared_data, tmp_path_factory):
    """Three 16S queries (gold set) and 1,500 16S sequences of the NCBI set
    (only A C G T: ssearch36 scores ambiguity letters otherwise)."""
    folder = tmp_path_factory.mktemp("16s")
    queries = _acgt(read_sequences(shared_data / "rna" / "rRNA16S_gold.fasta.gz"))[:3]
    database = _acgt(read_sequences(shared_data / "rna" / "ncbi_16S_2008.fasta.gz"))[:1600]
    query_file = folder / "q.fa"
    query_file.write_text("".join(f">{q.name}\n{q.text}\n" for q in queries))
    return folder, queries, query_file, database


def _write(path, records):
    path.write_text("".join(f">{name}\n{text}\n" for name, text in records))
    return path


DNA_SCORING = ("-n", "-3", "-r", "2/-3", "-f", 3, "-g", 2)     # swgpu 2/-3, open 5, extend 2, forward strand


def test_dna_16s_against_the_16s_database(rrna):
    """All subjects are homologues: ssearch36's regression has no unrelated
    scores and it falls back to censored maximum likelihood; so does swgpu."""
    folder, queries, query_file, database = rrna
    path = _write(folder / "db.fa", [(r.name, r.text) for r in database[:1500]])
    scoring = Scoring(ScoreMatrix.match_mismatch(2, -3), 5, 2)
    by_fit, _ = compare(Database.from_fasta(path), scoring, queries, ssearch(query_file, path, *DNA_SCORING))
    assert by_fit.size >= 30 and within(by_fit, 3) == 1.0 and within(by_fit, 1.2) >= 0.95


def test_dna_16s_against_16s_and_unrelated_dna(rrna):
    """100 16S sequences among 1,500 reversed ones (unrelated, the same
    composition and lengths): both routes."""
    folder, queries, query_file, database = rrna
    records = [(r.name, r.text) for r in database[:100]] + [(f"rev_{r.name}", r.text[::-1]) for r in database[100:]]
    path = _write(folder / "mixed.fa", records)
    scoring = Scoring(ScoreMatrix.match_mismatch(2, -3), 5, 2)
    by_fit, by_lk = compare(Database.from_fasta(path), scoring, queries, ssearch(query_file, path, *DNA_SCORING))
    assert by_fit.size >= 10 and within(by_fit, 3) == 1.0
    assert 1 / 3 <= np.median(by_lk) <= 3 and within(by_lk, 3) >= 0.7
