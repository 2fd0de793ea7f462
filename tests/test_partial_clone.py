"""Partial clones (`git clone --filter=blob:none`) from a remote served by `git daemon` on
127.0.0.1: `git teddy fetch` brings sessions with their own blobs, and list, show, diff,
restore and blame work on fetched sessions and on one's own, also once the remote is gone
(what a snapshot holds is fetched by git as it is needed, as the project's files are)."""

import json
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from testing.commands import Teddy, git
from testing.plans import create, edit
from testing.repos import bare_remote
from testing.sessions import start

READY_WAIT = 10.0  # seconds for git daemon to listen


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


@pytest.fixture
def served(tmp_path: Path, repo: Path, env: dict) -> Iterator[tuple[Path, str]]:
    """The bare remote of `repo`, allowing filters, served read-only by `git daemon` on
    127.0.0.1 for the test's length: (its folder, its git:// URL)."""
    remote = bare_remote(tmp_path, repo, env)
    git(remote, env, "config", "uploadpack.allowFilter", "true")
    port = _free_port()
    daemon = subprocess.Popen(
        [
            "git",
            "daemon",
            "--reuseaddr",
            "--export-all",
            "--listen=127.0.0.1",
            f"--port={port}",
            f"--base-path={tmp_path}",
            str(tmp_path),
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + READY_WAIT
        while not _listening(port):
            assert daemon.poll() is None and time.monotonic() < deadline, "git daemon did not start"
            time.sleep(0.05)
        yield remote, f"git://127.0.0.1:{port}/{remote.name}"
    finally:
        daemon.terminate()
        daemon.wait(timeout=10)


def _missing_blobs(clone: Path, env: dict, ref_pattern: str) -> list[str]:
    refs = git(clone, env, "for-each-ref", "--format=%(refname)", ref_pattern).split()
    listed = git(clone, env, "rev-list", "--objects", "--missing=print", *refs)
    return [line for line in listed.splitlines() if line.startswith("?")]


def test_fetch_into_a_partial_clone_then_read_everything(
    served: tuple[Path, str], repo: Path, teddy: Teddy, env: dict, tmp_path: Path
) -> None:
    _, url = served
    (repo / "app.py").write_text("print('hello')\nprint('mine')\n")
    session = start(repo, teddy, edit("app.py", "mine", "theirs, by the model"))
    teddy.ok(repo, "execute", "-y")
    teddy.ok(repo, "push")
    clone = tmp_path / "partial"
    git(tmp_path, env, "clone", "-q", "--filter=blob:none", url, str(clone))
    assert git(clone, env, "config", "remote.origin.promisor").strip() == "true"

    fetched = teddy.ok(clone, "fetch")
    assert session in fetched.stdout
    # The sessions' own contents came with the fetch; the project's files stay lazy.
    assert _missing_blobs(clone, env, "refs/remotes/origin/teddy/") == []
    listed = json.loads(teddy.ok(clone, "list", "--json").stdout)
    assert [(s["id"], s["turns"]) for s in listed] == [(session, 1)]
    shown = json.loads(teddy.ok(clone, "show", f"{session}/01", "--json").stdout)
    assert shown["files"]["user_prompt.txt"] == "do the work\n"
    diff = teddy.ok(clone, "diff", f"{session}/01").stdout
    assert "-print('mine')" in diff and "+print('theirs, by the model')" in diff
    teddy.ok(clone, "restore", "01", "-s", session)
    assert (clone / "app.py").read_text() == "print('hello')\nprint('theirs, by the model')\n"
    rows = [line.split(None, 2) for line in teddy.ok(clone, "blame", "app.py").stdout.splitlines()]
    assert {int(number): origin for number, origin, _ in rows} == {1: "commit:", 2: session + "/01"}

    mine = start(clone, teddy, create("mine.txt", "my own\n"))  # a session of one's own
    teddy.ok(clone, "execute", "-y")
    assert (clone / "mine.txt").read_text() == "my own\n"
    assert {s["id"] for s in json.loads(teddy.ok(clone, "list", "--json").stdout)} == {
        session,
        mine,
    }
    assert "mine.txt" in teddy.ok(clone, "diff", f"{mine}/01").stdout


def test_list_and_show_need_no_remote_after_a_fetch(
    served: tuple[Path, str], repo: Path, teddy: Teddy, env: dict, tmp_path: Path
) -> None:
    remote, url = served
    session = start(repo, teddy, create("b.txt", "bee\n"))
    teddy.ok(repo, "execute", "-y")
    teddy.ok(repo, "push")
    clone = tmp_path / "partial"
    git(tmp_path, env, "clone", "-q", "--filter=blob:none", url, str(clone))
    teddy.ok(clone, "fetch")
    remote.rename(tmp_path / "gone.git")  # the promisor remote can no longer be reached

    assert json.loads(teddy.ok(clone, "list", "--json").stdout)[0]["id"] == session
    shown = json.loads(teddy.ok(clone, "show", f"{session}/01", "--json").stdout)
    assert shown["files"]["user_prompt.txt"] == "do the work\n"
    assert "01" in teddy.ok(clone, "log", session).stdout
    # What the snapshots hold was never fetched: a command that needs it says so, no traceback.
    refused = teddy(clone, "restore", "01", "-s", session)
    assert refused.returncode == 1, refused.stderr
    assert "error: " in refused.stderr and "hint: " in refused.stderr
    assert "Traceback" not in refused.stderr
    assert "git could not fetch them from origin); nothing was changed" in refused.stderr
    assert not (clone / "b.txt").exists()
