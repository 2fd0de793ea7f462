"""The git processes of a turn, none for nothing (issue 31): `execute` diffs the turn's base
and result once (it lists what applying writes, then applies it), a blob's size is asked of
git once per command (the turn's turn.yaml is read by execute's check, then again under its
claim), and reading a file a tree lacks runs no git. Counted with GIT_TRACE2_EVENT, never
timed (benchmarks/bench_startup.py times the turn)."""

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from git_teddy.gitstore.permissions import Shared
from git_teddy.planning.tool_probe import Probes
from testing.commands import Teddy
from testing.plans import edit, plan_text

BATCH_CHECK = "cat-file --batch-check=%(objectname) %(objecttype) %(objectsize)"


def started(trace: Path) -> list[str]:
    """The command line of each git process a trace2 event file records (teddy's own left
    out)."""
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    argvs = [e["argv"][1:] for e in events if e["event"] == "start"]
    return [" ".join(argv) for argv in argvs if argv[:1] != ["teddy"]]


def test_execute_runs_no_git_command_twice(repo: Path, teddy: Teddy) -> None:
    plan = repo.parent / "plan.md"
    plan.write_text(plan_text(edit("README.md", "# demo", "# demo 2")))
    teddy.ok(repo, "new", "processes")
    teddy.ok(repo, "plan", "-m", "edit", "--from-file", str(plan))
    trace = repo.parent / "trace2.json"
    Teddy({**teddy.env, "GIT_TRACE2_EVENT": str(trace)}).ok(repo, "execute", "-y")
    assert (repo / "README.md").read_text() == "# demo 2\n"
    processes = started(trace)
    twice = {line.rpartition("no-hooks ")[2]: n for line, n in Counter(processes).items() if n > 1}
    # Run twice: a batch check of two sets of blobs (the turn's record, once though read
    # twice; then the files the session log is written from), and an `--index-info` into two
    # temporary indexes (the saved state of the paths the plan writes; the edited file as
    # `git checkout` would write it).
    assert twice == {BATCH_CHECK: 2, "update-index -z --index-info": 2}, processes
    assert sum(line.startswith("diff-tree ") for line in processes) == 1, processes


def test_plan_checks_the_reply_once(repo: Path, teddy: Teddy) -> None:
    """The plan's refusals (a write into a submodule, a part a file lacks) were checked when
    the reply was read, then again: the second `ls-tree` of the written paths is gone."""
    plan = repo.parent / "plan.md"
    plan.write_text(plan_text(edit("README.md", "# demo", "# demo 2")))
    teddy.ok(repo, "new", "processes")
    trace = repo.parent / "trace2.json"
    env = {**teddy.env, "GIT_TRACE2_EVENT": str(trace)}
    Teddy(env).ok(repo, "plan", "-m", "edit", "--from-file", str(plan))
    processes = started(trace)
    written = [line for line in processes if line.startswith("ls-tree ") and " -- " in line]
    assert len(written) == 1, processes  # the paths the plan writes: any submodule there?
    twice = {line for line, n in Counter(processes).items() if n > 1}
    assert twice <= {BATCH_CHECK}, processes


READS = """
import sys
from pathlib import Path
from git_teddy.gitstore.repo import GitRepo

repo = GitRepo.discover(Path(sys.argv[1]))
tree = repo.read_commit(repo.head_commit()).tree
assert repo.read_bounded(tree, "no-such-file", 100) is None
first = repo.read_bounded(tree, "README.md", 100)
again = repo.read_bounded(tree, "README.md", 100)
cut = repo.read_bounded(tree, "README.md", 3)
print(first == again == b"# demo\\n", bytes(cut) == b"# d", cut.size)
"""


def test_a_blob_size_is_asked_once_and_a_missing_file_runs_no_git(
    repo: Path, env: dict[str, str]
) -> None:
    trace = repo.parent / "trace2.json"
    proc = subprocess.run(
        [sys.executable, "-c", READS, str(repo)],
        cwd=repo,
        env={**env, "GIT_TRACE2_EVENT": str(trace), "PYTHONPATH": str(Path(__file__).parents[1])},
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["True", "True", "7"]
    assert started(trace).count(BATCH_CHECK) == 1, started(trace)


def test_gits_version_is_asked_once(repo: Path, teddy: Teddy) -> None:
    """Every plan's system information names git's version: asked once, then cached with the
    developer tools (planning/tool_probe.py) while the `git` on PATH stays the same."""
    plan = repo.parent / "plan.md"
    plan.write_text(plan_text(edit("README.md", "# demo", "# demo 2")))
    trace = repo.parent / "trace2.json"
    version = subprocess.run(["git", "--version"], capture_output=True, text=True, check=True)
    asked = []
    for session in ("first", "second"):
        trace.unlink(missing_ok=True)
        teddy.ok(repo, "new", session)
        Teddy({**teddy.env, "GIT_TRACE2_EVENT": str(trace)}).ok(
            repo, "plan", "-m", "edit", "--from-file", str(plan)
        )
        asked.append("--version" in started(trace))
        context = teddy.ok(repo, "context").stdout
        assert f"- git: {version.stdout.split()[-1]}\n" in context
        teddy.ok(repo, "discard")
    assert asked == [True, False]


def test_another_git_on_path_is_asked_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "bin"
    folder.mkdir()
    git = folder / "git"
    git.write_text("#!/bin/sh\n")
    git.chmod(0o755)
    monkeypatch.setenv("PATH", str(folder))
    cache = tmp_path / "tools.json"
    asked: list[str] = []

    def ask() -> str:
        asked.append("asked")
        return f"2.{len(asked)}"

    assert Probes(cache, Shared()).git_version(ask) == "2.1"
    assert Probes(cache, Shared()).git_version(ask) == "2.1"  # cached in the file
    git.write_text("#!/bin/sh\n# upgraded\n")
    assert Probes(cache, Shared()).git_version(ask) == "2.2"
    cache.write_text("{damaged")
    assert Probes(cache, Shared()).git_version(ask) == "2.3"
    assert len(asked) == 3
