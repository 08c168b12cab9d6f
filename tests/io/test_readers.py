"""Tests of sequence reading: formats, line endings, letters, alphabet guessing, errors."""

from __future__ import annotations

import bz2
import gzip
import lzma
import random
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from swgpu.io.alphabet import DNA, PROTEIN, get_alphabet, guess_alphabet
from swgpu.exceptions import InputError, SwgpuError
from swgpu.io.readers import detect_alphabet, iter_sequences, read_sequences

EXAMPLES = Path(str(resources.files("swgpu").joinpath("data", "examples")))
QUERIES = EXAMPLES / "queries.fasta"
TARGETS = EXAMPLES / "targets.fasta"


def _write(path: Path, data) -> Path:
    if isinstance(data, str):
        data = data.encode("latin-1")
    path.write_bytes(data)
    return path


def _same_records(a, b) -> None:
    assert [s.name for s in a] == [s.name for s in b]
    assert [s.text for s in a] == [s.text for s in b]
    assert [s.description for s in a] == [s.description for s in b]
    assert [s.alphabet for s in a] == [s.alphabet for s in b]
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x.codes, y.codes)


# ------------------------------------------------------------- bundled example


def test_bundled_queries():
    seqs = read_sequences(QUERIES)
    assert [s.name for s in seqs] == ["P02232", "P09187_fragment"]
    assert all(s.alphabet is PROTEIN for s in seqs)
    assert len(seqs[0]) == 144
    assert seqs[0].description.startswith("Swiss-Prot P02232")


def test_bundled_targets_multiline_records_are_joined():
    seqs = read_sequences(TARGETS)
    assert len(seqs) == 40
    by_name = {s.name: s for s in seqs}
    # Q8XGN7 is written on four lines (60+60+60+40 letters)
    assert len(by_name["Q8XGN7"]) == 220
    assert "\n" not in by_name["Q8XGN7"].text
    assert by_name["Q8XGN7"].text.startswith("MDYTLTRIDPNGENDRYPLQ")


def test_accepts_str_and_path(tmp_path):
    f = _write(tmp_path / "a.fasta", ">a\nACGT\n")
    _same_records(read_sequences(f), read_sequences(str(f)))


def test_iter_sequences_yields_the_same_records():
    _same_records(list(iter_sequences(QUERIES)), read_sequences(QUERIES))


def test_codes_are_uint8():
    s = read_sequences(QUERIES)[0]
    assert s.codes.dtype == np.uint8
    assert s.codes.shape == (144,)


# ------------------------------------------------------------- line endings


def test_crlf_fasta_reads_like_lf(tmp_path):
    text = QUERIES.read_text()
    lf = _write(tmp_path / "lf.fasta", text)
    crlf = _write(tmp_path / "crlf.fasta", text.replace("\n", "\r\n"))
    assert b"\r\n" in crlf.read_bytes()
    a, b = read_sequences(lf), read_sequences(crlf)
    _same_records(a, b)
    assert all("\r" not in s.text and "\r" not in s.name and "\r" not in s.description for s in b)


def test_crlf_multiline_dna(tmp_path):
    f = _write(tmp_path / "d.fasta", ">a some description\r\nACGT\r\nAC\r\n>b\r\nGG\r\n")
    seqs = read_sequences(f)
    assert [(s.name, s.text, s.description) for s in seqs] == [("a", "ACGTAC", "some description"), ("b", "GG", "")]
    assert seqs[0].codes.tolist() == [0, 1, 2, 3, 0, 1]


def test_crlf_fastq_reads_like_lf(tmp_path):
    text = "@r1 x\nACGTACGT\n+\nIIIIIIII\n@r2\nGGCC\n+\nIIII\n"
    _same_records(read_sequences(_write(tmp_path / "lf.fastq", text)),
                  read_sequences(_write(tmp_path / "crlf.fastq", text.replace("\n", "\r\n"))))


# ------------------------------------------------------------- letters


def test_lowercase_is_accepted_and_kept_in_text(tmp_path):
    lower = read_sequences(_write(tmp_path / "l.fasta", ">a\nacgtacgtnn\n"))[0]
    upper = read_sequences(_write(tmp_path / "u.fasta", ">a\nACGTACGTNN\n"))[0]
    assert lower.alphabet is DNA
    assert lower.text == "acgtacgtnn"
    np.testing.assert_array_equal(lower.codes, upper.codes)


