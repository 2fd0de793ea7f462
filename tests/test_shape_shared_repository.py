"""Repository shapes of issue 13: core.sharedRepository. Run under umask 077, every file and
folder git-teddy creates in the git dir (its derived state, the objects and refs it writes)
gets the mode git would give it: group readable (and writable with `group`), folders setgid.
Without the setting the modes stay what the umask gives."""

import os
import stat
from pathlib import Path

import pytest

from testing.commands import Result, Teddy, git, run
from testing.plans import WORKTREE, create, edit
from testing.sessions import start


class UmaskTeddy(Teddy):
    """`git teddy` run from a shell whose umask is 077, as a cautious user's is."""

    def __call__(self, cwd: Path, *args: str, input: str | None = None) -> Result:
        shell = ["sh", "-c", 'umask 077; exec git teddy "$@"', "sh", *args]
        return run(shell, cwd=cwd, env=self.env, input=input)


def git_paths(git_dir: Path) -> dict[str, int]:
    """Every path under the git dir -> its mode (the scratch worktrees, working trees git
    checks out with the umask, live in the user's cache since issue 30)."""
    found = {}
    for folder, dirs, files in os.walk(git_dir):
        for name in [*dirs, *files]:
            path = Path(folder) / name
            rel = path.relative_to(git_dir).as_posix()
            found[rel] = path.lstat().st_mode
    return found


def a_whole_round(repo: Path, teddy: Teddy) -> str:
    """new, plan, execute, restore, list (the index), context (the cache, stored then served)."""
    (repo / "a.txt").write_text("one\n")
    # the EXECUTE runs the plan in a pooled worktree: its locks get their modes checked too
    session = start(repo, teddy, create("b.txt", "b\n"), edit("a.txt", "one", "two"), WORKTREE)
    teddy.ok(repo, "execute", "-y")
    teddy.ok(repo, "restore", "01")
    teddy.ok(repo, "list")
    teddy.ok(repo, "context")
    teddy.ok(repo, "context")
    return session


def written_by_teddy(repo: Path, env: dict, teddy: Teddy) -> dict[str, int]:
    """The modes of what the round created in the git dir (objects, refs, logs, derived state)."""
    git_dir = repo / ".git"
    before = git_paths(git_dir)
    a_whole_round(repo, UmaskTeddy(teddy.env))
    after = git_paths(git_dir)
    new = {rel: mode for rel, mode in after.items() if rel not in before}
    assert any(rel.startswith("teddy/") for rel in new)
    assert any(rel.startswith("objects/") for rel in new)
    assert any(rel.startswith("refs/heads/teddy/") for rel in new)
    assert any(rel.startswith("refs/teddy/keep/") for rel in new)
    for expected in ("teddy/index.toon", "teddy/tokens.json", "teddy/context-cache", "teddy/tmp"):
        assert expected in new, sorted(new)
    git(repo, env, "fsck", "--strict", "--no-progress")
    return new


def problems(modes: dict[str, int], group_writes: bool) -> list[str]:
    """The paths whose modes are not what git gives under core.sharedRepository."""
    wrong = []
    for rel, mode in sorted(modes.items()):
        if stat.S_ISLNK(mode) or rel.startswith("worktrees/"):  # git's own, as git makes it
            continue
        bits = stat.S_IMODE(mode)
        ok = bits & stat.S_IRGRP and not bits & stat.S_IWOTH
        if stat.S_ISDIR(mode):
            ok = ok and bits & stat.S_IXGRP and bits & stat.S_ISGID
        if group_writes and bits & stat.S_IWUSR:
            ok = ok and bits & stat.S_IWGRP
        if not group_writes:
            ok = ok and not bits & stat.S_IWGRP and not bits & 0o007
        if not ok:
            wrong.append(f"{rel} {bits:04o}")
    return wrong


@pytest.mark.parametrize("value", ["group", "true", "all"])
def test_group_shared_repository_gets_group_modes(
    repo: Path, env: dict, teddy: Teddy, value: str
) -> None:
    git(repo, env, "config", "core.sharedRepository", value)
    new = written_by_teddy(repo, env, teddy)
    assert problems(new, group_writes=True) == []
    assert stat.S_IMODE(new["teddy/index.toon"]) & 0o060 == 0o060
    everybody = value == "all"
    assert bool(stat.S_IMODE(new["teddy/index.toon"]) & stat.S_IROTH) == everybody


def test_an_octal_mode_is_the_exact_mode(repo: Path, env: dict, teddy: Teddy) -> None:
    git(repo, env, "config", "core.sharedRepository", "0640")
    new = written_by_teddy(repo, env, teddy)
    assert problems(new, group_writes=False) == []
    assert stat.S_IMODE(new["teddy/tokens.json"]) == 0o640
    assert stat.S_IMODE(new["teddy/context-cache"]) == 0o2750


def test_without_the_setting_the_umask_decides(repo: Path, env: dict, teddy: Teddy) -> None:
    new = written_by_teddy(repo, env, teddy)
    derived = {rel: mode for rel, mode in new.items() if rel.startswith("teddy/")}
    assert stat.S_IMODE(derived.pop("teddy/hooks/post-commit")) == 0o755  # as before
    shared = [rel for rel, mode in derived.items() if stat.S_IMODE(mode) & 0o2077]
    assert shared == []  # 600 and 700, as before: nothing is chmodded


def test_a_mode_that_locks_the_owner_out_is_refused(repo: Path, env: dict, teddy: Teddy) -> None:
    # git refuses it too (every git command dies), so git teddy cannot get that far either.
    git(repo, env, "config", "core.sharedRepository", "0060")
    result = teddy(repo, "new", "work")
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    assert not (repo / ".git" / "teddy").exists()
    assert git(repo, env, "for-each-ref", "refs/heads/teddy") == ""
