"""The cached answer of `git teddy context`: served without importing click, pydantic or
dulwich, always exactly what the full command prints, and never once anything it depends on
has changed (the working tree, a context file, the session, settings, the token cache, the
current branch). URLs are never cached; damaged entries are misses; concurrent runs agree;
the user's index and files are never touched.

Whether an answer came from the cache is seen two ways: the modules a run imported, and
forged entries (valid, with their checksum) that only a run reading the cache would print.
"""

import json
import os
import shutil
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from git_teddy.planning.context_cache import _checksum
from testing.commands import Teddy, git, imported_modules, run
from testing.plans import plan_text, read

HEAVY = ("click", "pydantic", "dulwich", "yaml", "tiktoken")
FORGED_TEXT = "FORGED"
FORGED_JSON = '{"forged": true}'
TEAM = "app.py\ndocs/*.md\nREADME.md\n"


def cache_dir(repo: Path) -> Path:
    return repo / ".git" / "teddy" / "context-cache"


def entries(repo: Path) -> list[Path]:
    return sorted(cache_dir(repo).glob("*.json"))


def context(teddy: Teddy, repo: Path, *args: str) -> str:
    return teddy.ok(repo, "context", *args).stdout


def settle(teddy: Teddy, repo: Path, *args: str) -> str:
    """Run until an answer is stored: a run that had to load a tokenizer stores none."""
    for _ in range(3):
        out = context(teddy, repo, *args)
        if entries(repo):
            return out
    raise AssertionError("no answer was ever stored")


def full(teddy: Teddy, repo: Path, *args: str) -> str:
    """What the full command prints: with no stored answer there is nothing to serve."""
    shutil.rmtree(cache_dir(repo), ignore_errors=True)
    return context(teddy, repo, *args)


def traced(repo: Path, env: dict[str, str], *args: str) -> tuple[str, set[str]]:
    """`git teddy context ARGS` run as the installed command runs, with the top-level
    packages it imported."""
    output, modules = imported_modules(repo, env, "context", *args)
    return output, {name.split(".")[0] for name in modules}


def forge(repo: Path) -> None:
    """Replace every stored answer by one no full run could print, checksum and all."""
    assert entries(repo)
    for path in entries(repo):
        entry = json.loads(path.read_text())
        entry.update(json=FORGED_JSON, text=FORGED_TEXT)
        fields = [entry[k] for k in ("key", "session", "marker", "json", "text")]
        entry["check"] = _checksum(fields)
        path.write_text(json.dumps(entry))


def project(repo: Path, env: dict[str, str]) -> str:
    """A project with team context (a path and a glob) and a session; its id."""
    (repo / "docs").mkdir()
    (repo / "docs" / "a.md").write_text("# A\n\nFirst doc.\n")
    (repo / ".teddy").mkdir()
    (repo / ".teddy" / "global.context").write_text("app.py\ndocs/*.md  # every doc\n")
    git(repo, env, "add", ".")
    git(repo, env, "commit", "-qm", "team context")
    return run(["git", "teddy", "new", "cached"], repo, env, check=True).stdout.strip()


# ---- served from the cache, identical ---------------------------------------------------------


def test_cached_answers_are_what_the_full_command_prints(
    repo: Path, teddy: Teddy, env: dict[str, str]
) -> None:
    session = project(repo, env)
    for args in ([], ["--json"], ["-s", session[:12], "--context-depth", "1"]):
        expected = full(teddy, repo, *args)
        settle(teddy, repo, *args)
        served, imported = traced(repo, env, *args)
        assert served == expected
        assert not imported & set(HEAVY), f"{args}: imported {imported & set(HEAVY)}"
    data = json.loads(traced(repo, env, "--session", session, "--json")[0])
    assert [r["resource"] for r in data["resources"]] == ["app.py", "docs/a.md"]
    resources = sum(r["tokens"] for r in data["resources"])
    assert resources > 0 and data["overview_tokens"] > 0  # the repository map counts too
    assert data["system_prompt_tokens"] > 0  # sent with every request: in the total too
    system = data["system_prompt_tokens"]
    assert data["total_tokens"] == resources + data["overview_tokens"] + system
    refused = teddy(repo, "context", "--json=x")  # not plainly given: click parses, refuses
    assert refused.returncode == 2 and "'--json' does not take a value" in refused.stderr


