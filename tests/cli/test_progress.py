"""What the commands print on standard error: a progress bar that moves with
the work (on a terminal) and one summary line at the end, nothing with --quiet."""

from __future__ import annotations

import io
import re
from importlib import resources
from pathlib import Path

import pytest

from swgpu.cli import main, progress
from swgpu.cli.progress import Report
from swgpu.workloads.search import Searcher

EXAMPLES = Path(str(resources.files("swgpu").joinpath("data", "examples")))
QUERIES = EXAMPLES / "queries.fasta"
TARGETS = EXAMPLES / "targets.fasta"
NUMBER = r"[0-9][0-9.e+-]*"


class Terminal(io.StringIO):
    """A text stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


@pytest.fixture
def pairs(tmp_path):
    (tmp_path / "pairs.tsv").write_text("a\tACGTACGTACGTACGT\tb\tACGTACGTACGTACGT\nc\tAAAAAAAA\td\tCCCCCCCC\n")
    return tmp_path


@pytest.mark.parametrize("argv, summary", [
    (["search", "-q", QUERIES, "-d", TARGETS, "--device", "cpu"],
     rf"swgpu search: 2 queries against 40 sequences, 20 hits written, {NUMBER} s, {NUMBER} GCUPS"),
    (["search", "-q", QUERIES, "-d", TARGETS, "--device", "cpu", "--top", "1", "-o", "hits.tsv"],
     rf"swgpu search: 2 queries against 40 sequences, 2 hits written, {NUMBER} s, {NUMBER} GCUPS"),
    (["align", QUERIES, TARGETS, "--min-score", "700", "-f", "blast6"],
     rf"swgpu align: 2 queries x 40 targets = 80 pairs, 1 alignment written, {NUMBER} s, {NUMBER} GCUPS"),
    (["screen", "--pairs", "pairs.tsv", "--device", "cpu", "--threshold", "10"],
     rf"swgpu screen: 2 pairs, 1 scoring >= 10, 1 alignment written, {NUMBER} s, {NUMBER} GCUPS"),
    (["screen", "--pairs", "pairs.tsv", "--device", "cpu"],
     rf"swgpu screen: 2 pairs scored, score table written, {NUMBER} s, {NUMBER} GCUPS"),
])
def test_one_summary_line_when_stderr_is_not_a_terminal(run_cli, pairs, argv, summary):
    code, out, err = run_cli(argv, pairs)
    assert code == 0, err
    assert re.fullmatch(summary + "\n", err), err
    code, quiet_out, quiet_err = run_cli(argv + ["--quiet"], pairs)
    assert (code, quiet_err) == (0, "")
    assert quiet_out == out


def test_demo_forwards_quiet(run_cli):
    code, out, err = run_cli(["demo", "--device", "cpu", "--quiet"])
    assert code == 0 and "# Score: 719" in out
    assert err == ""  # not even the command it runs
    code, out, err = run_cli(["demo", "--device", "cpu"])
    assert code == 0 and err.startswith("# swgpu search ") and err.count("\n") == 2


@pytest.mark.parametrize("records, line", [(1, "1 protein sequence, 7 residues"),
                                           (2, "2 protein sequences, 14 residues")])
def test_makedb_counts_in_the_singular_and_plural(run_cli, tmp_path, records, line):
    (tmp_path / "p.fa").write_text("".join(f">p{i}\nMKVLWAA\n" for i in range(records)))
    code, out, err = run_cli(["makedb", "p.fa", "p.swdb"], tmp_path)
    assert (code, out, err) == (0, "", f"p.swdb: {line}\n")


def test_search_bar_moves_after_each_query(monkeypatch):
    """On the CPU every batch of a query a thread is scored, then its share of
    the bar advances: the bar does not wait for all queries to be scored (it
    sat at 0%)."""
    events = []
    scores_many = Searcher.scores_many
    monkeypatch.setattr(Searcher, "scores_many",
                        lambda self, qs: events.append(("score", len(qs))) or scores_many(self, qs))
    monkeypatch.setattr(Report, "advance", lambda self, cells: events.append(("advance", cells)))
    (q1, q2), db_residues = [144, 85], sum(len(line) for line in TARGETS.read_text().splitlines()
                                           if not line.startswith(">"))
    assert main(["search", "-q", str(QUERIES), "-d", str(TARGETS), "--device", "cpu", "--quiet",
                 "--threads", "1"]) == 0
    assert events == [("score", 1), ("advance", q1 * db_residues), ("score", 1), ("advance", q2 * db_residues)]
    events.clear()  # two threads: the two queries one batch (their hits traced together)
    assert main(["search", "-q", str(QUERIES), "-d", str(TARGETS), "--device", "cpu", "--quiet",
                 "--threads", "2"]) == 0
    assert events == [("score", 2), ("advance", q1 * db_residues), ("advance", q2 * db_residues)]


def test_bar_on_a_terminal_shows_percent_and_eta_then_goes():
    stream = Terminal()
    report = Report("swgpu search", stream=stream)
    with report.progress(10 * progress.BAR_CELLS, "searching 40 sequences"):
        report.advance(5 * progress.BAR_CELLS)
    shown = stream.getvalue()
    assert "searching 40 sequences" in shown and " 50%" in shown and "ETA" in shown
    assert shown.endswith("\x1b[2K")      # the bar is erased when done
    line = report.summary("2 queries against 40 sequences, 20 hits written")
    assert stream.getvalue() == shown + line + "\n"


def test_no_bar_for_small_jobs_or_quiet():
    for quiet, cells in ((False, progress.BAR_CELLS), (True, 10 * progress.BAR_CELLS)):
        stream = Terminal()
        report = Report("swgpu align", quiet=quiet, stream=stream)
        with report.progress(cells, "aligning"):
            report.advance(cells)
        line = report.summary("1 pair")
        assert stream.getvalue() == ("" if quiet else line + "\n")
        assert line.startswith("swgpu align: 1 pair, ")


def test_bar_without_progress_shows_elapsed_time():
    stream = Terminal()
    report = Report("swgpu screen", stream=stream)
    with report.progress(10 * progress.BAR_CELLS, "screening 2 pairs", moving=False):
        pass
    shown = stream.getvalue()
    assert "screening 2 pairs" in shown and "%" not in shown and "0:00:0" in shown
