"""One batch of all records (:func:`read_sequence_batch`, :class:`SequenceBatch`):
the records, codes and errors of :func:`read_sequences`, with the codes end to end."""

from __future__ import annotations

import gzip
import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swgpu.exceptions import InputError
from swgpu.io import encoding
from swgpu.io.alphabet import DNA
from swgpu.io.pairs import read_pair_files
from swgpu.io.readers import read_sequence_batch, read_sequences
from swgpu.io.sequence import Sequence
from swgpu.io.sequence_batch import SequenceBatch


def _fasta(records, width: int = 60, crlf: bool = False) -> bytes:
    end = "\r\n" if crlf else "\n"
    lines = []
    for name, description, text in records:
        lines.append(f">{name} {description}".rstrip())
        lines += [text[i:i + width] for i in range(0, len(text), width)]
    return (end.join(lines) + end).encode("ascii")


def _same(batch: SequenceBatch, seqs: list[Sequence]) -> None:
    assert len(batch) == len(seqs)
    assert batch.names == [s.name for s in seqs]
    assert batch.descriptions == [s.description for s in seqs]
    assert batch.texts == [s.text for s in seqs]
    assert batch.lengths.tolist() == [len(s) for s in seqs]
    want = np.concatenate([s.codes for s in seqs]) if seqs else np.zeros(0, np.uint8)
    np.testing.assert_array_equal(batch.codes, want)
    assert batch.alphabet is seqs[0].alphabet
    for got, s in zip(batch, seqs):
        assert (got.name, got.text, got.description, got.alphabet) == (s.name, s.text, s.description, s.alphabet)
        np.testing.assert_array_equal(got.codes, s.codes)


def _random_records(n: int, seed: int, letters: str = "ACGTacgtNRY") -> list[tuple[str, str, str]]:
    rng = random.Random(seed)
    return [(f"r{k}", rng.choice(["", "a read", "x\ty  z"]), "".join(rng.choice(letters) for _ in range(rng.randint(1, 900))))
            for k in range(n)]


@pytest.mark.parametrize("crlf", [False, True])
@pytest.mark.parametrize("gz", [False, True])
def test_same_records_as_read_sequences_across_blocks(tmp_path, crlf, gz):
    data = _fasta(_random_records(4000, 5), width=70, crlf=crlf)  # > 1 MiB: several blocks and groups
    path = tmp_path / ("r.fa.gz" if gz else "r.fa")
    path.write_bytes(gzip.compress(data) if gz else data)
    _same(read_sequence_batch(path, DNA), read_sequences(path, DNA))


def test_records_read_one_by_one_too(tmp_path):
    """Comment lines and non-ASCII headers take the record-by-record path."""
    path = tmp_path / "c.fa"
    path.write_bytes(b">a first\nAC\n# a comment\nGT\n>b caf\xc3\xa9\nTTA\n>c\nG\n")
    _same(read_sequence_batch(path), read_sequences(path))


def test_fastq_and_protein(tmp_path):
    fq = tmp_path / "r.fastq"
    fq.write_text("@r1 x\nACGTN\n+\nIIIII\n@r2\nGG\n+\nII\n")
    _same(read_sequence_batch(fq), read_sequences(fq))
    prot = tmp_path / "p.fa"
    prot.write_text(">p1\nMKVLAAGIVX\n>p2\nWWW*\n")
    batch = read_sequence_batch(prot)
    _same(batch, read_sequences(prot))
    assert batch.alphabet.name == "protein"


@settings(max_examples=40, deadline=None)
@given(st.lists(st.text("ACGTNacgtn", min_size=1, max_size=40), min_size=1, max_size=30), st.integers(1, 50))
def test_random_records(tmp_path_factory, texts, width):
    path = tmp_path_factory.mktemp("b") / "r.fa"
    path.write_bytes(_fasta([(f"s{k}", "", t) for k, t in enumerate(texts)], width=width))
    _same(read_sequence_batch(path, DNA), read_sequences(path, DNA))


@pytest.mark.parametrize("data", [
    b">a\nACGT\n>b\n>c\nAC\n",  # empty record
    b">a\nACGT\n> b\nAC\n",  # no name
    b">a\nACGT\n>b\nACJT\n",  # invalid letter
    b"ACGT\n",  # not FASTA
    b"",  # no records
    b">a\nAC\n" * 3000 + b">z\nAC!T\n",  # invalid letter in a later group
])
def test_errors_are_those_of_read_sequences(tmp_path, data):
    path = tmp_path / "bad.fa"
    path.write_bytes(data)
    with pytest.raises(InputError) as want:
        read_sequences(path, DNA)
    with pytest.raises(InputError) as got:
        read_sequence_batch(path, DNA)
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize("group", [2, 4, 4096])
def test_the_first_problem_in_the_file_is_said_whatever_the_groups(tmp_path, monkeypatch, group):
    monkeypatch.setattr(encoding, "ENCODE_GROUP", group)
    path = tmp_path / "g.fa"
    path.write_bytes(b">a\nAC\n>b\nAJ\n>c\n>d\nGG\n")
    with pytest.raises(InputError, match="record 'b', position 2: 'J'"):
        read_sequence_batch(path, DNA)
    path.write_bytes(b">a\nAC\n>c\n>b\nAJ\n>d\nGG\n")
    with pytest.raises(InputError, match="'c' is empty"):
        read_sequence_batch(path, DNA)


