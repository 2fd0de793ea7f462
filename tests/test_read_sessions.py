"""Reading sessions back: list, show, log and bad input, through the executable."""

import json
from pathlib import Path

from testing.commands import Teddy, git


def test_list_text_and_empty(repo: Path, teddy: Teddy) -> None:
    assert "no sessions yet" in teddy.ok(repo, "list").stdout
    assert json.loads(teddy.ok(repo, "list", "--json").stdout) == []
    teddy.ok(repo, "new", "one")
    lines = teddy.ok(repo, "list").stdout.splitlines()
    assert lines[0].split() == ["SESSION", "STATUS", "STARTED", "AUTHOR", "TURNS", "COST", "TITLE"]
    # `*`: this worktree's current session, as `git branch` marks HEAD; no turn, no title yet
    started = ["20261126-one", "active", "2026-11-26T12:00:00+00:00", "Test", "Author", "0"]
    assert lines[1].split() == ["*", *started, "$0.0000", "-"]


def test_show_defaults_to_latest_and_accepts_prefixes(repo: Path, teddy: Teddy, env: dict) -> None:
    teddy.ok(repo, "new", "alpha")
    env["GIT_COMMITTER_DATE"] = "2026-11-26T13:00:00+00:00"
    teddy.ok(repo, "new", "beta")
    assert json.loads(teddy.ok(repo, "show", "--json").stdout)["id"] == "20261126-beta"
    assert json.loads(teddy.ok(repo, "show", "alp", "--json").stdout)["id"] == "20261126-alpha"
    assert teddy.ok(repo, "show", "20261126-al").stdout.split()[1] == "20261126-alpha"
    text = teddy.ok(repo, "show", "alpha").stdout
    assert "git log   teddy/20261126-alpha/main" in text


def test_unknown_and_ambiguous_sessions(repo: Path, teddy: Teddy) -> None:
    result = teddy(repo, "show")
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        "error: there are no sessions in this repository yet",
        "hint: start one with `git teddy new <name>`",
    ]
    teddy.ok(repo, "new", "auth-api")
    teddy.ok(repo, "new", "auth-ui")
    for command in (["show", "nothing"], ["log", "nothing"]):
        result = teddy(repo, *command)
        assert result.returncode == 1
        assert result.stderr.startswith("error: no session matches 'nothing'\nhint: ")
    result = teddy(repo, "show", "auth")
    assert result.returncode == 1
    assert "ambiguous" in result.stderr and "20261126-auth-api, 20261126-auth-ui" in result.stderr
    result = teddy(repo, "show", "auth-api/07")
    assert result.returncode == 1
    assert result.stderr.startswith("error: session 20261126-auth-api has no turn '07'")


def test_outside_a_repository(tmp_path: Path, teddy: Teddy, env: dict) -> None:
    env["GIT_CEILING_DIRECTORIES"] = str(tmp_path)
    folder = tmp_path / "plain"
    folder.mkdir()
    for command in (["new", "x"], ["list"], ["show"], ["log"]):
        result = teddy(folder, *command)
        assert result.returncode == 1, command
        assert result.stderr.startswith("error: not a git repository"), result.stderr
        assert "hint: " in result.stderr


def test_bare_repository(tmp_path: Path, teddy: Teddy, env: dict) -> None:
    bare = tmp_path / "bare.git"
    git(tmp_path, env, "init", "-q", "--bare", str(bare))
    result = teddy(bare, "new", "x")
    assert result.returncode == 1
    assert result.stderr.startswith("error: this is a bare repository")
    assert git(bare, env, "for-each-ref") == ""
