"""The alphabet guard: letters that look like another alphabet than the one
expected (DNA queries against a protein database) are an error, unless the user
chose the alphabet."""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swgpu.exceptions import InputError
from swgpu.io.alphabet import DNA, PROTEIN, SAMPLE_LETTERS, check_alphabet
from swgpu.io.pairs import read_pair_files, read_pairs
from swgpu.io.readers import read_sequences
from swgpu.io.sequence import Sequence

EXAMPLES = Path(str(resources.files("swgpu").joinpath("data", "examples")))
QUERIES = EXAMPLES / "queries.fasta"
TARGETS = EXAMPLES / "targets.fasta"
# protein-like letters that are all IUPAC nucleotide codes, so they encode as DNA too
IUPAC_PROTEIN = "MKVHRSWDKMVNHRSWDKMVYBKMHRSWDV"


def _seq(name: str, text: str, alphabet=PROTEIN) -> Sequence:
    return Sequence.from_text(name, text, alphabet)


def _one_line_error(code: int, out: str, err: str) -> str:
    assert code == 2 and out == "" and "Traceback" not in err
    assert err.count("\n") == 1 and err.startswith("swgpu: error: ")
    return err.strip()


# ------------------------------------------------------------- check_alphabet


def test_matching_letters_pass():
    check_alphabet([_seq("p", "MKVLAAGIVEEF")], PROTEIN)
    check_alphabet([_seq("d", "ACGTNNacgu", DNA)], "dna")
    check_alphabet([_seq("r", "ACGU", DNA)], "rna")  # RNA is read with the DNA alphabet
    check_alphabet([], PROTEIN)
    check_alphabet([_seq("x", "***")], DNA)  # no letters: nothing to judge


def test_dna_letters_against_protein_name_the_record_and_what():
    with pytest.raises(InputError) as info:
        check_alphabet([_seq("lam", "GGGCGGCGACCTCGCGGGTTTTCGC")], PROTEIN, "the database", source="lam.fa")
    assert info.value.param == "alphabet"
    assert info.value.message == ("lam.fa: record 'lam': the letters look like dna, but the database is protein; "
                                  "give the alphabet explicitly to override")


def test_protein_letters_against_dna():
    with pytest.raises(InputError, match="record 'p': the letters look like protein, but x is dna$"):
        check_alphabet([_seq("p", IUPAC_PROTEIN, DNA)], DNA, "x", hint=None)


def test_the_file_decides_and_the_first_odd_record_is_named():
    short_peptide = _seq("pep", "GATTACA")  # looks like DNA by itself
    proteins = [_seq(f"p{i}", "MKVLAAGIVEEFWQ" * 5) for i in range(3)]
    check_alphabet([short_peptide, *proteins], PROTEIN)  # the file as a whole is protein
    dna = [_seq("d1", "MKVLA"), _seq("d2", "ACGTACGTAC" * 20), _seq("d3", "ACGT" * 30)]
    with pytest.raises(InputError, match="record 'd2'"):
        check_alphabet(dna, PROTEIN)