def test_a_first_count_is_not_stored_but_the_next_run_is(
    repo: Path, teddy: Teddy, env: dict[str, str]
) -> None:
    project(repo, env)
    first = context(teddy, repo, "--json")  # counted with a tokenizer loaded
    assert entries(repo) == []
    assert context(teddy, repo, "--json") == first  # every count from the token cache
    assert len(entries(repo)) == 1
    assert traced(repo, env, "--json")[0] == first


# ---- a change is seen at once -------------------------------------------------------------


def test_every_change_an_answer_depends_on_is_seen_at_once(
    repo: Path, teddy: Teddy, env: dict[str, str], tmp_path: Path
) -> None:
    session = project(repo, env)
    branch = f"teddy/{session}/main"
    current_file = repo / ".git" / "teddy-session"  # what `-s`, `new`, `resume` record
    fetched = "refs/remotes/origin/teddy/20261126-zzz/main"  # a teammate's, newer than ours
    git(repo, env, "remote", "add", "origin", str(tmp_path / "remote.git"))  # where it came from
    # A second conversation branch at the same tip: switching to it changes only the marker.
    git(repo, env, "branch", f"teddy/{session}/01-branch-01", branch)

    def commit_session_context() -> None:
        side = tmp_path / "side"
        git(repo, env, "worktree", "add", "-q", str(side), branch)
        (side / "session.context").write_text(".teddy/global.context\n")
        git(side, env, "commit", "-qam", "session context")
        git(repo, env, "worktree", "remove", str(side))

    def new_turn() -> None:
        (tmp_path / "plan.md").write_text(plan_text(read("app.py")))
        teddy.ok(repo, "plan", "-m", "look", "--from-file", str(tmp_path / "plan.md"))

    def switch_branch() -> None:
        # What `git teddy branch` leaves in the derived-state folder.
        marker = repo / ".git" / "teddy" / "sessions" / session / "branch"
        marker.parent.mkdir(parents=True, exist_ok=True)  # reading the marker makes no folder
        marker.write_text("01-branch-01\n")

    changes: list[tuple[str, Callable[[], object]]] = [
        ("an edited file", lambda: (repo / "app.py").write_text("print('edited')\n")),
        ("a new file a glob matches", lambda: (repo / "docs" / "b.md").write_text("# B\n")),
        ("the team's context", lambda: (repo / ".teddy" / "global.context").write_text(TEAM)),
        ("the session's context", commit_session_context),
        ("a new turn", new_turn),
        ("a setting", lambda: git(repo, env, "config", "teddy.maxResourceBytes", "10")),
        ("an environment variable", lambda: env.update(TEDDY_MAX_RESOURCE_BYTES="12")),
        ("the token cache", lambda: (repo / ".git" / "teddy" / "tokens.json").unlink()),
        ("the current branch", switch_branch),
        ("a fetched session", lambda: git(repo, env, "update-ref", fetched, branch)),
        ("this worktree's current session", lambda: current_file.write_text("20261126-zzz\n")),
    ]
    for name, change in changes:
        settle(teddy, repo, "--json")
        forge(repo)
        assert context(teddy, repo) == FORGED_TEXT + "\n", f"{name}: the cache is not in use"
        change()
        after = context(teddy, repo, "--json")
        assert FORGED_JSON not in after, f"{name}: a stale answer was served"
        assert after == full(teddy, repo, "--json"), name
    assert json.loads(after)["session"] == "20261126-zzz"  # taken up: no longer `session`

    # What the answer does not depend on leaves it cached: other remote branches, a commit
    # of the working tree as it is.
    settle(teddy, repo)
    forge(repo)
    git(repo, env, "update-ref", "refs/remotes/origin/feature", "HEAD")
    git(repo, env, "add", "-A")
    git(repo, env, "commit", "-qm", "everything")
    assert context(teddy, repo) == FORGED_TEXT + "\n"


def test_no_secret_is_written(repo: Path, teddy: Teddy, env: dict[str, str]) -> None:
    project(repo, env)
    env["TEDDY_API_KEY"] = "sk-test-0123456789abcdefSECRET"
    settle(teddy, repo)
    assert traced(repo, env)[0] == full(teddy, repo)
    settle(teddy, repo)
    for path in (repo / ".git" / "teddy").rglob("*"):
        assert not path.is_file() or b"SECRET" not in path.read_bytes(), path


