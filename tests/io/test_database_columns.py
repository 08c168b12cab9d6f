"""Tests of a database built and opened as columns: read in parts, the
duplicate IDs found by hashes, names kept as UTF-8 columns, and the threaded
copy of many strings (:meth:`~swgpu.io.texts.Texts.take`)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swgpu.io import chunks
from swgpu.io.database import Database
from swgpu.io.ranges import PARALLEL_LEAST
from swgpu.io.sequence import Sequence
from swgpu.io.sequence_batch import SequenceBatch
from swgpu.io.texts import Texts, gather_segments, hash_groups

LETTERS = "ACDEFGHIKLMNPQRSTVWY"


def _records(rng, count: int, names=None) -> list[Sequence]:
    out = []
    for k in range(count):
        text = "".join(rng.choice(list(LETTERS), int(rng.integers(1, 40))))
        name = names[k] if names is not None else f"s{k}"
        out.append(Sequence.from_text(name, text, "protein", description=f"d{k} é" if k % 3 else ""))
    return out


def _same(a: Database, b: Database) -> None:
    assert a.names == b.names and a.descriptions == b.descriptions and len(a) == len(b)
    assert np.array_equal(a.offsets, b.offsets) and np.array_equal(a.residues, b.residues)
    assert np.array_equal(a.index, b.index)


def test_batches_in_parts_give_the_database_of_one_part(tmp_path):
    seqs = _records(np.random.default_rng(3), 500)
    whole = Database.from_sequences(seqs)
    parts = [SequenceBatch.from_sequences(seqs[a:a + 77]) for a in range(0, 500, 77)]
    cut = Database.from_batches(parts)
    _same(whole, cut)
    whole.save(tmp_path / "a.swdb")
    cut.save(tmp_path / "b.swdb")
    assert (tmp_path / "a.swdb").read_bytes() == (tmp_path / "b.swdb").read_bytes()
    _same(Database.open(tmp_path / "a.swdb"), whole)


def test_fasta_read_in_small_blocks_gives_the_same_file(tmp_path, monkeypatch):
    seqs = _records(np.random.default_rng(4), 300)
    (tmp_path / "db.fa").write_text("".join(f">{s.name} {s.description}\n{s.text}\n" for s in seqs))
    Database.from_fasta(tmp_path / "db.fa").save(tmp_path / "one.swdb")
    monkeypatch.setattr(chunks, "BLOCK", 512)
    Database.from_fasta(tmp_path / "db.fa").save(tmp_path / "many.swdb")
    assert (tmp_path / "one.swdb").read_bytes() == (tmp_path / "many.swdb").read_bytes()
    db = Database.open(tmp_path / "many.swdb")
    assert sorted(db.names) == sorted(s.name for s in seqs)
    assert {s.name: s.description for s in seqs} == dict(zip(db.names, db.descriptions))


def _expected_warning(names: list[str]) -> str | None:
    seen: set[str] = set()
    again = [n for n in names if n in seen or seen.add(n)]
    return f"{len(again):,} duplicate IDs, first {again[0]!r}" if again else None


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "cc", "é", "x y", "a1", "1a"]) | st.text(min_size=1, max_size=4),
                min_size=1, max_size=30))
def test_duplicate_warning_as_a_set_would_say(names):
    seqs = [Sequence.from_text(n.replace("\n", "_").replace("\0", "_") or "_", "MKV") for n in names]
    expected = _expected_warning([s.name for s in seqs])
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        Database.from_sequences(seqs)
    said = [str(w.message) for w in record if issubclass(w.category, UserWarning)]
    assert said == ([] if expected is None else [f"{expected} (kept as they are)"])


def test_duplicates_among_many_found_by_hashes():
    count = 120_000  # (past the mark of compiled passes)
    names = [f"n{k}" for k in range(count)]
    names[90_000] = "n17"
    names[100_500] = "n17"
    names[110_000] = "n5"
    groups = hash_groups(Texts.from_strings(names))
    assert {17, 90_000, 100_500, 5, 110_000} <= set(groups.tolist()) and np.all(np.diff(groups) > 0)
    lengths = np.full(count, 3, dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    batch = SequenceBatch.from_columns(Texts.from_strings(names), Texts.from_strings([""] * count),
                                       Texts(np.full(3 * count, 65, np.uint8), offsets),
                                       np.zeros(3 * count, np.uint8), "protein")
    with pytest.warns(UserWarning, match=r"3 duplicate IDs, first 'n17'"):
        Database.from_batches([batch])


def test_no_duplicates_among_many_is_silent():
    count = 120_000
    assert hash_groups(Texts.from_strings([f"id{k}" for k in range(count)])).size == 0


def test_names_as_lists_or_columns_alike(tmp_path):
    seqs = _records(np.random.default_rng(5), 50, names=[f"név{k}" for k in range(50)])
    db = Database.from_sequences(seqs)
    listed = Database(db.alphabet, db.names, db.offsets, db.residues, db.index, "", db.descriptions)
    for i in (0, 7, 49):
        a, b = db.sequence(i), listed.sequence(i)
        assert (a.name, a.description, a.text) == (b.name, b.description, b.text)
    assert listed.name_texts.strings() == db.names
    listed.save(tmp_path / "l.swdb")
    db.save(tmp_path / "c.swdb")
    assert (tmp_path / "l.swdb").read_bytes() == (tmp_path / "c.swdb").read_bytes()
    opened = Database.open(tmp_path / "c.swdb")
    assert opened.sequence(3).name == db.names[3] and "név3" in opened.names
    assert opened.names == db.names and opened.descriptions == db.descriptions


def test_names_not_utf8_are_damaged(tmp_path):
    db = Database.from_sequences([Sequence.from_text("x", "MKV")])
    bad = Database(db.alphabet, Texts(np.frombuffer(b"\xff\xfe", np.uint8), np.array([0, 2])), db.offsets,
                   db.residues, db.index)
    bad.save(tmp_path / "bad.swdb")
    with pytest.raises(Exception, match="names are not UTF-8"):
        Database.open(tmp_path / "bad.swdb")


@pytest.mark.parametrize("count", [5, 3 * PARALLEL_LEAST + 11])
def test_take_on_threads_copies_what_array_operations_copy(count):
    rng = np.random.default_rng(count)
    lengths = rng.integers(0, 9, count)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    texts = Texts(rng.integers(0, 256, int(offsets[-1])).astype(np.uint8), offsets)
    order = rng.permutation(count)
    got = texts.take(order)
    buf, off = gather_segments(texts.buffer, offsets[order], offsets[order + 1])
    assert np.array_equal(got.buffer, buf) and np.array_equal(got.offsets, off)


def test_an_opened_file_gives_the_columns_of_a_few_without_all_strings(tmp_path):
    seqs = _records(np.random.default_rng(6), 40, names=[f"id{k}ü" for k in range(40)])
    made = Database.from_sequences(seqs)
    made.save(tmp_path / "d.swdb")
    db = Database.open(tmp_path / "d.swdb")
    members = np.array([39, 0, 5, 5, 17])
    names, descriptions = db.columns(members)
    assert db._lists == {"names": None, "descriptions": None}  # (no list of every name made)
    assert names.strings() == [made.names[i] for i in members.tolist()]
    assert descriptions.strings() == [made.descriptions[i] for i in members.tolist()]
    assert db.columns(np.zeros(0, np.int64))[0].strings() == []
    assert db.names == made.names and db.name_texts.strings() == made.names


def test_checks_by_parts_on_threads_equal_those_of_the_whole(tmp_path, monkeypatch):
    from swgpu.io import database_file

    rng = np.random.default_rng(8)
    data = rng.integers(0, 25, 100_003).astype(np.uint8)
    whole = database_file.crc32(data)
    monkeypatch.setattr(database_file, "_PART", 4096)
    if database_file._combine is not None:
        assert len(database_file._parts(data)) > 1
    assert database_file.crc32(data) == whole == database_file.crc32(data.tobytes())
    from swgpu.io.ranges import largest

    assert largest(data, 4096) == int(data.max()) and largest(data[:0]) == -1
    seqs = _records(rng, 300)
    Database.from_sequences(seqs).save(tmp_path / "p.swdb")
    _same(Database.open(tmp_path / "p.swdb"), Database.from_sequences(seqs))
    raw = bytearray((tmp_path / "p.swdb").read_bytes())
    raw[-30] ^= 0xFF  # (in the descriptions)
    (tmp_path / "p.swdb").write_bytes(bytes(raw))
    with pytest.raises(Exception, match="checksum mismatch"):
        Database.open(tmp_path / "p.swdb")


@pytest.mark.parametrize("compiled", [True, False])
def test_scatter_from_parts_as_a_gather_from_their_join(monkeypatch, compiled):
    from swgpu.io import texts as texts_module
    from swgpu.io.texts import scatter_parts

    monkeypatch.setattr(texts_module, "worth", lambda n: compiled)
    rng = np.random.default_rng(11)
    lengths = rng.integers(0, 6, 400)
    lengths[::7] = 0  # (empty segments, some at the parts' edges)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    pool = rng.integers(0, 256, int(offsets[-1])).astype(np.uint8)
    cuts = np.unique(np.concatenate([[0], rng.choice(offsets, 9), [offsets[-1]]]))
    parts = [pool[a:b] for a, b in zip(cuts[:-1], cuts[1:])] + [pool[:0]]
    order = rng.permutation(400)
    sorted_offsets = np.concatenate([[0], np.cumsum(lengths[order])]).astype(np.int64)
    at = np.empty(400, np.int64)
    at[order] = sorted_offsets[:-1]
    out = np.zeros(int(offsets[-1]), np.uint8)
    scatter_parts(parts, offsets, at, out)
    expected, _ = gather_segments(pool, offsets[order], offsets[order + 1])
    assert np.array_equal(out, expected)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(0, 70_000) | st.integers(0, 5), max_size=60), st.booleans())
def test_length_order_is_the_stable_order_of_the_lengths(lengths, descending):
    from swgpu.io.database import length_order

    offsets = np.concatenate([[0], np.cumsum(np.array(lengths, dtype=np.int64))]).astype(np.int64)
    key = -np.array(lengths, dtype=np.int64) if descending else np.array(lengths, dtype=np.int64)
    assert length_order(offsets, descending).tolist() == np.argsort(key, kind="stable").tolist()


def test_one_sequence_of_each_form_of_names(tmp_path):
    # a file's lines, columns and lists give one sequence's name and description alike
    seqs = _records(np.random.default_rng(8), 30, names=[f"ñ{k}" for k in range(30)])
    made = Database.from_sequences(seqs)
    made.save(tmp_path / "o.swdb")
    opened = Database.open(tmp_path / "o.swdb")
    listed = Database(made.alphabet, made.names, made.offsets, made.residues, made.index, "", made.descriptions)
    columns = Database(made.alphabet, made.name_texts, made.offsets, made.residues, made.index, "",
                       made.description_texts)
    for i in (0, 1, 14, 29):
        want = (made.names[i], made.descriptions[i])
        for db in (opened, listed, columns):
            s = db.sequence(i)
            assert (s.name, s.description) == want and s.text == made.sequence(i).text
    assert opened._lists == {"names": None, "descriptions": None}  # (no list of every name made)
