"""Team transfer (issue 24 items 3 and 6): `git teddy push` and `fetch` through a remote
served by `git daemon` on 127.0.0.1, by a remote's name, a URL or a path, as git takes them;
remote names that look like options refused before git sees them (the command they carry
never runs); a fetch that fails or is killed leaves nothing half-written, and the next one
finishes the work."""

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from testing.commands import Teddy, git
from testing.git_daemon import git_daemon
from testing.repos import bare_remote, refs
from testing.sessions import session_with_a_turn


@pytest.fixture
def remote(tmp_path: Path, repo: Path, env: dict) -> Path:
    return bare_remote(tmp_path, repo, env)


@pytest.fixture
def served(remote: Path, env: dict) -> Iterator[str]:
    """The URL of `remote` as `git daemon` serves it (pushes enabled)."""
    with git_daemon(remote.parent, env) as base:
        yield f"{base}/{remote.name}"


def project_clone(source: str, tmp_path: Path, env: dict, name: str = "theirs") -> Path:
    there = tmp_path / name
    git(tmp_path, env, "clone", "-q", "--no-local", source, str(there))
    return there


def listed_ids(repo: Path, teddy: Teddy) -> list[str]:
    return [s["id"] for s in json.loads(teddy.ok(repo, "list", "--json").stdout)]


def test_push_and_fetch_through_git_daemon_by_url_and_by_name(
    repo: Path, served: str, tmp_path: Path, env: dict, teddy: Teddy
) -> None:
    session = session_with_a_turn(repo, teddy)
    pushed = teddy.ok(repo, "push", served)  # a URL, not a configured remote
    assert f"pushed 1 session(s) to {served}: {session}" in pushed.stdout

    # A teammate's clone: its `origin` is the daemon's URL, fetched by name.
    theirs = project_clone(served, tmp_path, env)
    fetched = teddy.ok(theirs, "fetch", "origin")
    assert f"new: {session}" in fetched.stdout and "warning" not in fetched.stderr
    assert f"refs/remotes/origin/teddy/{session}/main" in refs(theirs, env)
    teddy.ok(theirs, "restore", "01", "-s", session)
    assert (theirs / "a.txt").read_text() == "from the model\n"
    again = teddy.ok(theirs, "fetch")  # nothing new: nothing written, nothing to say
    assert "new:" not in again.stdout and "warning" not in again.stderr

    # The same URL given as a URL: it is origin's, so its sessions are kept as origin's.
    assert "kept as the remote 'origin'" in teddy.ok(theirs, "fetch", served).stdout
    assert {ref.split("/")[2] for ref in refs(theirs, env, "refs/remotes")} == {"origin"}
    # Another clone without that remote: the URL's sessions get a name of their own.
    other = tmp_path / "other"
    git(tmp_path, env, "init", "-q", str(other))
    fetched = teddy.ok(other, "fetch", served)
    assert "kept as the remote 'remote'" in fetched.stdout
    assert refs(other, env, "refs/remotes/remote/teddy") == {
        f"refs/remotes/remote/teddy/{session}/main": git(
            repo, env, "rev-parse", f"teddy/{session}/main"
        ).strip()
    }
    assert listed_ids(other, teddy) == [session]
    teddy.ok(other, "show", f"{session}/01")


def test_push_and_fetch_by_path(
    repo: Path, remote: Path, tmp_path: Path, env: dict, teddy: Teddy
) -> None:
    session = session_with_a_turn(repo, teddy)
    elsewhere = tmp_path / "elsewhere.git"
    git(tmp_path, env, "init", "-q", "--bare", str(elsewhere))
    teddy.ok(repo, "push", "../elsewhere.git")  # relative to where the command runs
    assert f"refs/teddy/sessions/{session}/main" in refs(elsewhere, env)
    theirs = project_clone(str(remote), tmp_path, env)
    fetched = teddy.ok(theirs, "fetch", str(elsewhere))
    assert "kept as the remote 'elsewhere'" in fetched.stdout
    assert listed_ids(theirs, teddy) == [session]
    teddy.ok(theirs, "restore", "01", "-s", session)
    assert (theirs / "a.txt").read_text() == "from the model\n"


def test_neither_a_remote_nor_a_url_nor_a_path_is_refused(repo: Path, teddy: Teddy) -> None:
    refused = teddy(repo, "fetch", "nowhere")
    assert refused.returncode == 1 and "Traceback" not in refused.stderr
    assert "error: no remote named 'nowhere'" in refused.stderr
    assert "hint: " in refused.stderr and "URL" in refused.stderr


@pytest.mark.parametrize("command", ["fetch", "push"])
@pytest.mark.parametrize("option", ["--upload-pack", "--receive-pack", "--exec"])
def test_a_remote_that_looks_like_an_option_never_runs_its_command(
    repo: Path, remote: Path, tmp_path: Path, env: dict, teddy: Teddy, command: str, option: str
) -> None:
    """A remote named `--upload-pack=CMD` (configured so, or as teddy.remote) would make git
    run CMD if it were handed over as an argument: it is refused, and CMD never runs."""
    teddy.ok(repo, "new", "work")
    marker = tmp_path / "marker"
    name = f"{option}=touch {marker}"
    git(repo, env, "config", f"remote.{name}.url", str(remote))  # git remote add refuses it
    for args in ([command, "--", name], [command]):
        if args == [command]:
            git(repo, env, "config", "teddy.remote", name)
        refused = teddy(repo, *args)
        assert refused.returncode == 1, refused
        assert "Traceback" not in refused.stderr
        assert "starts with '-'" in refused.stderr and "hint: " in refused.stderr
        assert not marker.exists()


def test_a_fetch_killed_after_the_transfer_is_finished_by_the_next(
    repo: Path, remote: Path, tmp_path: Path, env: dict, teddy: Teddy
) -> None:
    """Killed once git wrote what it fetched (each ref complete) and before the keep refs
    were merged: list and show work; the next fetch merges them."""
    session = session_with_a_turn(repo, teddy)
    teddy.ok(repo, "push")
    theirs = project_clone(str(remote), tmp_path, env)
    teddy.killed_at("fetch.transferred", theirs, "fetch")
    git(theirs, env, "fsck", "--strict", "--no-dangling")
    keep = f"refs/teddy/keep/{session}"
    assert keep not in refs(theirs, env)  # not merged yet ...
    assert listed_ids(theirs, teddy) == [session]  # ... but nothing is half there
    teddy.ok(theirs, "show", f"{session}/01")
    teddy.ok(theirs, "fetch")
    assert refs(theirs, env)[keep] == refs(remote, env)[keep]
    teddy.ok(theirs, "restore", "01", "-s", session)
    assert (theirs / "a.txt").read_text() == "from the model\n"


def test_a_failed_fetch_writes_nothing(
    repo: Path, remote: Path, tmp_path: Path, env: dict, teddy: Teddy
) -> None:
    session = session_with_a_turn(repo, teddy)
    teddy.ok(repo, "push")
    theirs = project_clone(str(remote), tmp_path, env)
    before = refs(theirs, env)
    gone = tmp_path / "gone.git"
    remote.rename(gone)  # the remote disappears
    failed = teddy(theirs, "fetch")
    assert failed.returncode == 1 and "Traceback" not in failed.stderr
    assert "nothing was written" in failed.stderr and "hint: " in failed.stderr
    assert refs(theirs, env) == before
    assert listed_ids(theirs, teddy) == []
    gone.rename(remote)
    teddy.ok(theirs, "fetch")
    assert listed_ids(theirs, teddy) == [session]
