"""EXECUTE output: shown live in a terminal while the command runs (and kept for the
report), the head and tail of long output kept around a marked cut, and the first error
line in the failure summary of the terminal, the report, `show`, session.md and `learn`."""

from pathlib import Path

import pexpect

from git_teddy.artifacts.output import clip_output, error_lines, failure_excerpt
from git_teddy.errors import EXIT_TURN_FAILED
from testing.commands import Teddy, git
from testing.fake_secrets import fake
from testing.plans import execute
from testing.sessions import report_of, start
from testing.waits import EVENT_TIMEOUT

ERROR = "NameError: name 'timedelta' is not defined"
AWS = "AKIA" + fake(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", seed=2)
FILLER = 3000  # lines between the error and the summary: far past the report's cap


def spawn(repo: Path, env: dict, *args: str) -> pexpect.spawn:
    return pexpect.spawn(
        "git", ["teddy", *args], cwd=str(repo), env=env, encoding="utf-8", timeout=EVENT_TIMEOUT
    )


def waiting_command(go: Path) -> str:
    """Prints a line (Python, not flushed by hand), then waits for `go` (at most 15 s) and
    prints another."""
    script = (
        "import os, time\n"
        "print('before the wait')\n"
        "deadline = time.time() + 15\n"
        f"while not os.path.exists({str(go)!r}) and time.time() < deadline:\n"
        "    time.sleep(0.05)\n"
        "print('after the wait')\n"
    )
    return f"python - <<'PY'\n{script}PY"


def test_output_is_shown_while_the_command_runs(
    repo: Path, teddy: Teddy, env: dict, tmp_path: Path
) -> None:
    go = tmp_path / "go"
    session = start(repo, teddy, execute(waiting_command(go)))
    child = spawn(repo, env, "execute", "-y")
    child.expect("before the wait")
    assert child.isalive() and not go.exists()  # shown while the command still waits
    go.touch()
    child.expect("after the wait")
    child.expect(r"ok: exit code 0")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    (log,) = report_of(repo, env, session)["action_logs"]
    assert log["details"]["stdout"] == "before the wait\nafter the wait\n"  # still captured


def test_no_live_output_in_a_pipe_or_with_quiet(
    repo: Path, teddy: Teddy, env: dict, tmp_path: Path
) -> None:
    # the output differs from the command's text, which the action's line shows
    session = start(repo, teddy, execute("echo out $((40+2)); echo err $((40+3)) >&2"))
    shown = teddy.ok(repo, "execute", "-y")
    assert "out 42" not in shown.stdout and "err 43" not in shown.stderr
    assert "ok: exit code 0" in shown.stdout
    (log,) = report_of(repo, env, session)["action_logs"]
    assert (log["details"]["stdout"], log["details"]["stderr"]) == ("out 42\n", "err 43\n")

    plan_file = repo.parent / "quiet.md"
    plan_file.write_text((repo.parent / "plan.md").read_text())
    teddy.ok(repo, "plan", "-m", "again", "--from-file", str(plan_file))
    child = spawn(repo, env, "-q", "execute", "-y")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    # -q: no live output, and no line per action either; the turn's result still shows
    assert "out 42" not in child.before and "ok: exit code 0" not in child.before
    assert "turn 02: SUCCESS" in child.before


def failing_test_run(lines: int = FILLER) -> str:
    """Like a pytest run whose cause is at its top and whose summary is at its bottom."""
    script = (
        "import sys\n"
        "print('tests/test_dates.py F')\n"
        "print('=== FAILURES ===')\n"
        f"print({'E       ' + ERROR!r})\n"
        f"for n in range(1, {lines + 1}):\n"
        "    print(f'progress line {n}')\n"
        "print('=== 1 failed in 0.12s ===')\n"
        "sys.exit(1)\n"
    )
    return f"python - <<'PY'\n{script}PY"


def test_long_failing_output_keeps_its_cause_and_its_summary(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    session = start(repo, teddy, execute(failing_test_run()))
    result = teddy.exits(EXIT_TURN_FAILED, repo, "execute", "-y")
    assert f"FAILED: exit code 1: {ERROR}\n" in result.stdout  # the terminal's summary

    (log,) = report_of(repo, env, session)["action_logs"]
    assert log["summary"] == f"exit code 1: {ERROR}"
    stdout = log["details"]["stdout"]
    assert stdout.startswith(f"tests/test_dates.py F\n=== FAILURES ===\nE       {ERROR}\n")
    assert stdout.endswith(f"progress line {FILLER}\n=== 1 failed in 0.12s ===\n")
    kept = stdout.count("progress line ")
    assert f"\n[... {FILLER - kept} lines cut ...]\n" in stdout
    assert len(stdout.encode()) <= 20_000  # teddy.execute.outputCap

    session_md = git(repo, env, "show", f"teddy/{session}/main:session.md")
    callout = session_md[session_md.index("> [!error]") :].split("\n\n")[0]
    assert "> `EXECUTE python - <<'PY'" in callout and f"failed: exit code 1: {ERROR}\n" in callout
    assert callout.endswith(f"> progress line {FILLER}\n> === 1 failed in 0.12s ===")

    show = teddy.ok(repo, "show").stdout
    assert f"exit code 1: {ERROR}" in show  # tool call line and error callout
    assert "=== 1 failed in 0.12s ===" in show

    learned = teddy.ok(repo, "learn", "--export", "markdown").stdout
    assert f"failed: exit code 1: {ERROR}\n" in learned and "1 failed in 0.12s" in learned


def test_the_cap_bounds_bytes_and_keeps_a_first_error_in_the_middle(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    git(repo, env, "config", "teddy.execute.outputCap", "3000")
    script = (
        "import sys\n"
        "for n in range(1, 401): print(f'setup {n}')\n"
        "print('Traceback (most recent call last):')\n"
        f"print({ERROR!r})\n"
        "for n in range(1, 401): print(f'teardown {n}')\n"
        "sys.exit('tail words')\n"
    )
    session = start(repo, teddy, execute(f"python - <<'PY'\n{script}PY"))
    result = teddy.exits(EXIT_TURN_FAILED, repo, "execute", "-y")
    assert f"FAILED: exit code 1: {ERROR}\n" in result.stdout  # not stderr's last words
    (log,) = report_of(repo, env, session)["action_logs"]
    stdout = log["details"]["stdout"]
    assert len(stdout.encode()) <= 3000 + 200  # the cap, and the cut marks
    assert stdout.startswith("setup 1\n") and stdout.endswith("teardown 400\n")
    assert f"\nTraceback (most recent call last):\n{ERROR}\nteardown 1\n" in stdout
    assert stdout.count(" lines cut ...]") == 2 and "\nsetup 398\n" not in stdout
    assert log["details"]["stderr"] == "tail words\n"  # short: kept whole


def test_clipping_and_error_lines() -> None:
    text = "".join(f"line {n}\n" for n in range(1, 1001))
    middle = text.replace("line 500\n", f"E   {ERROR}\n")
    clipped = clip_output(middle, 2000)
    assert f"E   {ERROR}\n" in clipped and "line 1\n" in clipped and "line 1000\n" in clipped
    assert clipped.count(" lines cut ...]") == 2  # head, cut, the error, cut, tail
    assert len(clipped.encode()) < 2000 + 100
    assert clip_output("short\n", 2000) == "short\n"
    one_long_line = clip_output("é" * 3000, 100)
    assert one_long_line.startswith("é" * 12) and "bytes cut]" in one_long_line
    assert clip_output("x" * 50, 1).endswith("[... 50 bytes cut]\n")

    assert error_lines("", "") == []
    assert error_lines("all fine\nthe last words\n", "") == ["the last words"]
    source = "    with pytest.raises(ValueError):\nTraceback (most recent call last):\n"
    assert error_lines(source, "") == [  # nothing states an error: what mentions one
        "with pytest.raises(ValueError):",
        "Traceback (most recent call last):",
    ]
    assert error_lines(source + f"E   {ERROR}\n", "") == [ERROR]
    assert error_lines("src/a.c:3: error: expected ';'\n", "warning: x\n") == [
        "src/a.c:3: error: expected ';'"
    ]
    assert failure_excerpt("", "") == []
    assert failure_excerpt(f"{ERROR}\nmore\nsummary\n", "", f"exit code 1: {ERROR}") == [
        "more",
        "summary",
    ]
    many = f"{ERROR}\n" + "".join(f"l{n}\n" for n in range(20))
    assert failure_excerpt(many, "", "exit code 1")[:2] == [ERROR, "..."]


def test_a_secret_in_the_first_error_line_is_redacted(repo: Path, teddy: Teddy, env: dict) -> None:
    split = f'{AWS[:10]}""{AWS[10:]}'  # the shell joins it: only the output holds the key
    session = start(repo, teddy, execute(f"echo error: bad key {split}; exit 3"))
    result = teddy.exits(EXIT_TURN_FAILED, repo, "execute", "-y")
    assert "FAILED: exit code 3: error: bad key" in result.stdout  # the user's own terminal
    history = git(repo, env, "log", "-p", "--format=%B", "--branches=teddy/*")
    assert AWS not in history and "exit code 3: error: bad key [REDACTED:aws-access-key]" in history
    where = [row["file"] for row in report_of(repo, env, session)["redactions"]]
    assert where == ["action 1 (EXECUTE) stdout", "action 1 (EXECUTE) summary"]


def test_a_streamed_output_is_clipped_as_the_whole_one_would_be() -> None:
    """OutputBuffer past its whole limit (0 here) keeps only what the report may keep, and
    chooses as clip_output does from the whole text, whatever the chunks; the failure's
    summary quotes the same error line."""
    import random

    from git_teddy.artifacts.output import OutputBuffer, first_error

    lines = ["y", "abc", "hello world", "x" * 300, "é" * 50, "", ERROR, "error: x", "FAILED t"]
    chance = random.Random(25)
    for _ in range(300):
        count = chance.choice([0, 1, 5, 150, 250, 600])
        text = "\n".join(chance.choice(lines[:6] * 15 + lines) for _ in range(count))
        text += chance.choice(["", "\n"])
        cap, size = chance.choice([1, 50, 2000, 20000]), chance.choice([1, 7, 100, 65536])
        buffer = OutputBuffer(cap, whole_limit=0)
        data = text.encode()
        for at in range(0, len(data), size):
            buffer.add(data[at : at + size])
        assert buffer.clipped() == clip_output(text, cap), (count, cap, size)
        assert first_error(buffer.error_text(), "") == first_error(text, "")


def test_yaml_with_an_alias_is_refused_before_it_is_built() -> None:
    """An alias bomb is refused from the parser's events; a `*` in plain text is not one."""
    import pytest

    from git_teddy.artifacts.yamlio import Refused, load_yaml

    bomb = "a: &a [x, x, x]\nb: &b [*a, *a, *a]\nc: [*b, *b, *b]\n"
    with pytest.raises(Refused, match="alias"):
        load_yaml(bomb)
    assert load_yaml("run: make && ls *.py\n") == {"run": "make && ls *.py"}
