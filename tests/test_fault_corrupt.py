"""Fault suite, issue 14 item 12 (second half): damaged derived state and damaged session
content.

Derived state (`.git/teddy/`, gitstore/layout.py) is rebuilt or passed over when it is
garbage, not UTF-8, cut short or empty, and the command succeeds; where teddy cannot write
it safely (a folder where a file goes, or the reverse) it is an `error:` naming the path and
a `hint:` to remove it, exit 1. Session content edited by hand (made here with git's
plumbing on a real session) is worked around, or an `error:` naming the session commit and
the file, with a `hint:` giving the exact way out. Never a traceback.
"""

import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from testing.commands import Result, Teddy, git, run
from testing.plans import WORKTREE, create, plan_text
from testing.repos import make_repo
from testing.sealed import sealed_env
from testing.templates import copy_template

Damage = Callable[[Path], None]
GARBAGE = {
    "garbage": b"\x00\x01 {[ not: what: teddy: wrote",
    "not-utf8": b"\xff\xfe\x80\x81\n",
    "empty": b"",
    "cut-short": b'{"format": 2, "entries": {"abc',
}


class Story:
    """A repository whose session has turn 01 executed (a.txt created, committed) and
    turn 02 planned, not executed."""

    def __init__(self, repo: Path, teddy: Teddy, env: dict[str, str], session: str) -> None:
        self.repo, self.teddy, self.env, self.id = repo, teddy, env, session
        self.ref = f"refs/heads/teddy/{self.id}/main"
        self.derived = Path(git(repo, env, "rev-parse", "--git-common-dir").strip())
        self.derived = (repo / self.derived / "teddy").resolve()
        self.files = self.user_files()

    @classmethod
    def play(cls, repo: Path, teddy: Teddy, env: dict[str, str]) -> "Story":
        session = teddy.ok(repo, "new", "work").stdout.strip()
        plan = repo.parent / "plan1.md"
        plan.write_text(plan_text(create("a.txt", "a\n")))
        teddy.ok(repo, "plan", "-m", "one", "--from-file", str(plan))
        teddy.ok(repo, "execute", "-y")
        git(repo, env, "add", "a.txt")
        git(repo, env, "commit", "-qm", "a")
        plan = repo.parent / "plan2.md"
        plan.write_text(plan_text(create("b.txt", "b\n") + WORKTREE))  # in a pooled worktree
        teddy.ok(repo, "plan", "-m", "two", "--from-file", str(plan))
        return cls(repo, teddy, env, session)

    def plan_file(self, number: int, action: str = "") -> Path:
        path = self.repo.parent / f"plan{number}.md"
        if action:
            path.write_text(plan_text(action))
        return path

    def user_files(self) -> dict[str, bytes]:
        return {p.name: p.read_bytes() for p in self.repo.iterdir() if p.is_file()}

    def git(self, *args: str, input: str | bytes | None = None) -> str:
        if isinstance(input, bytes):
            import subprocess

            proc = subprocess.run(
                ["git", *args], cwd=self.repo, env=self.env, input=input, capture_output=True
            )
            assert proc.returncode == 0, proc.stderr
            return proc.stdout.decode().strip()
        return run(["git", *args], self.repo, self.env, input=input, check=True).stdout.strip()

    def tip(self) -> str:
        return self.git("rev-parse", self.ref)

    def amend(self, files: dict[str, bytes] | None = None, remove: tuple[str, ...] = ()) -> str:
        """Rewrite the branch's tip (hash-object, a temporary index, write-tree, commit-tree,
        update-ref) with `files` replaced and `remove` gone: same parents, same message."""
        index = {**self.env, "GIT_INDEX_FILE": str(self.repo.parent / "damage-index")}
        tip = self.tip()

        def in_index(*args: str) -> None:
            run(["git", *args], self.repo, index, check=True)

        in_index("read-tree", f"{tip}^{{tree}}")
        for path in remove:
            in_index("rm", "-r", "-q", "--cached", path)
        for path, data in (files or {}).items():
            blob = self.git("hash-object", "-w", "--stdin", input=data)
            in_index("update-index", "--add", "--cacheinfo", f"100644,{blob},{path}")
        tree = run(["git", "write-tree"], self.repo, index, check=True).stdout.strip()
        message = self.git("log", "-1", "--format=%B", tip)
        commit = self.git("commit-tree", tree, "-p", f"{tip}^", input=message)
        self.git("update-ref", self.ref, commit, tip)
        return commit

    def show(self, path: str) -> str:
        return self.git("show", f"{self.ref}:{path}")

    def ok(self, *args: str) -> Result:
        result = self.teddy(self.repo, *args)
        assert result.returncode == 0, f"{args}: {result.stdout}{result.stderr}"
        assert "Traceback" not in result.stderr
        return result

    def refused(self, args: tuple[str, ...], *said: str) -> Result:
        """A user error: exit 1, `error:` + `hint:`, no traceback, nothing changed."""
        tip = self.tip()
        result = self.teddy(self.repo, *args)
        assert result.returncode == 1, f"{args}: {result.stdout}{result.stderr}"
        assert "error:" in result.stderr and "hint:" in result.stderr, result.stderr
        assert "Traceback" not in result.stderr, result.stderr
        for text in said:
            assert text in result.stderr, result.stderr
        assert self.tip() == tip
        self.intact()
        return result

    def intact(self) -> None:
        assert self.user_files() == self.files
        self.git("fsck", "--strict", "--no-progress")


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str], str]:
    """The story played once per module (four commands through the executable): its folder
    (HOME and repository), its environment and its session."""
    root = tmp_path_factory.mktemp("corrupt-story")
    (root / "home").mkdir()
    env = sealed_env(root / "home")
    repo = make_repo(root / "repo", env, {"README.md": "# demo\n", "app.py": "print('hello')\n"})
    return root, env, Story.play(repo, Teddy(env), env).id


