"""Fault suite, issue 25 items 4 to 6: bounded whatever a command or a teammate does.

A command that leaves its process group but keeps its output open is stopped at the
timeout; a command's output of hundreds of megabytes leaves teddy's memory where a small
one does; session content read from a teammate (a YAML alias bomb, an oversized report)
is refused or cut within bounds of time and memory. Real repositories, the installed
executable; hostile session content written with git's plumbing, as a push would bring it.
"""

import os
import signal
import time
from pathlib import Path

from git_teddy.errors import EXIT_TURN_FAILED
from testing.commands import Teddy, git, run
from testing.cpu import cpu_timed
from testing.memory import peak_rss
from testing.plans import create, execute, plan_text
from testing.sessions import report_of, start

OUTPUT_MB = 200  # the 500 MB, smaller: the bound does not depend on the size
MEMORY_BOUND_MB = 100  # teddy's peak resident set, whatever the output's size


def test_a_child_outside_the_group_holding_the_output_cannot_outlast_the_timeout(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    """`setsid CMD &` leaves the process group the timeout kills and keeps stdout open: the
    reader stops at the deadline all the same, and the report says why."""
    pid_file = repo.parent / "outsider.pid"
    command = f"echo begun; setsid sh -c 'echo $$ > {pid_file}; exec sleep 120' & sleep 100"
    session = start(repo, teddy, execute(command))
    env["TEDDY_EXECUTE_TIMEOUT"] = "2"
    began = time.monotonic()
    try:
        teddy.exits(EXIT_TURN_FAILED, repo, "execute", "-y")
        took = time.monotonic() - began
    finally:
        if pid_file.exists():  # the outsider this test started, by its own id
            os.kill(int(pid_file.read_text()), signal.SIGKILL)
    assert took < 60, f"execute ran {took:.0f} s past a 2 s timeout"
    log = report_of(repo, env, session)["action_logs"][0]
    error = log["details"]["error"]
    assert log["status"] == "FAILURE" and "timed out after 2 s" in error
    assert "outside the command's process group" in error and "kept its output open" in error
    assert log["details"]["stdout"] == "begun\n"


def test_a_huge_output_leaves_teddys_memory_where_a_small_one_does(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    """200 MB of output (`yes`, then a line stating an error, then more): teddy's peak
    memory stays within the bound, and the report keeps the head, the error and the tail,
    the cuts marked."""
    size = OUTPUT_MB * 1024 * 1024
    command = (
        f"yes | head -c {size // 2}; echo 'ValueError: the cause'; "
        f"yes tail | head -c {size // 2}; echo the end"
    )
    session = start(repo, teddy, execute(command))
    out = repo.parent / "execute.out"
    code, peak_mb, output = peak_rss(["git", "teddy", "execute", "-y"], repo, env, out)
    assert code == 0, output
    print(f"figure: execute of {OUTPUT_MB} MB output peaked at {peak_mb:.1f} MiB")  # -s
    assert peak_mb < MEMORY_BOUND_MB, f"teddy peaked at {peak_mb:.0f} MiB for {OUTPUT_MB} MB"
    details = report_of(repo, env, session)["action_logs"][0]["details"]
    stdout = details["stdout"]
    assert len(stdout.encode()) < 2 * 20_000
    assert stdout.startswith("y\ny\n") and stdout.endswith("tail\nthe end\n")
    assert "ValueError: the cause\n" in stdout and "lines cut ...]" in stdout


# ---- hostile session content (item 6) ---------------------------------------------------

CPU_BOUND_S = 2.0  # processor seconds to refuse an alias bomb (wall time: the machine's load)
REPORT_MB = 150  # the figure
REPORT_MEMORY_MB = 200


def _bomb(levels: int = 9) -> str:
    """YAML of a few lines that expands to 9**levels items: an alias bomb."""
    lines = ['l0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for level in range(1, levels):
        aliases = ",".join([f"*l{level - 1}"] * 9)
        lines.append(f"l{level}: &l{level} [{aliases}]")
    return "\n".join(lines) + "\n"


def _session_ref(repo: Path, env: dict, session: str) -> str:
    refs = git(repo, env, "for-each-ref", "--format=%(refname)").split()
    return next(r for r in refs if session in r and r.endswith("/main"))


def _teammate_commit(repo: Path, env: dict, ref: str, files: dict[str, Path | bytes]) -> None:
    """A commit on `ref` changing `files` (content, or a file holding it), made with git's
    plumbing as a teammate's pushed commit arrives: no git-teddy involved."""
    index = {**env, "GIT_INDEX_FILE": str(repo.parent / "teammate-index")}
    tip = git(repo, env, "rev-parse", ref).strip()
    run(["git", "read-tree", tip], repo, index, check=True)
    for path, data in files.items():
        source = data if isinstance(data, Path) else repo.parent / "teammate-blob"
        if not isinstance(data, Path):
            source.write_bytes(data)
        blob = git(repo, env, "hash-object", "-w", str(source)).strip()
        run(
            ["git", "update-index", "--add", "--cacheinfo", f"100644,{blob},{path}"],
            repo,
            index,
            check=True,
        )
    tree = run(["git", "write-tree"], repo, index, check=True).stdout.strip()
    commit = run(["git", "commit-tree", tree, "-p", tip, "-m", "teammate"], repo, env, check=True)
    git(repo, env, "update-ref", ref, commit.stdout.strip(), tip)


def _executed_session(repo: Path, teddy: Teddy) -> str:
    session = start(repo, teddy, create("a.txt", "a\n"))
    teddy.ok(repo, "execute", "-y")
    return session


def test_an_alias_bomb_in_a_fetched_session_log_is_refused_fast(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    """A nine-level alias bomb in session.md's frontmatter: `list` passes over it, `show`
    and `export` name the file; each in under 2 CPU seconds, never a traceback."""
    session = _executed_session(repo, teddy)
    ref = _session_ref(repo, env, session)
    log = git(repo, env, "show", f"{ref}:session.md")
    end = log.index("\n---\n", 3) + 1  # the bomb goes off where a field is validated
    hostile = "---\n" + _bomb() + log[4:end] + "participants: *l8\n" + log[end:]
    _teammate_commit(repo, env, ref, {"session.md": hostile.encode()})
    for args in (("list",), ("show", session), ("export", session, "--html", "-")):
        result, seconds = cpu_timed(lambda args=args: teddy(repo, *args))
        print(f"figure: {args[0]} of an alias bomb took {seconds:.2f} CPU s")  # -s
        assert seconds < CPU_BOUND_S, f"{args} took {seconds:.1f} CPU s"
        assert "Traceback" not in result.stderr, result.stderr
        if args[0] != "list":
            assert "session.md" in result.stderr and "alias" in result.stderr, result.stderr


def test_an_alias_trick_in_memos_is_refused_before_anything_is_asked(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    """`.teddy/memos.yaml` of ~20 KB whose aliases expand to 300 MB of memos: `plan` refuses
    it naming the file, in under 2 CPU seconds, and commits nothing."""
    memo = "x" * 100_000
    (repo / ".teddy").mkdir()
    (repo / ".teddy/memos.yaml").write_text(f'- &m "{memo}"\n' + "- *m\n" * 3000)
    git(repo, env, "add", ".teddy/memos.yaml")
    git(repo, env, "commit", "-qm", "memos from a teammate")
    session = teddy.ok(repo, "new", "work").stdout.strip()
    plan_file = repo.parent / "plan.md"
    plan_file.write_text(plan_text(create("a.txt", "a\n")))
    args = ("plan", "-m", "go", "--from-file", str(plan_file))
    result, seconds = cpu_timed(lambda: teddy(repo, *args))
    print(f"figure: plan with the memos trick took {seconds:.2f} CPU s")  # -s
    assert seconds < CPU_BOUND_S, f"plan took {seconds:.1f} CPU s"
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert ".teddy/memos.yaml" in result.stderr and "alias" in result.stderr
    assert "hint:" in result.stderr
    ref = _session_ref(repo, env, session)
    assert "_context.log" not in git(repo, env, "ls-tree", "-r", "--name-only", ref)


def test_a_huge_report_is_shown_cut_within_bounded_memory(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    """A teammate's 150 MB report.md: `show SESSION/01` and `export` stay under 200 MiB,
    show the start of it with a mark, and write a page of bounded size."""
    session = _executed_session(repo, teddy)
    ref = _session_ref(repo, env, session)
    huge = repo.parent / "report.md"
    with huge.open("w") as file:
        file.write("run_summary:\n  status: SUCCESS\nfiller: |\n")
        line = "  " + "all work and no play " * 4 + "\n"
        for _ in range(REPORT_MB * 1024 * 1024 // len(line)):
            file.write(line)
    _teammate_commit(repo, env, ref, {"01/report.md": huge})
    huge.unlink()
    shown = repo.parent / "shown.txt"
    args = ["git", "teddy", "show", f"{session}/01"]
    code, peak, stderr = peak_rss(args, repo, env, shown)
    assert code == 0 and "Traceback" not in stderr, stderr
    print(f"figure: show of a {REPORT_MB} MB report peaked at {peak:.1f} MiB")  # -s
    assert peak < REPORT_MEMORY_MB, f"show peaked at {peak:.0f} MiB"
    assert shown.stat().st_size < 20 * 1024 * 1024
    assert "[... cut: the file holds" in shown.read_text()
    page = repo.parent / "page.html"
    args = ["git", "teddy", "export", session, "--html", str(page)]
    code, peak, stderr = peak_rss(args, repo, env, repo.parent / "export.out")
    assert code == 0 and "Traceback" not in stderr, stderr
    print(f"figure: export of a {REPORT_MB} MB report peaked at {peak:.1f} MiB")  # -s
    assert peak < REPORT_MEMORY_MB, f"export peaked at {peak:.0f} MiB"
    assert page.stat().st_size < 40 * 1024 * 1024
    assert "not shown: report.md holds" in page.read_text()