def test_lowercase_protein(tmp_path):
    lower = read_sequences(_write(tmp_path / "l.fasta", ">p\nmkvlaagiv\n"))[0]
    assert lower.alphabet is PROTEIN
    np.testing.assert_array_equal(lower.codes, PROTEIN.encode("MKVLAAGIV"))


def test_rna_u_is_read_as_t(tmp_path):
    rna = read_sequences(_write(tmp_path / "r.fasta", ">r\nACGUACGUuu\n"))[0]
    dna = read_sequences(_write(tmp_path / "d.fasta", ">r\nACGTACGTtt\n"))[0]
    assert rna.alphabet is DNA
    assert rna.text == "ACGUACGUuu"  # the letters as read
    np.testing.assert_array_equal(rna.codes, dna.codes)
    assert rna.codes.tolist() == [0, 1, 2, 3, 0, 1, 2, 3, 3, 3]


def test_rna_alphabet_name_is_dna(tmp_path):
    f = _write(tmp_path / "r.fasta", ">r\nACGU\n")
    assert read_sequences(f, "rna")[0].alphabet is DNA
    assert get_alphabet("rna") is DNA


def test_iupac_codes_become_n(tmp_path):
    f = _write(tmp_path / "i.fasta", ">i\nACGTRYSWKMBDHVNacgtryswkmbdhvn\n")
    s = read_sequences(f, "dna")[0]
    assert s.codes.tolist() == [0, 1, 2, 3] + [4] * 11 + [0, 1, 2, 3] + [4] * 11
    assert DNA.decode(s.codes) == "ACGT" + "N" * 11 + "ACGT" + "N" * 11


def test_iupac_in_mostly_acgt_record_is_guessed_dna(tmp_path):
    f = _write(tmp_path / "i.fasta", ">i\nACGTACGTACGTACGTACGR\n")
    s = read_sequences(f)[0]
    assert s.alphabet is DNA
    assert s.codes[-1] == DNA.unknown_code == 4


def test_protein_rare_letters_are_accepted(tmp_path):
    s = read_sequences(_write(tmp_path / "p.fasta", ">p\nMKVLBZXUO*\n"))[0]
    assert s.alphabet is PROTEIN
    codes = s.codes.tolist()
    assert codes[:4] == [12, 11, 19, 10]
    # B Z X U O * each have their own code after the 20 standard amino acids
    assert sorted(codes[4:]) == list(range(20, 26))
    assert PROTEIN.decode(s.codes) == "MKVLBZXUO*"


def test_protein_j_is_read_as_x():
    assert PROTEIN.encode("J").tolist() == PROTEIN.encode("X").tolist() == [PROTEIN.unknown_code]


# ------------------------------------------------------------- FASTQ and compression


FASTQ = "@r1 first read\nACGTACGTAC\n+\nIIIIIIIIII\n@r2\nggccaattu\n+\nIIIIIIIII\n"


def _check_fastq(seqs):
    assert [s.name for s in seqs] == ["r1", "r2"]
    assert seqs[0].description == "first read"
    assert seqs[0].text == "ACGTACGTAC"
    assert all(s.alphabet is DNA for s in seqs)
    assert seqs[1].codes.tolist() == [2, 2, 1, 1, 0, 0, 3, 3, 3]


def test_fastq(tmp_path):
    _check_fastq(read_sequences(_write(tmp_path / "r.fastq", FASTQ)))


def test_fq_gz(tmp_path):
    _check_fastq(read_sequences(_write(tmp_path / "r.fq.gz", gzip.compress(FASTQ.encode(), mtime=0))))


@pytest.mark.parametrize("suffix, compress", [
    (".fasta.gz", lambda d: gzip.compress(d, mtime=0)),
    (".fa.bz2", bz2.compress),
    (".fasta.xz", lzma.compress),
])
def test_compressed_fasta(tmp_path, suffix, compress):
    f = _write(tmp_path / ("t" + suffix), compress(TARGETS.read_bytes()))
    _same_records(read_sequences(f), read_sequences(TARGETS))


# ------------------------------------------------------------- alphabet guessing and forcing


def test_guess_alphabet():
    assert guess_alphabet("ACGTTGCA") is DNA
    assert guess_alphabet("acgtnnuu") is DNA
    assert guess_alphabet("MKVLAAGIV") is PROTEIN
    # DNA when at least 90% of the letters are ACGTUN
    assert guess_alphabet("ACGTACGTAR") is DNA
    assert guess_alphabet("ACGTACGTRR") is PROTEIN


