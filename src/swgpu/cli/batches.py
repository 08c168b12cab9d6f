"""Writing alignments that come as columns (:class:`~swgpu.align.batch.AlignmentBatch`), part by part."""

from __future__ import annotations

import os
from contextlib import closing

from .options import program_line

__all__ = ["write_parts"]


def write_parts(args, scoring, parts) -> int:
    """Write the alignments of a streamed screen's parts
    (:class:`~swgpu.workloads.screen.ScreenPart`: a batch of alignments of
    ``queries[batch.query_index[k]]`` against ``targets[batch.target_index[k]]``,
    two :class:`~swgpu.io.sequence_batch.SequenceBatch`) to ``args.output`` in
    ``args.format`` as they come: SAM and blast6 in compiled code, as the
    columns lie; the other formats (or columns) one record at a time from the
    batch's :class:`~swgpu.align.alignment.Alignment` objects. The SAM header
    lists the targets of the records in order of first appearance, so the
    SAM records are held back (:class:`~swgpu.io.writers.spill.Spill`: in
    memory, or past a limit in a temporary file beside the output) and put
    behind it at the end. Returns how many alignments were written."""
    from ..io.writers import AlignmentWriter, OutputFile
    from ..io.writers.sam_targets import HeaderTargets
    from ..io.writers.spill import Spill

    sam = args.format == "sam"
    folder = _folder(args.output)
    spill = Spill(folder) if sam else None
    listed = HeaderTargets(folder) if sam else None
    with closing(parts), closing(spill) if sam else _nothing(), closing(listed) if sam else _nothing():
        with AlignmentWriter(spill if sam else args.output, args.format, scoring=scoring,
                             program_line=program_line(args), header=args.format == "pairwise", body_only=sam,
                             columns=getattr(args, "columns", None)) as writer:
            for part in parts:
                if part.batch is None or not len(part.batch):
                    continue
                if sam:
                    selected = part.result.selected
                    listed.add(part.targets.name_texts(), selected, part.targets.lengths[selected])
                _write(writer, args.format, scoring, part)
        if sam:
            with OutputFile(args.output) as out:
                listed.write(out.write_bytes, program_line(args))
                spill.replay(out.write_bytes)
    return writer.count


class _nothing:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def _write(writer, fmt: str, scoring, part) -> None:
    from ..io.compiled import worth

    batch, queries, targets = part.batch, part.queries, part.targets
    qnames, tnames = queries.name_texts(), targets.name_texts()
    qletters = queries.letter_texts() if fmt == "sam" else None  # (SEQ: SAM alone writes letters)
    if not (worth(len(batch)) and writer.write_columns(batch, qnames, tnames, qletters)):
        texts = queries.texts
        for aln, i in zip(batch.alignments(queries, targets, scoring), batch.query_index.tolist()):
            writer.write(aln, query_text=texts[i])


def _folder(output) -> str | None:
    """Where held-back records go past the memory limit: beside an output file, else the temporary folder."""
    if output is None or output == "-":
        return None
    folder = os.path.dirname(os.path.abspath(os.fspath(output)))
    return folder if os.path.isdir(folder) and os.access(folder, os.W_OK) else None
