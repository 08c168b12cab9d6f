"""Lists of sequences packed into bytes and back (swgpu.io.packed)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swgpu.io.alphabet import DNA, PROTEIN
from swgpu.io.packed import pack, unpack
from swgpu.io.sequence import Sequence

_names = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\n \t\r\x0b\x0c\x1c\x1d\x1e\x1f\x85"
                                                                                  "\u2028\u2029"), min_size=1, max_size=8)


@st.composite
def lists(draw):
    out = []
    for alphabet, letters in draw(st.lists(st.sampled_from([(DNA, "ACGTNacgtn"), (PROTEIN, "ARNDCQEGHILKMFPSTWYVX*")]),
                                           max_size=3)):
        seqs = []
        for _ in range(draw(st.integers(0, 6))):
            text = draw(st.text(st.sampled_from(letters), max_size=40))
            seqs.append(Sequence.from_text(draw(_names), text, alphabet, draw(st.sampled_from(["", "a b", "é x"]))))
        out.append(seqs)
    return out


def _fields(s):
    return s.name, s.description, s.text, s.codes.tolist(), s.alphabet


@settings(max_examples=60, deadline=None)
@given(lists())
def test_round_trip(groups):
    back = unpack(pack(groups))
    assert [[_fields(s) for s in g] for g in back] == [[_fields(s) for s in g] for g in groups]
    assert all(not s.codes.flags.writeable for g in back for s in g)


def test_what_cannot_be_packed():
    a = Sequence.from_text("a", "ACGT", DNA)
    with pytest.raises(ValueError, match="newline"):
        pack([[Sequence("a\nb", "AC", a.codes[:2], DNA)]])
    with pytest.raises(ValueError, match="mixes"):
        pack([[a, Sequence.from_text("p", "MKV", PROTEIN)]])
    with pytest.raises(ValueError, match="length"):
        pack([[Sequence("a", "ACG", a.codes[:2], DNA)]])


def test_codes_in_pieces():
    codes = np.arange(8, dtype=np.uint8) % 4
    s = Sequence("s", "ACGT", codes[::2], DNA)  # not one piece of memory
    [[back]] = unpack(pack([[s]]))
    assert back.codes.tolist() == [0, 2, 0, 2]
