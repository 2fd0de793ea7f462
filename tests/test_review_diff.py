"""Issue 17, `git teddy diff`: a turn's change (its base snapshot to its result), two turns'
or two conversation branches' results, and the user's edits a result was merged with, each
through git's own `git diff`, so its options, colour and pager work. The expected output is
always plain `git diff` of the same snapshots, found from the session's own files."""

from pathlib import Path

import pytest
import yaml

from testing.commands import Teddy, git
from testing.plans import create, edit, plan_text
from testing.repos import commit_files
from testing.sessions import kept_snapshots, queue
from testing.templates import clone_into, play_template
from testing.terminal import on_terminal

ESC = "\x1b["


def three_turns(repo: Path, teddy: Teddy, replies: Path) -> str:
    queue(
        replies,
        plan_text(create("one.txt", "1\n")),
        plan_text(create("two.txt", "2\n"), edit("app.py", "hello", "hello, world")),
        plan_text(edit("one.txt", "1", "one")),
    )
    session = teddy.ok(repo, "new", "review").stdout.strip()
    for message in ("first", "second", "third"):
        teddy.ok(repo, "plan", "-m", message)
        teddy.ok(repo, "execute", "-y")
    return session


def base_of(repo: Path, env: dict, session: str, turn: str, branch: str = "main") -> str:
    record = yaml.safe_load(git(repo, env, "show", f"teddy/{session}/{branch}:{turn}/turn.yaml"))
    return str(record["base_snapshot"])


def result_of(repo: Path, env: dict, session: str, turn: str, branch: str = "main") -> str:
    """The Teddy-Snapshot trailer of the turn's report commit, read with git log."""
    out = git(
        repo,
        env,
        "log",
        "--format=%x01%(trailers:key=Teddy-Turn,valueonly) %(trailers:key=Teddy-Phase,valueonly)"
        " %(trailers:key=Teddy-Snapshot,valueonly)",
        f"teddy/{session}/{branch}",
    )
    for record in out.split("\x01"):
        words = record.split()
        if words[:2] == [turn, "report"]:
            return words[2]
    raise AssertionError(f"no report of {turn}: {out}")


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    """The three turns played once per module: (its folder, its repository, the session)."""
    root = tmp_path_factory.mktemp("three-turns")
    return root, *play_template(root, three_turns)


@pytest.fixture
def session(played: tuple[Path, Path, str], repo: Path, replies: Path) -> str:
    """The played three turns, copied into this test's repository (and replies)."""
    template_root, template_repo, session = played
    clone_into(template_root, template_repo, replies.parent, repo)
    return session


@pytest.mark.parametrize(
    "options",
    [[], ["--stat"], ["--word-diff"], ["--name-status"], ["-U0"], ["--", "app.py"]],
)
def test_a_turn_is_git_diff_of_its_base_and_result(
    repo: Path, teddy: Teddy, env: dict, session: str, options: list[str]
) -> None:
    base, result = base_of(repo, env, session, "02"), result_of(repo, env, session, "02")
    expected = git(repo, env, "diff", base, result, *options)
    assert "two.txt" in expected or "app.py" in expected  # the turn changed something
    for spec in ("02", "2", f"{session}/02"):
        shown = teddy.ok(repo, "diff", spec, *options)
        assert shown.stdout == expected, spec


def test_paths_are_relative_to_the_current_folder_as_in_git(
    repo: Path, teddy: Teddy, env: dict, session: str
) -> None:
    sub = repo / "sub"
    sub.mkdir()
    base, result = base_of(repo, env, session, "02"), result_of(repo, env, session, "02")
    expected = git(sub, env, "diff", base, result, "--", "../app.py")
    assert "hello, world" in expected and "two.txt" not in expected
    assert teddy.ok(sub, "diff", "02", "--", "../app.py").stdout == expected


def test_a_range_compares_two_results(repo: Path, teddy: Teddy, env: dict, session: str) -> None:
    one, three = result_of(repo, env, session, "01"), result_of(repo, env, session, "03")
    expected = git(repo, env, "diff", one, three)
    assert "two.txt" in expected and "+one" in expected
    assert teddy.ok(repo, "diff", "01..03").stdout == expected
    assert teddy.ok(repo, "diff", f"{session}/01..03", "--stat").stdout == git(
        repo, env, "diff", one, three, "--stat"
    )


def test_two_conversation_branches(
    repo: Path, teddy: Teddy, env: dict, session: str, replies: Path
) -> None:
    queue(replies, plan_text(create("alt.txt", "alternative\n")))
    teddy.ok(repo, "branch", "02", "-m", "another way")
    teddy.ok(repo, "execute", "-y")
    alt = result_of(repo, env, session, "02-branch-01", "02-branch-01")
    main = result_of(repo, env, session, "03")
    expected = git(repo, env, "diff", alt, main)
    assert "alt.txt" in expected and "two.txt" in expected
    assert teddy.ok(repo, "diff", "02-branch-01..main").stdout == expected
    # across branches by turn: turn 03 (main) against the branch's turn
    assert teddy.ok(repo, "diff", "03..02-branch-01").stdout == git(repo, env, "diff", main, alt)
    base = base_of(repo, env, session, "02-branch-01", "02-branch-01")
    assert teddy.ok(repo, "diff", "02-branch-01").stdout == git(repo, env, "diff", base, alt)