def test_detect_alphabet_from_files(tmp_path):
    assert detect_alphabet(QUERIES) is PROTEIN
    assert detect_alphabet(_write(tmp_path / "d.fasta", ">a\nACGTACGGT\n>b\nTTGCA\n")) is DNA
    assert detect_alphabet(_write(tmp_path / "r.fasta", ">a\nACGUACGGU\n")) is DNA
    assert detect_alphabet(_write(tmp_path / "r.fastq", FASTQ)) is DNA


def test_forcing_protein_on_a_dna_file(tmp_path):
    f = _write(tmp_path / "d.fasta", ">a\nACGT\n")
    s = read_sequences(f, "protein")[0]
    assert s.alphabet is PROTEIN
    np.testing.assert_array_equal(s.codes, PROTEIN.encode("ACGT"))
    assert read_sequences(f, PROTEIN)[0].alphabet is PROTEIN


def test_forcing_dna_on_a_protein_file_names_record_and_position():
    with pytest.raises(InputError) as info:
        read_sequences(QUERIES, "dna")
    msg = str(info.value)
    assert "queries.fasta" in msg
    assert "'P02232'" in msg
    assert "position 3" in msg  # M G F: F is the first letter that is not DNA/IUPAC
    assert "'F'" in msg
    assert "protein alphabet" in msg and info.value.param == "alphabet"


def test_unknown_alphabet_name(tmp_path):
    f = _write(tmp_path / "d.fasta", ">a\nACGT\n")
    with pytest.raises(InputError, match="unknown alphabet"):
        read_sequences(f, "klingon")


# ------------------------------------------------------------- bad input