def test_urls_are_never_served_from_the_cache(
    repo: Path, teddy: Teddy, env: dict[str, str], server: str
) -> None:
    project(repo, env)
    (repo / ".teddy" / "global.context").write_text(f"app.py\n{server}/notes.txt\n")
    git(repo, env, "config", "teddy.web.allowPrivate", "true")  # the test server's address
    context(teddy, repo, "--allow-url", f"{server}/notes.txt")
    outputs = [json.loads(context(teddy, repo, "--json")) for _ in range(3)]
    assert entries(repo) == []
    for data in outputs:
        assert data["resources"][1]["resource"] == f"{server}/notes.txt"
        assert data["resources"][1]["tokens"] > 0 and data["resources"][1]["note"] is None


# ---- robustness ----------------------------------------------------------------------------


def test_damaged_entries_are_misses(repo: Path, teddy: Teddy, env: dict[str, str]) -> None:
    project(repo, env)
    expected = settle(teddy, repo, "--json")
    (entry,) = entries(repo)
    stored = json.loads(entry.read_text())
    damaged = [
        b"{not json",
        b"",
        json.dumps({**stored, "json": FORGED_JSON}).encode(),  # the checksum no longer fits
        json.dumps([stored]).encode(),
        json.dumps({**stored, "session": "../x"}).encode(),
    ]
    for data in damaged:
        entry.write_bytes(data)
        assert context(teddy, repo, "--json") == expected, data[:40]
        assert json.loads(entry.read_text())["check"] == stored["check"]  # stored anew


def test_concurrent_runs_agree_and_leave_whole_entries(
    repo: Path, teddy: Teddy, env: dict[str, str]
) -> None:
    project(repo, env)
    expected = settle(teddy, repo, "--json")
    shutil.rmtree(cache_dir(repo))
    for _ in range(2):  # every run full, then every run served (or racing a writer)
        with ThreadPoolExecutor(6) as pool:
            outputs = list(pool.map(lambda _: context(teddy, repo, "--json"), range(6)))
        assert outputs == [expected] * 6
    assert [p.name for p in cache_dir(repo).iterdir() if not p.name.endswith(".json")] == []
    for path in entries(repo):
        json.loads(path.read_text())
    assert traced(repo, env, "--json")[0] == expected


def test_the_users_index_and_files_are_untouched(
    repo: Path, teddy: Teddy, env: dict[str, str]
) -> None:
    project(repo, env)
    (repo / "app.py").write_text("print('staged')\n")
    git(repo, env, "add", "app.py")
    (repo / "app.py").write_text("print('unstaged')\n")
    (repo / "docs" / "new.md").write_text("# untracked\n")
    index = repo / ".git" / "index"

    def state() -> tuple[str, bytes, int]:
        # Without optional locks, status itself never rewrites the index.
        status = run(["git", "status", "--short"], repo, {**env, "GIT_OPTIONAL_LOCKS": "0"})
        return status.stdout, index.read_bytes(), index.stat().st_mtime_ns

    before = state()
    settle(teddy, repo, "--json")
    served, imported = traced(repo, env, "--json")
    assert "dulwich" not in imported
    assert "docs/new.md" in served  # the snapshot saw the untracked file
    assert state() == before
    assert "M  app.py" not in before[0] and "MM app.py" in before[0]
    assert (repo / "app.py").read_text() == "print('unstaged')\n"
    assert list((repo / ".git" / "teddy" / "tmp").iterdir()) == []  # no temporary index left


def test_errors_are_reported_as_before(
    repo: Path, teddy: Teddy, env: dict[str, str], tmp_path: Path
) -> None:
    outside = tmp_path / "not-a-repo"
    outside.mkdir()
    result = teddy(outside, "context")
    assert result.returncode == 1
    assert result.stderr.startswith("error: not a git repository")
    assert "hint: " in result.stderr
    no_session = teddy(repo, "context", "--json")
    assert no_session.returncode == 1 and "no sessions" in no_session.stderr
    project(repo, env)
    settle(teddy, repo)
    for args in (["--context-depth", "-1"], ["--bogus"], ["-s"]):
        refused = teddy(repo, "context", *args)
        assert refused.returncode == 2 and "error: " in refused.stderr, args
    unknown = teddy(repo, "context", "-s", "nosuchsession")
    assert unknown.returncode == 1 and "no session matches" in unknown.stderr
    assert os.listdir(cache_dir(repo))  # errors stored nothing, and removed nothing