def test_applied_shows_the_users_edits_the_result_was_merged_with(
    repo: Path, teddy: Teddy, env: dict, replies: Path
) -> None:
    lines = "".join(f"line {n}\n" for n in range(1, 11))
    commit_files(repo, env, {"long.txt": lines})
    queue(replies, plan_text(edit("long.txt", "line 2", "line two"), create("new.txt", "new\n")))
    session = teddy.ok(repo, "new", "merge").stdout.strip()
    teddy.ok(repo, "plan", "-m", "change a file")
    # The user edits meanwhile a file the turn writes, and one it does not (execute saves
    # and merges only the paths it writes: issue 31 item 2).
    (repo / "long.txt").write_text(lines.replace("line 9", "line 9, mine"))
    (repo / "app.py").write_text("print('mine')\n")
    teddy.ok(repo, "execute", "-y")
    shown = teddy.ok(repo, "diff", "--applied", "01").stdout
    assert "+line 9, mine" in shown and "line two" not in shown and "new.txt" not in shown
    assert "app.py" not in shown
    subjects = {
        s: git(repo, env, "log", "-1", "--format=%s", s) for s in kept_snapshots(repo, env, session)
    }
    user_state = next(sha for sha, subject in subjects.items() if "applying turn 01" in subject)
    assert shown == git(repo, env, "diff", base_of(repo, env, session, "01"), user_state)


def test_colour_follows_the_choice_and_git_s_own_rules(
    repo: Path, teddy: Teddy, env: dict, session: str
) -> None:
    assert ESC not in teddy.ok(repo, "diff", "02").stdout  # piped: none, as git diff
    assert ESC in teddy.ok(repo, "--color=always", "diff", "02").stdout
    assert ESC in teddy.ok(repo, "diff", "02", "--color").stdout  # git's own option
    git(repo, env, "config", "color.diff", "always")
    assert ESC in teddy.ok(repo, "diff", "02").stdout
    assert ESC not in teddy.ok(repo, "--color=never", "diff", "02").stdout


def test_the_diff_goes_through_the_pager_on_a_terminal(
    repo: Path, env: dict, session: str, tmp_path: Path
) -> None:
    record = tmp_path / "paged.txt"
    pager = f'cat > "{record}"'
    terminal = {**env, "GIT_PAGER": pager, "TERM": "xterm"}  # git colours no dumb terminal
    code, shown = on_terminal(["git", "teddy", "diff", "02"], repo, terminal)
    assert code == 0, shown
    paged = record.read_text()
    assert "hello, world" in paged and "two.txt" in paged
    assert ESC in paged  # coloured for the pager, as git's auto does
    assert "hello, world" not in shown


def test_exit_code_passes_through(repo: Path, teddy: Teddy, session: str) -> None:
    teddy.exits(1, repo, "diff", "02", "--exit-code")
    teddy.exits(0, repo, "diff", "02", "--exit-code", "--", "nothing-here")


@pytest.mark.parametrize(
    ("args", "message", "hint"),
    [
        (["02"], "has no report yet", "git teddy execute"),
        (["01..02"], "has no report yet", "git teddy execute"),
        (["07"], "has no turn '07'", "its turns are: 01, 02"),
        (["01.."], "is not a range", "TURN..TURN"),
        (["--applied", "01..02"], "--applied takes one turn", "--applied 01"),
    ],
)
def test_refusals_say_why_and_what_to_do(
    repo: Path, teddy: Teddy, replies: Path, args: list[str], message: str, hint: str
) -> None:
    queue(replies, plan_text(create("one.txt", "1\n")), plan_text(create("two.txt", "2\n")))
    teddy.ok(repo, "new", "half")
    teddy.ok(repo, "plan", "-m", "first")
    teddy.ok(repo, "execute", "-y")
    teddy.ok(repo, "plan", "-m", "second")  # planned, not executed
    refused = teddy.exits(1, repo, "diff", *args)
    assert refused.stdout == ""
    assert "error: " in refused.stderr and message in refused.stderr, refused.stderr
    assert "hint: " in refused.stderr and hint in refused.stderr, refused.stderr
    assert "Traceback" not in refused.stderr


def test_applied_refused_when_nothing_was_applied(
    repo: Path, teddy: Teddy, env: dict, replies: Path
) -> None:
    queue(replies, plan_text(create("one.txt", "1\n")))
    teddy.ok(repo, "new", "kept")
    teddy.ok(repo, "plan", "-m", "first")
    git(repo, env, "config", "teddy.apply", "never")
    teddy.exits(0, repo, "execute", "-y")  # done; kept unapplied by choice (issue 26)
    refused = teddy.exits(1, repo, "diff", "--applied", "01")
    assert "was not applied to your files" in refused.stderr
    assert "hint: see what the turn changed" in refused.stderr