def _truncated_gz(tmp_path: Path) -> Path:
    data = gzip.compress(TARGETS.read_bytes(), mtime=0)
    return _write(tmp_path / "cut.fasta.gz", data[: len(data) // 2])


BAD_FILES = {
    "empty_file": ("e.fasta", b"", "empty"),
    "empty_record": ("r.fasta", b">a\n\n>b\nAC\n", "'a'"),
    "header_only": ("h.fasta", b">a\n", "'a'"),
    "whitespace_only": ("w.fasta", b"   \n\n", "no sequence records"),
    "no_name": ("n.fasta", b"> description only\nACGT\n", "no name"),
    "not_fasta_text": ("t.fasta", b"hello world\n", "not a valid FASTA"),
    "binary_garbage_fasta": ("g.fasta", random.Random(1).randbytes(4096), "g.fasta"),
    "binary_garbage_bin": ("g.bin", random.Random(2).randbytes(4096), "g.bin"),
    "binary_after_header": ("b.fasta", b">x\n" + random.Random(3).randbytes(2000), "b.fasta"),
    "not_gzip_but_gz_suffix": ("n.fasta.gz", random.Random(4).randbytes(1000), "n.fasta.gz"),
    "dna_bad_letter": ("d.fasta", b">a\nAC1GT\n", "position 3"),
    "protein_bad_letter": ("p.fasta", b">p\nMKV#L\n", "position 4"),
    "fastq_named_fasta": ("q.fasta", b"@r1\nACGT\n+\nIIII\n", "FASTQ"),
    "fastq_named_fa_gz": ("q.fa.gz", gzip.compress(b"@r1\nACGT\n+\nIIII\n", mtime=0), "FASTQ"),
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_bad_files_raise_input_error(tmp_path, case):
    name, data, expected = BAD_FILES[case]
    f = _write(tmp_path / name, data)
    with pytest.raises(InputError) as info:
        read_sequences(f)
    msg = str(info.value)
    assert name in msg
    assert expected in msg
    assert "\n" not in msg


def test_truncated_gz(tmp_path):
    f = _truncated_gz(tmp_path)
    with pytest.raises(InputError, match="truncated") as info:
        read_sequences(f)
    assert "cut.fasta.gz" in str(info.value)


def test_truncated_gz_detect_alphabet_too(tmp_path):
    # guessing reads only the start; a file cut after it still fails on reading
    f = _truncated_gz(tmp_path)
    with pytest.raises(InputError, match="truncated"):
        read_sequences(f, "protein")


def test_invalid_letters_name_record_and_position(tmp_path):
    f = _write(tmp_path / "p.fasta", ">ok\nMKVL\n>p\nMKV#L\n")
    with pytest.raises(InputError) as info:
        read_sequences(f)
    msg = str(info.value)
    assert "'p'" in msg and "position 4" in msg and "'#'" in msg


def test_invalid_letter_in_a_dna_record(tmp_path):
    f = _write(tmp_path / "d.fasta", ">a\nACGTACGTACGTACGTAC1GT\n")
    with pytest.raises(InputError) as info:
        read_sequences(f)
    msg = str(info.value)
    assert "'a'" in msg and "position 19" in msg and "'1'" in msg and "dna" in msg


def test_invalid_letter_with_forced_dna(tmp_path):
    f = _write(tmp_path / "d.fasta", ">a\nAC1GT\n")
    with pytest.raises(InputError, match=r"record 'a', position 3: '1' is not a valid dna letter"):
        read_sequences(f, "dna")


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        read_sequences(tmp_path / "nope.fasta")
    with pytest.raises(InputError, match="directory"):
        read_sequences(tmp_path)


def test_input_error_is_a_swgpu_error_and_value_error():
    assert issubclass(InputError, SwgpuError)
    assert issubclass(InputError, ValueError)


# Corrupt (not truncated) compressed data: the decompressors raise errors that
# are neither OSError nor EOFError, and they escape as they are.
CORRUPT = {
    "xz_garbage": ("g.fasta.xz", b"\xfd7zXZ\x00" + bytes(60)),
    "zst_garbage": ("g.fasta.zst", random.Random(5).randbytes(1000)),
    "gz_invalid_deflate_block": ("g.fasta.gz", bytes.fromhex("1f8b0800000000000003") + b"\x07" + bytes(50)),
}


@pytest.mark.parametrize("case", sorted(CORRUPT))
def test_corrupt_compressed_file_raises_input_error(tmp_path, case):
    name, data = CORRUPT[case]
    f = _write(tmp_path / name, data)
    with pytest.raises(InputError):
        read_sequences(f)


# ------------------------------------------------------------- real data


def test_shared_lambda_phage(shared_data):
    seqs = read_sequences(shared_data / "dna" / "lambda_phage.fasta")
    assert len(seqs) == 1
    assert seqs[0].alphabet is DNA
    assert len(seqs[0]) == 48502


def test_shared_protein_queries(shared_data):
    seqs = read_sequences(shared_data / "protein" / "queries_brief11.fasta")
    assert len(seqs) == 11
    assert all(s.alphabet is PROTEIN for s in seqs)
    assert sorted(len(s) for s in seqs)[0] == 144


def test_shared_gz_alphabets(shared_data):
    assert detect_alphabet(shared_data / "protein" / "swissprot_2014_01_sample100k.fasta.gz") is PROTEIN
    assert detect_alphabet(shared_data / "rna" / "ncbi_16S_2008.fasta.gz") is DNA
    assert detect_alphabet(shared_data / "reads" / "gasal2_pairs_query.fasta.gz") is DNA


def test_shared_p02232_in_classic_queries(shared_data):
    seqs = {s.name.split()[0]: s for s in read_sequences(shared_data / "protein" / "queries_classic24.fasta")}
    bundled = read_sequences(QUERIES)[0]
    match = [s for name, s in seqs.items() if "P02232" in name]
    assert match, "P02232 is one of the classic queries"
    assert match[0].text == bundled.text


# ------------------------------------------------------------- headers: whitespace and encodings


@pytest.mark.parametrize("space", [" ", "\t", "\u00a0", "\u2009", "\u3000", "\x0b", "\x0c"],
                         ids=["space", "tab", "nbsp", "thin", "ideographic", "vt", "ff"])
def test_the_name_ends_at_any_whitespace(tmp_path, space):
    f = _write(tmp_path / "w.fasta", f">id1{space}first words\tmore words \n ACGT\n".encode())
    s = read_sequences(f)[0]
    assert (s.name, s.description, s.text) == ("id1", "first words\tmore words", "ACGT")


def test_tab_in_a_fastq_header(tmp_path):
    s = read_sequences(_write(tmp_path / "r.fastq", "@r1\tread one\nACGT\n+\nIIII\n"))[0]
    assert (s.name, s.description) == ("r1", "read one")


def test_header_starting_with_a_tab_has_no_name(tmp_path):
    with pytest.raises(InputError, match="record 1 has no name"):
        read_sequences(_write(tmp_path / "n.fasta", ">\tx\nACGT\n"))


@pytest.mark.parametrize("suffix, record", [(".fasta", ">{h}\nACGT\n"), (".fastq", "@{h}\nACGT\n+\nIIII\n")])
@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "latin-1"])
def test_non_ascii_headers(tmp_path, suffix, record, encoding):
    data = record.format(h="café déjà-vu").encode(encoding)
    s = read_sequences(_write(tmp_path / ("h" + suffix), data))[0]
    assert (s.name, s.description, s.text) == ("café", "déjà-vu", "ACGT")


def test_utf8_bom_before_blank_lines_and_crlf(tmp_path):
    s = read_sequences(_write(tmp_path / "b.fa", b"\xef\xbb\xbf\r\n>a x\r\nAC\r\nGT\r\n"))[0]
    assert (s.name, s.description, s.text) == ("a", "x", "ACGT")


@pytest.mark.parametrize("data", [b">a\x00b\nACGT\n", b">a\nAC\x01GT\n", ">a\nACGT\n".encode("utf-16"),
                                  b"@r\nACGT\n+\nII\x00I\n"], ids=["nul_header", "control_letters", "utf16", "fastq"])
def test_control_characters_are_binary_data(tmp_path, data):
    with pytest.raises(InputError, match="binary data") as info:
        read_sequences(_write(tmp_path / "x.fa", data))
    assert "x.fa" in str(info.value)


def test_gold_16s_headers_have_tabs(shared_data):
    from itertools import islice

    seqs = list(islice(iter_sequences(shared_data / "rna" / "rRNA16S_gold.fasta.gz"), 30))
    assert all(s.name.isdigit() for s in seqs)  # '7000004128189528<TAB>Acidothermus ...'
    assert all("16s_rRNA" in s.description and not s.description[0].isspace() for s in seqs)


def test_gold_16s_search_gives_clean_blast6_and_sam(run_cli, shared_data, tmp_path):
    import re
    from itertools import islice

    with gzip.open(shared_data / "rna" / "rRNA16S_gold.fasta.gz", "rt") as fh:
        head = "".join(islice(fh, 200))
    records = head.split("\n>")[:3]  # the first three records
    assert len(records) == 3 and "\t" in records[0].splitlines()[0]
    _write(tmp_path / "gold3.fa", "\n>".join(records) + "\n")
    _write(tmp_path / "q.fa", records[0] + "\n")
    assert run_cli(["makedb", "gold3.fa", "gold3.swdb"], tmp_path)[0] == 0
    code, out, _ = run_cli(["search", "-q", "q.fa", "-d", "gold3.swdb", "-f", "blast6"], tmp_path)
    rows = [line.split("\t") for line in out.splitlines()]
    assert code == 0 and rows and len({len(r) for r in rows}) == 1
    assert all(r[0].isdigit() and r[1].isdigit() for r in rows)
    code, out, _ = run_cli(["search", "-q", "q.fa", "-d", "gold3.swdb", "-f", "sam"], tmp_path)
    body = [line.split("\t") for line in out.splitlines() if not line.startswith("@")]
    assert code == 0 and body
    qname = re.compile(r"[!-?A-~]{1,254}")  # the SAM specification's QNAME
    assert all(qname.fullmatch(r[0]) and r[2].isdigit() for r in body)


def test_fasta_records_are_the_same_whatever_the_blocks(tmp_path, monkeypatch):
    """Records inside a block, across block ends, with comment lines, blank
    lines and CRLF: the same as read in one block."""
    from swgpu.io import readers

    rng = random.Random(5)
    lines = []
    for k in range(300):
        lines.append(f">r{k} some description {k}")
        for _ in range(rng.randint(1, 4)):
            lines.append("".join(rng.choice("ACGTN") for _ in range(rng.randint(1, 70))))
            if rng.random() < 0.05:
                lines.append("# a comment line")
            if rng.random() < 0.05:
                lines.append("")
    text = "\n".join(lines) + "\n"
    for name, data in (("plain.fa", text), ("crlf.fa", text.replace("\n", "\r\n"))):
        path = tmp_path / name
        path.write_text(data)
        whole = [(s.name, s.description, s.text) for s in read_sequences(path, "dna")]
        assert len(whole) == 300 and whole[7][0] == "r7" and "#" not in "".join(t for *_, t in whole)
        for block in (16, 97, 1000):
            monkeypatch.setattr(readers, "_BLOCK", block)
            assert [(s.name, s.description, s.text) for s in read_sequences(path, "dna")] == whole