@pytest.fixture
def story(played: tuple[Path, dict[str, str], str], tmp_path: Path) -> Story:
    """A copy of the played story for each test: every test damages it."""
    template, env, session = played
    env = copy_template(template, tmp_path / "story", env)
    return Story(tmp_path / "story" / "repo", Teddy(env), env, session)


# ---- derived state ---------------------------------------------------------------------------


READERS = [("list",), ("stats",), ("context",), ("show",), ("log",)]


@pytest.mark.parametrize(
    "name", ["tokens.json", "token-pieces.marshal", "index.toon", "branch", "fork", "placing"]
)
def test_damaged_derived_files_are_rebuilt_or_passed_over(story: Story, name: str) -> None:
    path = {
        "branch": story.derived / "sessions" / story.id / "branch",
        "fork": story.derived / "sessions" / story.id / "fork",
        "placing": story.derived / "sessions" / story.id / "placing",
    }.get(name, story.derived / name)
    path.parent.mkdir(parents=True, exist_ok=True)
    for data in GARBAGE.values():
        path.write_bytes(data)
        for args in READERS:
            story.ok(*args)
        story.ok("context")  # again: now from the cache the first run stored, if any
        story.intact()
    story.ok("execute", "-y")  # the pending turn 02 still runs
    story.ok("restore", "01", "--force")


def test_damaged_context_cache_entries_are_misses(story: Story) -> None:
    story.ok("context")
    first = story.ok("context").stdout
    entries = [p for p in (story.derived / "context-cache").rglob("*") if p.is_file()]
    assert entries
    for data in GARBAGE.values():
        for entry in entries:
            entry.write_bytes(data)
        assert story.ok("context").stdout == first


