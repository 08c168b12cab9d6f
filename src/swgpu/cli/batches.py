"""Writing alignments that come as columns (:class:`~swgpu.align.batch.AlignmentBatch`), part by part."""

from __future__ import annotations

import os
from contextlib import ExitStack, closing

from .options import program_line, report_options

__all__ = ["write_parts", "write_batch", "write_hits", "write_found"]


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
    behind it at the end. ``parts`` may also be a function that makes them
    from a function rendering a part's records (:func:`~swgpu.workloads.screen.output.render_part`, bound to
    this writer; for the threads that make the parts). Returns how many
    alignments were written."""
    from ..io.writers import AlignmentWriter, OutputFile
    from ..io.writers.bam import BamOutput
    from ..io.writers.sam_targets import HeaderTargets
    from ..io.writers.spill import Spill
    from ..workloads.screen.output import render_part

    sam = args.format in ("sam", "bam")  # (bam: the SAM text, converted at the end)
    folder = spill_folder(args.output)
    spill = Spill(folder) if sam else None
    listed = HeaderTargets(folder) if sam else None
    with ExitStack() as held:
        made = callable(parts)  # (made below, once the writer they render for is)
        for thing in ([] if made else [parts]) + ([spill, listed] if sam else []):
            held.enter_context(closing(thing))
        with AlignmentWriter(spill if sam else args.output, "sam" if sam else args.format, scoring=scoring,
                             program_line=program_line(args), header=args.format == "pairwise", body_only=sam,
                             columns=getattr(args, "columns", None), **report_options(args, ())) as writer:
            if made:
                parts = held.enter_context(closing(parts(lambda part: render_part(writer, part, sam))))
            for part in parts:
                offset = writer.add_queries(part.queries)  # (blast7: every pair's query has its comment lines)
                if part.batch is not None and len(part.batch):
                    records, targets = getattr(part, "rendered", None) or (None, None)
                    if sam:
                        selected = part.result.selected
                        listed.add(part.targets.name_texts(), selected, part.targets.lengths[selected], targets)
                    write_batch(writer, part.batch, part.queries, part.targets, scoring, query_offset=offset,
                                rendered=records)
                writer.finish_queries(offset + len(part.queries))
        if sam:
            with (BamOutput if args.format == "bam" else OutputFile)(args.output) as out:
                descriptor = getattr(out, "descriptor", lambda: None)  # (BAM: none; the system copies to a file)
                listed.write(out.write_bytes, program_line(args), descriptor)
                spill.replay(out.write_bytes, descriptor())
    return writer.count


def write_batch(writer, batch, queries, targets, scoring, query_offset=None, rendered=None) -> None:
    """Write ``batch`` (indexing ``queries`` and ``targets``, two
    :class:`~swgpu.io.sequence_batch.SequenceBatch`) with ``writer``: as
    columns (compiled code, or array operations for a small batch of a format
    that has them) where the format and batch allow, else one record at a
    time from its :class:`~swgpu.align.alignment.Alignment` objects.
    ``query_offset`` (blast7): ``queries[0]`` is query ``query_offset`` of the writer's;
    ``rendered``: the batch's bytes from :func:`~swgpu.workloads.screen.output.render_part`."""
    columns = writer.batch_columns(batch, queries, targets)
    if columns is not None and writer.write_columns(batch, *columns, query_offset, rendered=rendered):
        return
    texts = queries.texts
    for aln, i in zip(batch.alignments(queries, targets, scoring), batch.query_index.tolist()):
        writer.write(aln, query_text=texts[i], query=None if query_offset is None else query_offset + i)


def spill_folder(output) -> str | None:
    """Where held-back records go past the memory limit: beside an output file (a new one, or a
    regular file), else the temporary folder (standard output, a pipe, a device such as ``/dev/null``)."""
    if output is None or output == "-":
        return None
    path = os.path.abspath(os.fspath(output))
    if os.path.exists(path) and not os.path.isfile(path):
        return None
    folder = os.path.dirname(path)
    return folder if os.path.isdir(folder) and os.access(folder, os.W_OK) else None


def write_hits(args, scoring, batch, queries, targets) -> int:
    """Write ``batch`` (hits of ``queries`` against ``targets``, two lists of
    :class:`~swgpu.io.sequence.Sequence`, query by query; ``scan``'s) to
    ``args.output`` in ``args.format``: as columns where the format allows.
    The SAM header lists every target; a query's records after its first
    are flagged secondary (by name, as the record-by-record writer does).
    Returns how many alignments were written."""
    import numpy as np

    from ..io.sequence_batch import SequenceBatch
    from ..io.writers import AlignmentWriter

    if len(batch):
        names = np.unique(np.array([q.name for q in queries], dtype=object).astype(str), return_inverse=True)[1]
        first = np.unique(names.reshape(-1)[batch.query_index], return_index=True)[1]
        batch.primary = np.zeros(len(batch), dtype=bool)
        batch.primary[first] = True
    with AlignmentWriter(args.output, args.format, scoring=scoring, program_line=program_line(args),
                         targets=[(t.name, len(t)) for t in targets], header=args.format == "pairwise",
                         columns=getattr(args, "columns", None), secondary=True,
                         **report_options(args, queries)) as writer:
        if len(batch):
            write_batch(writer, batch, SequenceBatch.from_sequences(list(queries)),
                        SequenceBatch.from_sequences(list(targets)), scoring, query_offset=0)
        writer.finish_queries(len(queries))
    return writer.count


def write_found(args, scoring, found, queries, descriptions=None) -> int:
    """Write a search's hits (:class:`~swgpu.workloads.search.HitBatch` es of
    ``queries``, in order) to ``args.output`` in ``args.format``: as columns
    where the format allows, each hit as the record writer writes it. The SAM
    header lists the targets hit, in order of first appearance;
    ``descriptions``: target name -> description (``stitle``). Returns how
    many alignments were written."""
    import numpy as np

    from ..io.compiled import COMPILED_RECORDS, load_numba
    from ..io.writers import AlignmentWriter

    targets = []
    if args.format in ("sam", "bam"):
        for part in found:
            firsts = np.sort(np.unique(part.hits.target_index, return_index=True)[1])
            order = part.hits.target_index[firsts]
            names = part.targets.name_texts().take(order).strings()
            targets += zip(names, part.targets.lengths[order].tolist())
    with AlignmentWriter(args.output, args.format, scoring=scoring, program_line=program_line(args),
                         targets=targets, header=args.format == "pairwise", columns=getattr(args, "columns", None),
                         descriptions=descriptions, **report_options(args, queries)) as writer:
        if not writer.array_columns and sum(len(part.hits) for part in found) >= COMPILED_RECORDS:
            load_numba()  # (a GPU's search: its parts, each below the mark, pay for the compiled writers together)
        for part in found:
            if len(part.hits):
                write_batch(writer, part.hits, part.queries, part.targets, scoring, query_offset=part.first)
            writer.finish_queries(part.first + len(part.queries))
    return writer.count
