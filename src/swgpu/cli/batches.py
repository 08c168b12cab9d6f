"""Writing alignments that come as columns (:class:`~swgpu.align.batch.AlignmentBatch`)."""

from __future__ import annotations

from contextlib import closing

from .options import program_line

__all__ = ["write_batches"]


def write_batches(args, scoring, batches, queries, targets, target_index, target_lengths) -> int:
    """Write :class:`~swgpu.align.batch.AlignmentBatch` es (of alignments of
    ``queries[batch.query_index[k]]`` against ``targets[batch.target_index[k]]``,
    two :class:`~swgpu.io.sequence_batch.SequenceBatch`) to ``args.output`` in
    ``args.format`` as they come: SAM and blast6 in compiled code, as the
    columns lie; the other formats (or columns) one record at a time from the
    batch's :class:`~swgpu.align.alignment.Alignment` objects. The SAM header
    lists the targets ``target_index`` (lengths ``target_lengths``) in order
    of first appearance. Returns how many alignments were written."""
    from ..io.compiled import worth
    from ..io.writers import AlignmentWriter
    from ..io.writers.columns import References

    tnames = targets.name_texts()
    refs = References(tnames, target_index, target_lengths)
    with AlignmentWriter(args.output, args.format, scoring=scoring, program_line=program_line(args),
                         targets=refs if args.format == "sam" else None, header=args.format == "pairwise",
                         columns=getattr(args, "columns", None)) as writer:
        qnames = queries.name_texts()
        qletters = queries.letter_texts() if args.format == "sam" else None  # (SEQ: SAM alone writes letters)
        with closing(batches):  # (closed early on an error: no batch is traced for nothing)
            for batch in batches:
                if not (worth(len(batch)) and writer.write_columns(batch, qnames, tnames, qletters)):
                    texts = queries.texts
                    for aln, i in zip(batch.alignments(queries, targets, scoring), batch.query_index.tolist()):
                        writer.write(aln, query_text=texts[i])
    return writer.count
