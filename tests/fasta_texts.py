"""A hypothesis strategy of FASTA texts with the features the readers must tell apart."""

from __future__ import annotations

from hypothesis import strategies as st

HEADER_PARTS = ["r", "x1", "sp|P1|A_B", " ", "\t", "desc", "é", "#", "\r", "  tail  "]
LINE_PARTS = ["ACGT", "acgtn", "N", "MKVL", " ", "\t", "\r", "#c", "J", "*", ""]


@st.composite
def fasta_texts(draw, header_parts=tuple(HEADER_PARTS), line_parts=tuple(LINE_PARTS), latin1: bool = False) -> bytes:
    """Up to 8 records of headers and letter lines drawn from the parts, LF or CRLF line ends,
    a last line end or none; UTF-8 (or, with ``latin1``, sometimes Latin-1) bytes."""
    lines = []
    for _ in range(draw(st.integers(1, 8))):
        lines.append(">" + "".join(draw(st.lists(st.sampled_from(header_parts), max_size=4))))
        for _ in range(draw(st.integers(0, 3))):
            lines.append("".join(draw(st.lists(st.sampled_from(line_parts), max_size=5))))
    end = draw(st.sampled_from(["\n", "\r\n"]))
    text = end.join(lines) + draw(st.sampled_from([end, ""]))
    return text.encode("latin-1" if latin1 and draw(st.booleans()) else "utf-8")