@pytest.mark.parametrize(
    ("where", "make", "args", "wanted"),
    [
        ("sessions/{id}/fork", "folder", ("restore", "01"), "the turn the next plan forks from"),
        ("sessions/{id}/claim", "folder", ("execute", "-y"), "claim file"),
        ("worktrees/wt-0.lock", "folder", ("execute", "-y"), "lock file"),
        ("tmp", "file", ("plan", "-m", "x"), "a folder"),
        ("tmp", "file", ("context",), "a folder"),
        ("sessions", "file", ("restore", "01"), "a folder"),
        ("worktrees", "file", ("execute", "-y"), "a folder"),
    ],
)
def test_what_is_in_the_way_of_derived_state_is_named(
    story: Story, where: str, make: str, args: tuple[str, ...], wanted: str
) -> None:
    path = story.derived / where.format(id=story.id)
    if args[0] == "plan":
        story.ok("execute", "-y")  # no pending turn: plan gets as far as the snapshot
        story.files = story.user_files()
        args = (*args, "--from-file", str(story.plan_file(1)))
    if path.is_dir():
        shutil.rmtree(path)
    elif path.exists():
        path.unlink()
    if make == "folder":
        (path / "yours").mkdir(parents=True)
    else:
        path.write_bytes(b"yours\n")
    result = story.refused(args, str(path), wanted)
    assert (
        f"hint: remove it (git-teddy's local derived state, rebuilt when needed): rm -r '{path}'"
        in result.stderr
    )
    assert path.exists()  # teddy removes nothing it did not make
    if path.is_dir():
        shutil.rmtree(path)
    else:
        path.unlink()
    assert story.teddy(story.repo, *args).returncode == 0  # the way out works


# ---- session content ---------------------------------------------------------------------------


def record_with(story: Story, old: str, new: str) -> bytes:
    text = story.show("02/turn.yaml")
    assert re.search(old, text, re.MULTILINE)
    return re.sub(old, new, text, count=1, flags=re.MULTILINE).encode()


PENDING_RECORD: dict[str, Callable[[Story], bytes | None]] = {
    "not-yaml": lambda s: b"id: [unclosed\n  : :\n",
    "a-list": lambda s: b"- a\n- b\n",
    "wrong-type": lambda s: record_with(s, r"^agent: .*$", "agent: [1, 2]"),
    "missing-field": lambda s: b"id: abc\n",
    "not-utf8": lambda s: b"\xff\xfeid: x\n",
    "gone": lambda s: None,
}


@pytest.mark.parametrize("damage", list(PENDING_RECORD))
def test_a_damaged_pending_turn_yaml_names_the_commit_and_the_way_out(
    story: Story, damage: str
) -> None:
    data = PENDING_RECORD[damage](story)
    before = story.git("rev-parse", f"{story.ref}^")
    bad = story.amend(*(({"02/turn.yaml": data},) if data is not None else ({}, ("02/turn.yaml",))))
    for args in [("show",), ("log",), ("list",), ("stats",), ("learn",)]:
        story.ok(*args)
    said = (f"commit {bad[:12]}", "02/turn.yaml", f"git teddy delete {story.id}")
    story.refused(("execute", "-y"), *said)
    result = story.refused(("plan", "-m", "x", "--from-file", str(story.plan_file(2))), *said)
    way_out = re.search(r"`(git update-ref [^`]+)`", result.stderr)
    assert way_out, result.stderr
    assert way_out[1] == f"git update-ref {story.ref} {before}"
    story.git(*way_out[1].split()[1:])
    story.ok("plan", "-m", "again", "--from-file", str(story.plan_file(2)))
    story.ok("execute", "-y")


@pytest.mark.parametrize("data", [b"\xff\xfe# plan \x80", None])
def test_a_damaged_pending_plan_names_the_commit(story: Story, data: bytes | None) -> None:
    bad = story.amend(
        {"02/plan.md": data} if data is not None else {}, () if data else ("02/plan.md",)
    )
    story.ok("show")
    story.refused(("execute", "-y"), f"commit {bad[:12]}", "02/plan.md", "hint: fix 02/plan.md")


