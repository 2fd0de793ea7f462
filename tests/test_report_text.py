"""Reports a model can copy from (issue 27 item 5): command output as block text in
report.md whatever it holds, one limit (teddy.execute.outputCap, in bytes) stated where it
cut, and an EDIT's result shown with the file's line numbers."""

from pathlib import Path

import yaml
from hypothesis import given
from hypothesis import strategies as st

from git_teddy.artifacts.output import clip_output, readable
from git_teddy.artifacts.report import ActionLog, ExecutionReport, RunSummary, render_report
from testing.commands import Teddy, git
from testing.fake_secrets import fake
from testing.plans import create, edit, execute
from testing.sessions import report_of, start

TRICKY = "E         \n\tindented by a tab\n  two spaces first\nlast words  "


def report_with(stdout: str) -> str:
    summary = RunSummary(status="SUCCESS", start_time="t0", end_time="t1", base_snapshot="b")
    log = ActionLog(index=1, action_type="EXECUTE", status="SUCCESS", details={"stdout": stdout})
    return render_report(ExecutionReport(run_summary=summary, action_logs=[log]))


def test_output_with_trailing_spaces_and_tabs_stays_block_text() -> None:
    """One line with trailing whitespace used to turn the whole output into an escaped,
    line-folded string; a literal block holds it exactly."""
    text = report_with(TRICKY)
    assert "    stdout: |" in text
    assert "\n      E         \n" in text and "\n      \tindented by a tab\n" in text
    assert '"' not in text and "\\t" not in text
    loaded = yaml.safe_load(text)
    assert loaded["action_logs"][0]["details"]["stdout"] == TRICKY


def test_every_kind_of_output_reads_back_exactly_as_it_was_made_readable() -> None:
    samples = ["a\n", "\n\nb\n\n\n", "  lead\n", "x \n \n  \n", "tab\t\n\t", "é ✓ \n", "-\n"]
    for sample in samples:
        shown, notes = readable(sample)
        assert (shown, notes) == (sample, [])
        assert yaml.safe_load(report_with(shown))["action_logs"][0]["details"]["stdout"] == shown


@given(st.lists(st.sampled_from([" ", "\t", "\n", "a", ":", "#", "-", "|", "é", "  \n"])))
def test_any_printable_output_is_block_text_that_reads_back_exactly(parts: list[str]) -> None:
    text = "".join(parts)
    report = report_with(text)
    assert yaml.safe_load(report)["action_logs"][0]["details"]["stdout"] == text
    assert "\n" not in text or "    stdout: |" in report


def test_colours_carriage_returns_and_controls_are_made_readable() -> None:
    shown, notes = readable("\x1b[31mFAIL\x1b[39m x\r\nprogress 1\rprogress 2\x00\n")
    assert shown == "FAIL x\nprogress 1␍progress 2␀\n"
    assert notes == [
        "colour and cursor codes removed",
        "CRLF line ends shown as LF",
        "control characters shown as their pictures (␍ is a CR, ␀ a NUL, ...)",
    ]
    assert "stdout: |" in report_with(shown)


def test_one_limit_in_bytes_keeps_a_long_output_whole_under_it() -> None:
    """The cut was at 200 lines whatever the cap said."""
    text = "".join(f"line {n}\n" for n in range(1, 1001))  # 9,893 bytes
    assert clip_output(text, 20_000) == text
    clipped = clip_output(text, 4_000)
    assert clipped.startswith("line 1\n") and clipped.endswith("line 1000\n")
    assert " lines cut ...]" in clipped and len(clipped.encode()) <= 4_000 + 100


def test_a_cut_output_says_how_much_there_was_and_which_setting_cut_it(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    git(repo, env, "config", "teddy.execute.outputCap", "3000")
    script = "for n in range(1, 2001): print(f'row {n}  ')"  # trailing spaces on each
    session = start(repo, teddy, execute(f'python -c "{script}"'))
    teddy.ok(repo, "execute", "-y")
    raw = git(repo, env, "show", f"teddy/{session}/main:01/report.md")
    assert "    stdout: |" in raw and "\n      row 1  \n" in raw  # block text, exact
    (log,) = report_of(repo, env, session)["action_logs"]
    details = log["details"]
    assert list(details)[:3] == ["return_code", "stdout_notes", "stdout"]
    size = sum(len(f"row {n}  \n") for n in range(1, 2001))
    assert details["stdout_notes"] == [
        f"cut to teddy.execute.outputCap (3,000 bytes) from 2,000 lines and {size:,} bytes",
        "kept the head, the first error with the lines around it, and the tail",
    ]
    assert "\n    - cut to teddy.execute.outputCap (3,000 bytes) from 2,000 lines and " in raw
    assert details["stdout"].startswith("row 1  \n") and details["stdout"].endswith("row 2000  \n")
    assert "stderr_notes" not in details


def test_an_edit_shows_each_edited_region_with_the_files_line_numbers(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    body = "".join(f"line {n}\n" for n in range(1, 31))
    key = "AKIA" + fake(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", seed=7)
    plan = [
        create("notes.txt", body),
        edit("notes.txt", "line 5", "line five\nline 5b"),
        edit("notes.txt", "line 25", f"line 25 {key}"),
    ]
    session = start(repo, teddy, *plan)
    teddy.ok(repo, "execute", "-y")
    logs = report_of(repo, env, session)["action_logs"]
    assert logs[1]["details"]["regions"] == [
        "lines 5-6 of 31\n 3  line 3\n 4  line 4\n 5> line five\n 6> line 5b\n 7  line 6\n"
        " 8  line 7\n"
    ]
    (region,) = logs[2]["details"]["regions"]
    assert region.startswith("line 26 of 31\n24  line 23\n25  line 24\n26> line 25 [REDACTED:")
    raw = git(repo, env, "show", f"teddy/{session}/main:01/report.md")
    assert key not in raw
    assert "    regions:\n    - |\n      lines 5-6 of 31\n       3  line 3\n" in raw