def test_only_the_first_sample_letters_count():
    dna = _seq("d", "ACGT" * (SAMPLE_LETTERS // 4), DNA)
    protein = _seq("p", "MKVLEEF" * 3000)
    check_alphabet([dna, protein], DNA)  # the protein record comes after the sample
    with pytest.raises(InputError, match="record 'p'"):
        check_alphabet([protein, dna], DNA)  # 21,000 protein letters in 121,000: protein


# ------------------------------------------------------------- read_sequences(expect=...)


def test_read_sequences_expect(tmp_path):
    f = tmp_path / "lam.fa"
    f.write_text(">lam phage\n" + "GGGCGGCGACCTCGCGGGTTTTCGCTATTTATGAAAATTTTCCGG\n")
    assert read_sequences(f, PROTEIN)[0].alphabet is PROTEIN  # no expect: as asked
    with pytest.raises(InputError) as info:
        read_sequences(f, PROTEIN, expect=PROTEIN, what="the database")
    assert str(info.value).startswith(f"alphabet: {f}: record 'lam': the letters look like dna, but the database")
    assert read_sequences(f, expect=DNA)[0].alphabet is DNA
    assert read_sequences(QUERIES, expect="protein")[0].name == "P02232"


def test_pairs_expect_dna(tmp_path):
    (tmp_path / "q.fa").write_text(f">p1\n{IUPAC_PROTEIN}\n")
    (tmp_path / "t.fa").write_text(f">t1\n{IUPAC_PROTEIN}\n")
    read_pair_files(tmp_path / "q.fa", tmp_path / "t.fa")  # no expect: read as DNA
    with pytest.raises(InputError, match="q.fa: record 'p1': the letters look like protein, but screen's alphabet"):
        read_pair_files(tmp_path / "q.fa", tmp_path / "t.fa", expect=DNA)
    (tmp_path / "p.tsv").write_text(f"ACGTACGT\tACGTACGA\nq2\t{IUPAC_PROTEIN}\tt2\t{IUPAC_PROTEIN}\n")
    with pytest.raises(InputError, match="p.tsv: record 'q2'"):
        read_pairs(tmp_path / "p.tsv", expect=DNA)


# ------------------------------------------------------------- the command line


@pytest.fixture
def lambda_2kb(shared_data, tmp_path) -> Path:
    lam = read_sequences(shared_data / "dna" / "lambda_phage.fasta")[0]
    (tmp_path / "lam.fa").write_text(f">lam {lam.name}\n{lam.text[:2000]}\n")
    return tmp_path


def test_cli_search_dna_query_against_a_protein_database(run_cli, lambda_2kb):
    line = _one_line_error(*run_cli(["search", "-q", "lam.fa", "-d", TARGETS], lambda_2kb))
    assert line.startswith("swgpu: error: lam.fa: record 'lam': the letters look like dna")
    assert "the database is protein" in line
    code, out, _ = run_cli(["search", "-q", "lam.fa", "-d", TARGETS, "--alphabet", "protein", "-f", "blast6"],
                           lambda_2kb)
    assert code == 0


def test_cli_align_protein_query_with_a_dna_target(run_cli, lambda_2kb):
    line = _one_line_error(*run_cli(["align", QUERIES, "lam.fa"], lambda_2kb))
    assert "lam.fa: record 'lam': the letters look like dna, but the query file is protein" in line
    code, _, _ = run_cli(["align", QUERIES, "lam.fa", "--alphabet", "protein", "-f", "blast6"], lambda_2kb)
    assert code == 0


def test_cli_screen_protein_letters(run_cli, tmp_path):
    (tmp_path / "q.fa").write_text(f">p1\n{IUPAC_PROTEIN}\n")
    (tmp_path / "t.fa").write_text(f">t1\n{IUPAC_PROTEIN}\n")
    line = _one_line_error(*run_cli(["screen", "-q", "q.fa", "-t", "t.fa"], tmp_path))
    assert "q.fa: record 'p1': the letters look like protein, but screen's alphabet is dna" in line
    (tmp_path / "p.tsv").write_text(f"{IUPAC_PROTEIN}\t{IUPAC_PROTEIN}\n")
    line = _one_line_error(*run_cli(["screen", "--pairs", "p.tsv"], tmp_path))
    assert "p.tsv: record 'pair1_q'" in line


@pytest.mark.parametrize("seed", range(4))
def test_a_list_is_judged_at_once_as_record_by_record(seed):
    """check_alphabet counts the records of a list together; the verdict and the
    record named are those of the record-by-record count (which an iterator gets)."""
    import random

    rng = random.Random(seed)
    for _ in range(12):
        seqs = []
        for k in range(rng.choice([1, 3, 40, 400])):
            letters = rng.choice(["ACGTN", "acgtRYKM", "MKVLAAGIVEEF", "*XBZ"])
            text = "".join(rng.choices(letters, k=rng.choice([0, 5, 120, 900, 4000])))
            seqs.append(Sequence.from_text(f"s{k}", text, DNA if set(text) <= set("ACGTNacgtRYKM") else PROTEIN))
        for expected in (DNA, PROTEIN):
            messages = []
            for given in (seqs, iter(seqs)):
                try:
                    check_alphabet(given, expected, "the test", source="x.fa")
                    messages.append(None)
                except InputError as exc:
                    messages.append(exc.message)
            assert messages[0] == messages[1]
            if len(seqs) > 1 and sum(len(s) for s in seqs) > SAMPLE_LETTERS:
                assert messages[0] is None or "record 's" in messages[0]


def _check_one_by_one(sequences, expected, what, source=None, hint=None):
    """check_alphabet as it was written before, record by record: the reference."""
    from swgpu.io.alphabet import SAMPLE_LETTERS, _counts, _verdict, get_alphabet

    expected = get_alphabet(expected)
    letters = nucleotides = 0
    first = odd = None
    for seq in sequences:
        n, nuc = _counts(seq.text)
        letters, nucleotides = letters + n, nucleotides + nuc
        if first is None:
            first = seq
        if odd is None and n and _verdict(n, nuc) is not expected:
            odd = seq
        if letters >= SAMPLE_LETTERS:
            break
    looks = _verdict(letters, nucleotides)
    if not letters or looks is expected:
        return None
    return f"record {(odd or first).name!r}: the letters look like {looks.name}"


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text("ACGTNacgtMKVLWRYB*xX", max_size=12), max_size=25), st.sampled_from(["dna", "protein"]),
       st.integers(1, 40), st.integers(1, 4))
def test_check_alphabet_counts_as_record_by_record(texts, expected, sample, chunk):
    """The counts in one pass over many records give the verdict and the record
    named that counting record by record gives, wherever the sample ends."""
    import swgpu.io.alphabet as alphabet_module

    seqs = [SimpleNamespace(name=f"r{k}", text=t) for k, t in enumerate(texts)]
    old = (alphabet_module.SAMPLE_LETTERS, alphabet_module._CHECK_CHUNK)
    alphabet_module.SAMPLE_LETTERS, alphabet_module._CHECK_CHUNK = sample, chunk
    try:
        want = _check_one_by_one(seqs, expected, "x")
        try:
            check_alphabet(seqs, expected, "x")
            got = None
        except InputError as exc:
            got = exc.message.split(", but")[0]
    finally:
        alphabet_module.SAMPLE_LETTERS, alphabet_module._CHECK_CHUNK = old
    assert got == want