def test_a_garbage_pending_plan_is_an_error_with_a_hint(story: Story) -> None:
    story.amend({"02/plan.md": b"garbage {{{ ``` \x00"})
    story.ok("show")
    result = story.teddy(story.repo, "execute", "-y")
    assert "Traceback" not in result.stderr
    assert result.returncode in (0, 1, 4), result.stderr
    if result.returncode == 1:
        assert "hint:" in result.stderr


SESSION_FILES: dict[str, tuple[dict[str, bytes], tuple[str, ...]]] = {
    "report-not-utf8": ({"01/report.md": b"\xff\xfe report \x80"}, ()),
    "report-not-yaml": ({"01/report.md": b"- [unclosed\n: : {"}, ()),
    "report-a-list": ({"01/report.md": b"- a\n- b\n"}, ()),
    "done-turn-yaml-not-yaml": ({"01/turn.yaml": b"id: [unclosed\n"}, ()),
    "done-turn-empty": ({"01/junk": b"x"}, ("01",)),
    "session-md-frontmatter": ({"session.md": b"---\nstatus: [unclosed\n---\nbody\n"}, ()),
    "session-md-list": ({"session.md": b"---\n- a\n---\nbody\n"}, ()),
    "session-md-not-utf8": ({"session.md": b"---\nstatus: \xff\xfe\n---\n\x80\n"}, ()),
    "session-md-gone": ({}, ("session.md",)),
    "a-file-named-02": ({"02": b"not a folder\n"}, ("02",)),
}


@pytest.mark.parametrize("damage", list(SESSION_FILES))
def test_damaged_session_files_are_worked_around_or_named(story: Story, damage: str) -> None:
    files, remove = SESSION_FILES[damage]
    bad = story.amend(files, remove)
    for args in [
        ("show",),
        ("log",),
        ("list",),
        ("stats",),
        ("learn",),
        ("codify", story.id),
        ("blame", "a.txt"),
        ("execute", "-y"),
        ("restore", "01", "--force"),
        ("plan", "-m", "x", "--from-file", str(story.plan_file(1))),
    ]:
        result = story.teddy(story.repo, *args)
        assert "Traceback" not in result.stderr, f"{args}: {result.stderr}"
        assert result.returncode in (0, 1), f"{args}: {result.stderr}"
        if result.returncode == 1:
            assert "hint:" in result.stderr, f"{args}: {result.stderr}"
            named = (bad[:12], "session.md", "execute")  # the commit, or the log (rebuilt)
            assert any(text in result.stderr for text in named), f"{args}: {result.stderr}"
    story.git("fsck", "--strict", "--no-progress")


def test_a_snapshot_trailer_naming_a_missing_object(story: Story) -> None:
    """Turn 01's report names a result snapshot this repository does not have."""
    plan = story.tip()
    report = story.git("rev-parse", f"{plan}^")
    message = story.git("log", "-1", "--format=%B", report)
    missing = "1" * 40
    message = re.sub(r"Teddy-Snapshot: \w+", f"Teddy-Snapshot: {missing}", message)
    new_report = story.git("commit-tree", f"{report}^{{tree}}", "-p", f"{report}^", input=message)
    plan_message = story.git("log", "-1", "--format=%B", plan)
    new_plan = story.git("commit-tree", f"{plan}^{{tree}}", "-p", new_report, input=plan_message)
    story.git("update-ref", story.ref, new_plan, plan)
    for args in [("show",), ("log",), ("list",), ("stats",), ("learn",), ("blame", "a.txt")]:
        result = story.teddy(story.repo, *args)
        assert "Traceback" not in result.stderr, f"{args}: {result.stderr}"
        assert result.returncode in (0, 1), f"{args}: {result.stderr}"
    story.refused(("restore", "01"), missing[:12])
    story.ok("execute", "-y")
