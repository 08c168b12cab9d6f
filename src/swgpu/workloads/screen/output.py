"""The bytes a screen writes of a part, made on any thread or process: :func:`score_table`, :func:`render_part`."""

from __future__ import annotations

__all__ = ["score_table", "render_part"]


def score_table(part):
    """The lines ``query<TAB>target<TAB>score`` of a part's pairs, as a ``uint8`` array (in compiled code when
    that pays, else by array operations: :class:`~swgpu.io.writers.rows.Rows`)."""
    from ...io.sequence_batch import SequenceBatch
    from ...io.texts import Texts
    from ...io.writers.rows import Rows

    queries, targets, scores = part.queries, part.targets, part.result.scores

    def names(seqs):
        return seqs.name_texts() if isinstance(seqs, SequenceBatch) else Texts.from_strings([s.name for s in seqs])

    rows = Rows(len(scores))
    rows.text(names(queries))
    rows.const("\t")
    rows.text(names(targets))
    rows.const("\t")
    rows.int(scores)
    rows.const("\n")
    return rows.render_array()


def render_part(writer, part, sam: bool = False, force: bool = False):
    """What an :class:`~swgpu.io.writers.AlignmentWriter` writes of a streamed part
    (:class:`~.screener.ScreenPart`), made from the part and the writer's settings
    alone: the bytes of its alignments (``None``: the writer makes them as it writes,
    record by record, unless ``force``) and, for ``sam``, its targets' header lines
    (:meth:`~swgpu.io.writers.sam_targets.HeaderTargets.prepare`; ``None`` likewise)."""
    from ...io.writers.sam_targets import HeaderTargets

    if part.batch is None or not len(part.batch):
        return None
    columns = writer.batch_columns(part.batch, part.queries, part.targets, force)
    records = None if columns is None else writer.render_columns(part.batch, *columns)
    selected = part.result.selected
    targets = HeaderTargets.prepare(part.targets.name_texts(), selected, part.targets.lengths[selected],
                                    force) if sam else None
    return records, targets