def test_protein_looking_pairs_are_refused(tmp_path):
    (tmp_path / "q.fa").write_text(">q\nKMRSWYBDHVKMRSWYBDHV\n")  # IUPAC letters, but no A C G T
    (tmp_path / "t.fa").write_text(">t\nACGT\n")
    with pytest.raises(InputError, match="q.fa: record 'q': the letters look like protein"):
        read_pair_files(tmp_path / "q.fa", tmp_path / "t.fa", expect=DNA)
    queries, targets = read_pair_files(tmp_path / "t.fa", tmp_path / "t.fa", expect=DNA)
    assert isinstance(queries, SequenceBatch) and queries[0].text == targets[0].text == "ACGT"


def test_batch_is_a_read_only_sequence():
    seqs = [Sequence.from_text("a", "ACGT"), Sequence.from_text("b", "N"), Sequence.from_text("c", "GGA", description="d")]
    batch = SequenceBatch.from_sequences(seqs)
    _same(batch, seqs)
    assert batch[0] is batch[0] and batch[-1].name == "c" and [s.name for s in batch[1:]] == ["b", "c"]
    assert not batch.codes.flags.writeable and not batch[2].codes.flags.writeable
    assert "3 records" in repr(batch)
    with pytest.raises(IndexError):
        batch[3]
    with pytest.raises(ValueError, match="disagree"):
        SequenceBatch(["a"], [""], ["AC", "G"], batch.codes, batch.offsets, "dna")
    with pytest.raises(ValueError, match="uint8"):
        SequenceBatch(batch.names, batch.descriptions, batch.texts, batch.codes.astype(np.int32), batch.offsets, "dna")
    empty = SequenceBatch.from_sequences([])
    assert len(empty) == 0 and list(empty) == [] and empty.codes.size == 0


def test_the_sequences_are_made_once_when_first_asked_for(tmp_path):
    path = Path(tmp_path / "r.fa")
    path.write_bytes(_fasta(_random_records(50, 9)))
    batch = read_sequence_batch(path)
    assert batch._items is None and batch.lengths.sum() == batch.codes.size
    first = batch[10]
    assert batch._items is not None and batch[10] is first


def test_both_pair_files_are_read_before_their_alphabets_are_checked(tmp_path):
    """A letter that is not DNA in the target file is reported before query letters that look like protein."""
    (tmp_path / "q.fa").write_text(">r0\n" + "RYKMSWBDHV" * 5 + "\n")
    (tmp_path / "t.fa").write_text(">r0\nACGTE\n")
    with pytest.raises(InputError, match="t.fa: record 'r0', position 5: 'E' is not a valid dna letter"):
        read_pair_files(tmp_path / "q.fa", tmp_path / "t.fa", expect=DNA)


def test_records_pickling_and_checks():
    import pickle

    seqs = [Sequence.from_text("a", "ACGT"), Sequence.from_text("b", "GGA", description="d")]
    batch = SequenceBatch.from_sequences(seqs)
    assert list(batch.records()) == [("a", "ACGT"), ("b", "GGA")] and batch._items is None
    batch[0]
    copy = pickle.loads(pickle.dumps(batch))
    assert not copy.codes.flags.writeable and copy._items is None
    _same(copy, seqs)
    strided = np.zeros(14, np.uint8)[::2]  # not contiguous: copied
    odd = SequenceBatch(["x"], [""], ["AAAAAAA"], strided, np.array([0, 7]), "dna")
    assert odd[0].codes.tolist() == [0] * 7
    three = np.zeros(3, np.uint8)
    for offsets in ([1, 2, 3], [0, 4, 3]):  # not from 0; falling
        with pytest.raises(ValueError, match="rising from 0"):
            SequenceBatch(["x", "y"], ["", ""], ["AC", "G"], three, np.array(offsets), "dna")
    with pytest.raises(ValueError, match="more than one alphabet"):
        SequenceBatch.from_sequences([Sequence.from_text("d", "ACGT"), Sequence.from_text("p", "MKVW")])


@settings(max_examples=40, deadline=None)
@given(cuts=st.lists(st.integers(0, 30), min_size=1, max_size=4), from_lists=st.booleans(), later=st.booleans())
def test_joined_batches_hold_their_parts_records(cuts, from_lists, later):
    """:meth:`SequenceBatch.concat` joins at once, or (``later``) the codes,
    names, descriptions and letters when first asked for: the same records either way."""
    from swgpu.io.scanner import scan_fasta
    from swgpu.io.texts import Texts

    rng = random.Random(len(cuts) * 31 + sum(cuts))
    recs = [(f"r{k}", f"d x{k}" if k % 3 else "", "".join(rng.choice("ACGTNacgt") for _ in range(rng.randint(1, 12))))
            for k in range(30)]
    text = "".join(f">{n} {d}\n{t}\n" if d else f">{n}\n{t}\n" for n, d, t in recs)
    if from_lists:
        whole = SequenceBatch.from_sequences([Sequence.from_text(n, t, "dna", description=d) for n, d, t in recs])
    else:
        names, descriptions, letters, codes = scan_fasta(np.frombuffer(text.encode(), np.uint8), DNA.table)
        whole = SequenceBatch.from_columns(names, descriptions, letters, codes, DNA)
    edges = sorted(set([0, 30] + cuts))
    joined = SequenceBatch.concat([whole.slice(a, b) for a, b in zip(edges[:-1], edges[1:])], later)
    assert joined.codes.tobytes() == whole.codes.tobytes() and joined.offsets.tolist() == whole.offsets.tolist()
    assert joined.name_texts().strings() == [n for n, _, _ in recs]
    assert joined.names == whole.names and joined.descriptions == whole.descriptions and joined.texts == whole.texts
    assert list(joined.records()) == list(whole.records())
    assert isinstance(joined.letter_texts(), Texts) and joined.letter_texts().offsets.tolist() == whole.offsets.tolist()
    assert [(s.name, s.text, s.codes.tolist()) for s in joined] == [(s.name, s.text, s.codes.tolist()) for s in whole]
