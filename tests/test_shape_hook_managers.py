"""Repository shapes around the hooks (issue 13): git-teddy's blocks beside husky and
pre-commit, under a core.hooksPath shared through the global or system config, and after the
Python they name is gone. Every case commits or pushes through the real hooks with real git.

husky cannot be installed here (no npm), so its layout is built by hand as husky 9 writes
it: `core.hooksPath=.husky/_`, a `.gitignore` of `*`, the runner `h` and one two-line file per
hook that sources it; the runner runs the user's `.husky/<name>` with `sh -e` when it exists.
`npm install` is simulated by writing `.husky/_` again the same way. pre-commit is the real
one (a test dependency)."""

import shutil
import sys
from pathlib import Path

import pytest

from testing.commands import Teddy, git, run
from testing.plans import create
from testing.sessions import start

BEGIN = "# >>> git-teddy >>>"
FAKE_TOKEN = "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"  # the shape of a GitHub token
SKIPPED = (
    "git-teddy hook skipped: {python} not found; "
    "reinstall git-teddy or run git teddy hooks uninstall"
)

# husky 9's hook list and what it writes for each (see husky's index.js): no trailing newline.
HUSKY_HOOKS = [
    *("pre-commit", "pre-merge-commit", "prepare-commit-msg", "commit-msg", "post-commit"),
    *("applypatch-msg", "pre-applypatch", "post-applypatch", "pre-rebase", "post-rewrite"),
    *("post-checkout", "post-merge", "pre-push", "pre-auto-gc"),
]
HUSKY_HOOK = '#!/usr/bin/env sh\n. "$(dirname "$0")/h"'
# What husky 9's runner does, written for these tests: run `.husky/<name>` with `sh -e` if it
# is there, and fail the hook with its status.
HUSKY_RUNNER = """#!/usr/bin/env sh
n=$(basename "$0")
s=$(dirname "$(dirname "$0")")/$n
[ ! -f "$s" ] && exit 0
[ "${HUSKY-}" = "0" ] && exit 0
sh -e "$s" "$@"
c=$?
[ $c != 0 ] && echo "husky - $n script failed (code $c)"
exit $c
"""
# The user's own husky scripts, tracked in git: no shebang, run by husky with `sh -e`.
USER_PRE_COMMIT = 'echo "user pre-commit ran" >> "$HOOK_LOG"\n'
USER_PRE_PUSH = 'echo "user pre-push ran" >> "$HOOK_LOG"\ncat >> "$HOOK_LOG.stdin"\n'


def fsck_clean(repo: Path, env: dict) -> None:
    git(repo, env, "fsck", "--strict", "--no-progress")


def blocks(path: Path) -> int:
    return path.read_text().count(BEGIN) if path.exists() else 0


def trailers(repo: Path, env: dict) -> list[str]:
    out = git(repo, env, "log", "-1", "--format=%(trailers:only,unfold)")
    # Teddy-Snapshot beside them: tests/test_shape_landing.py
    return [line for line in out.splitlines() if line.startswith(("Teddy-Session", "Teddy-Turn"))]


def status_of(repo: Path, teddy: Teddy, name: str) -> str:
    lines = teddy.ok(repo, "hooks", "status").stdout.splitlines()
    return next(line for line in lines if line.startswith(f"{name}: "))


def leak_into(repo: Path, env: dict, ref: str) -> None:
    """Commit a file holding a token onto `ref` with plumbing, as no git-teddy command would."""
    tip = git(repo, env, "rev-parse", ref).strip()
    blob = run(["git", "hash-object", "-w", "--stdin"], repo, env, input=f"t: {FAKE_TOKEN}\n")
    listing = git(repo, env, "ls-tree", tip) + f"100644 blob {blob.stdout.strip()}\tleak.txt\n"
    tree = run(["git", "mktree"], repo, env, input=listing, check=True).stdout.strip()
    commit = git(repo, env, "commit-tree", tree, "-p", tip, "-m", "by hand").strip()
    git(repo, env, "update-ref", ref, commit, tip)


@pytest.fixture
def hook_env(env: dict[str, str], tmp_path: Path) -> dict[str, str]:
    env["HOOK_LOG"] = str(tmp_path / "hook.log")
    return env


@pytest.fixture
def remote(repo: Path, env: dict[str, str], tmp_path: Path) -> Path:
    bare = tmp_path / "remote.git"
    git(tmp_path, env, "init", "-q", "--bare", str(bare))
    git(repo, env, "remote", "add", "origin", str(bare))
    return bare


@pytest.fixture
def applied(repo: Path, teddy: Teddy) -> str:
    """A session whose turn 01 created x.txt, executed into the working tree."""
    session = start(repo, teddy, create("x.txt", "x\n"))
    teddy.ok(repo, "execute", "-y")
    return session


def log_lines(env: dict) -> list[str]:
    log = Path(env["HOOK_LOG"])
    return log.read_text().splitlines() if log.exists() else []


# ---- husky ---------------------------------------------------------------------------------


def husky_install(repo: Path, env: dict) -> None:
    """What `husky` (run by `npm install`'s prepare script) does: set the hooks path and
    write `.husky/_` again from scratch, whatever was in it."""
    git(repo, env, "config", "core.hooksPath", ".husky/_")
    folder = repo / ".husky" / "_"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    (folder / ".gitignore").write_text("*")
    (folder / "h").write_text(HUSKY_RUNNER)
    (folder / "h").chmod(0o755)
    for name in HUSKY_HOOKS:
        (folder / name).write_text(HUSKY_HOOK)
        (folder / name).chmod(0o755)
    (folder / "husky.sh").write_text('echo "husky - DEPRECATED"')


@pytest.fixture
def husky(repo: Path, hook_env: dict) -> Path:
    """A repository set up with husky 9: the user's tracked pre-commit and pre-push scripts."""
    husky_dir = repo / ".husky"
    husky_dir.mkdir()
    (husky_dir / "pre-commit").write_text(USER_PRE_COMMIT)
    (husky_dir / "pre-push").write_text(USER_PRE_PUSH)
    husky_install(repo, hook_env)
    git(repo, hook_env, "add", ".husky")
    git(repo, hook_env, "commit", "-qm", "husky")
    assert log_lines(hook_env) == ["user pre-commit ran"]  # husky's layout works
    Path(hook_env["HOOK_LOG"]).unlink()
    return husky_dir


def test_husky_the_block_goes_into_the_users_script_and_survives_npm_install(
    repo: Path, teddy: Teddy, hook_env: dict, husky: Path, applied: str, remote: Path
) -> None:
    env = hook_env
    out = teddy.ok(repo, "hooks", "install").stdout
    assert f"pre-push: installed ({husky / 'pre-push'})" in out
    assert f"prepare-commit-msg: installed ({husky / 'prepare-commit-msg'})" in out
    assert "note: .husky/pre-push is your husky script" in out
    assert "it is your file, commit it or keep the change local" in out
    assert (husky / "_" / "pre-push").read_text() == HUSKY_HOOK  # husky's file untouched
    assert (husky / "pre-push").read_text().endswith(USER_PRE_PUSH)

    husky_install(repo, env)  # the next `npm install`
    for name in ("prepare-commit-msg", "pre-push"):
        line = status_of(repo, teddy, name)
        assert line.startswith(f"{name}: installed ({husky / name}; run by husky from .husky/_/")

    # A commit of the applied change: the block ran (trailers), and so did the user's hook.
    git(repo, env, "add", "x.txt")
    git(repo, env, "commit", "-qm", "add x")
    assert trailers(repo, env) == [f"Teddy-Session: {applied}", "Teddy-Turn: 01"]
    assert log_lines(env) == ["user pre-commit ran"]

    # pre-push under husky's `sh -e`: the user's script still gets git's ref lines, and a
    # session ref holding a secret is refused by the block.
    git(repo, env, "push", "-q", "origin", "main")
    head = git(repo, env, "rev-parse", "HEAD").strip()
    stdin = Path(env["HOOK_LOG"] + ".stdin").read_text()
    assert stdin == f"refs/heads/main {head} refs/heads/main {'0' * 40}\n"
    ref = f"refs/heads/teddy/{applied}/main"
    leak_into(repo, env, ref)
    refused = run(["git", "push", "origin", f"{ref}:{ref}"], repo, env)
    assert refused.returncode != 0
    assert f"error: {ref}: leak.txt:1 contains a secret (github-token)" in refused.stderr
    assert run(["git", "rev-parse", "-q", "--verify", ref], remote, env).returncode != 0

    # Uninstall gives the user's script back byte for byte and removes the one it created.
    teddy.ok(repo, "hooks", "uninstall")
    assert (husky / "pre-push").read_text() == USER_PRE_PUSH
    assert not (husky / "prepare-commit-msg").exists()
    assert git(repo, env, "status", "--porcelain", ".husky") == ""
    assert status_of(repo, teddy, "pre-push").startswith("pre-push: not installed")
    fsck_clean(repo, env)


def test_husky_a_block_left_in_the_generated_folder_is_reported_and_moved(
    repo: Path, teddy: Teddy, hook_env: dict, husky: Path
) -> None:
    env = hook_env
    # An older git-teddy put its block into husky's generated file.
    generated = husky / "_" / "prepare-commit-msg"
    git(repo, env, "config", "core.hooksPath", ".old-hooks")
    teddy.ok(repo, "hooks", "install", "prepare-commit-msg")
    old = repo / ".old-hooks" / "prepare-commit-msg"
    block = old.read_text().removeprefix("#!/bin/sh\n")
    generated.write_text(HUSKY_HOOK.replace("\n", "\n" + block, 1))
    shutil.rmtree(repo / ".old-hooks")
    git(repo, env, "config", "core.hooksPath", ".husky/_")

    line = status_of(repo, teddy, "prepare-commit-msg")
    assert line.startswith("prepare-commit-msg: outdated")
    assert f"the block is in {generated}, which its hook manager rewrites" in line

    out = teddy.ok(repo, "hooks", "install", "prepare-commit-msg").stdout
    assert f"removed the block from {generated}" in out
    assert generated.read_text() == HUSKY_HOOK
    assert blocks(husky / "prepare-commit-msg") == 1
    assert status_of(repo, teddy, "prepare-commit-msg").startswith("prepare-commit-msg: installed")
    (repo / "app.py").write_text("print('changed')\n")
    result = run(["git", "commit", "-qam", "by hand"], repo, env, check=True)
    assert "husky" not in result.stdout + result.stderr  # the user's script ran clean
    fsck_clean(repo, env)


def test_husky_not_set_up_yet_install_says_to_install_again_after_it(
    repo: Path, teddy: Teddy, hook_env: dict
) -> None:
    env = hook_env
    (repo / ".husky").mkdir()  # a fresh clone: husky's scripts, but no `npm install` yet
    (repo / ".husky" / "pre-push").write_text(USER_PRE_PUSH)
    out = teddy.ok(repo, "hooks", "install").stdout
    assert f"pre-push: installed ({repo / '.git' / 'hooks' / 'pre-push'})" in out
    assert "note: this repository uses husky, which is not set up here yet" in out
    husky_install(repo, env)  # `npm install`: git now runs .husky/_, where no block is
    assert status_of(repo, teddy, "pre-push").startswith("pre-push: not installed")
    teddy.ok(repo, "hooks", "install")
    assert status_of(repo, teddy, "pre-push").startswith("pre-push: installed")
    assert blocks(repo / ".husky" / "pre-push") == 1
    fsck_clean(repo, env)


# ---- pre-commit ----------------------------------------------------------------------------

USER_PREPARE = """#!/bin/sh
echo "user prepare-commit-msg ran" >> "$HOOK_LOG"
"""


@pytest.fixture
def pre_commit(repo: Path, hook_env: dict, tmp_path: Path) -> list[str]:
    """The real pre-commit, with no hooks of its own and its cache in the test's folder."""
    exe = shutil.which("pre-commit", path=str(Path(sys.executable).parent))
    assert exe, "pre-commit is a test dependency (run `make .venv/.installed-stamp`)"
    hook_env["PRE_COMMIT_HOME"] = str(tmp_path / "pre-commit-home")
    (repo / ".pre-commit-config.yaml").write_text("repos: []\n")
    git(repo, hook_env, "add", ".pre-commit-config.yaml")
    git(repo, hook_env, "commit", "-qm", "pre-commit config")
    return [exe, "install", "-t", "prepare-commit-msg", "-t", "pre-push"]


def test_pre_commit_migration_mode_keeps_the_block_in_the_legacy_hook(
    repo: Path,
    teddy: Teddy,
    hook_env: dict,
    pre_commit: list[str],
    applied: str,
    remote: Path,
) -> None:
    env = hook_env
    hooks = repo / ".git" / "hooks"
    (hooks / "prepare-commit-msg").write_text(USER_PREPARE)
    (hooks / "prepare-commit-msg").chmod(0o755)
    teddy.ok(repo, "hooks", "install")
    migrated = run(pre_commit, repo, env, check=True).stdout  # moves both hooks aside
    assert "Running in migration mode" in migrated
    assert blocks(hooks / "prepare-commit-msg") == 0

    for name in ("prepare-commit-msg", "pre-push"):
        line = status_of(repo, teddy, name)
        assert line.startswith(f"{name}: installed ({hooks / name}.legacy; via pre-commit's")
    out = teddy.ok(repo, "hooks", "install").stdout
    assert "prepare-commit-msg: already installed" in out
    assert "pre-push: already installed" in out
    assert blocks(hooks / "prepare-commit-msg") == blocks(hooks / "pre-push") == 0
    assert blocks(hooks / "prepare-commit-msg.legacy") == 1

    git(repo, env, "add", "x.txt")
    git(repo, env, "commit", "-qm", "add x")
    assert trailers(repo, env) == [f"Teddy-Session: {applied}", "Teddy-Turn: 01"]
    assert log_lines(env) == ["user prepare-commit-msg ran"]
    ref = f"refs/heads/teddy/{applied}/main"
    leak_into(repo, env, ref)
    refused = run(["git", "push", "origin", f"{ref}:{ref}"], repo, env)
    assert refused.returncode != 0
    assert f"error: {ref}: leak.txt:1 contains a secret (github-token)" in refused.stderr

    out = teddy.ok(repo, "hooks", "uninstall").stdout
    assert (hooks / "prepare-commit-msg.legacy").read_text() == USER_PREPARE
    assert not (hooks / "pre-push.legacy").exists()  # it held only git-teddy's block
    assert "pre-push: removed (the file held nothing else)" in out
    assert status_of(repo, teddy, "prepare-commit-msg").startswith(
        "prepare-commit-msg: not installed"
    )
    git(repo, env, "push", "-q", "--no-verify", "origin", "main")
    git(repo, env, "push", "-q", "origin", f"{ref}:{ref}")  # no block: the push goes
    (repo / "app.py").write_text("print('changed')\n")
    git(repo, env, "commit", "-qam", "by hand")
    assert trailers(repo, env) == []
    assert log_lines(env) == ["user prepare-commit-msg ran"] * 2  # still run by pre-commit
    fsck_clean(repo, env)


def test_installed_after_pre_commit_the_block_goes_into_the_legacy_hook(
    repo: Path, teddy: Teddy, hook_env: dict, pre_commit: list[str], applied: str
) -> None:
    env = hook_env
    hooks = repo / ".git" / "hooks"
    run(pre_commit, repo, env, check=True)
    generated = (hooks / "prepare-commit-msg").read_bytes()
    out = teddy.ok(repo, "hooks", "install").stdout
    assert f"prepare-commit-msg: installed ({hooks / 'prepare-commit-msg'}.legacy)" in out
    assert "note: pre-commit owns" in out
    assert (hooks / "prepare-commit-msg").read_bytes() == generated
    run(pre_commit, repo, env, check=True)  # pre-commit installed again keeps the legacy hook
    git(repo, env, "add", "x.txt")
    git(repo, env, "commit", "-qm", "add x")
    assert trailers(repo, env) == [f"Teddy-Session: {applied}", "Teddy-Turn: 01"]
    teddy.ok(repo, "hooks", "uninstall")
    assert sorted(p.name for p in hooks.iterdir() if not p.name.endswith(".sample")) == [
        "pre-push",
        "prepare-commit-msg",
    ]
    fsck_clean(repo, env)


# ---- a hooks path shared through the global or system config ------------------------------


def shared_hooks_config(env: dict, scope: str, folder: Path) -> str:
    """Set core.hooksPath in the global or system config; returns that config file."""
    if scope == "system":
        config = Path(env["HOME"]) / "system-gitconfig"
        env.pop("GIT_CONFIG_NOSYSTEM")
        env["GIT_CONFIG_SYSTEM"] = str(config)
    else:
        config = Path(env["GIT_CONFIG_GLOBAL"])
    git(Path(env["HOME"]), env, "config", "--file", str(config), "core.hooksPath", str(folder))
    return str(config)


@pytest.mark.parametrize("scope", ["global", "system"])
def test_a_shared_hooks_path_is_refused_without_the_flag(
    repo: Path, teddy: Teddy, env: dict, applied: str, tmp_path: Path, scope: str
) -> None:
    folder = tmp_path / "shared-hooks"
    config = shared_hooks_config(env, scope, folder)
    for command in ("install", "uninstall"):
        refused = teddy(repo, "hooks", command)
        assert refused.returncode == 1
        assert (
            f"error: core.hooksPath is set in your {scope} git config ({config}) to {folder}"
            in refused.stderr
        )
        assert "hint: pass --shared-hooks-path" in refused.stderr
        assert "Traceback" not in refused.stderr
    assert not folder.exists()  # refused before writing anything

    out = teddy.ok(repo, "hooks", "install", "--shared-hooks-path").stdout
    assert f"prepare-commit-msg: installed ({folder / 'prepare-commit-msg'})" in out
    line = status_of(repo, teddy, "prepare-commit-msg")
    assert f"shared: core.hooksPath from your {scope} git config ({config})" in line
    git(repo, env, "add", "x.txt")
    git(repo, env, "commit", "-qm", "add x")
    assert trailers(repo, env) == [f"Teddy-Session: {applied}", "Teddy-Turn: 01"]

    # Another repository sharing the folder: the block runs there and does nothing.
    other = tmp_path / "other"
    git(tmp_path, env, "init", "-q", str(other))
    (other / "f.txt").write_text("f\n")
    git(other, env, "add", "f.txt")
    done = run(["git", "commit", "-qm", "f"], other, env, check=True)
    assert done.stderr == ""
    fsck_clean(other, env)

    teddy.ok(repo, "hooks", "uninstall", "--shared-hooks-path")
    assert not (folder / "prepare-commit-msg").exists()
    fsck_clean(repo, env)


def test_a_relative_global_hooks_path_is_each_repositorys_own(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    git(repo, env, "config", "--global", "core.hooksPath", ".githooks")
    out = teddy.ok(repo, "hooks", "install").stdout
    assert f"pre-push: installed ({repo / '.githooks' / 'pre-push'})" in out
    assert "shared" not in teddy.ok(repo, "hooks", "status").stdout
    fsck_clean(repo, env)


# ---- the interpreter the block names is gone -----------------------------------------------


def throwaway_venv(folder: Path) -> Path:
    """A virtual environment whose python runs git-teddy (the tests' own packages), to be
    deleted as `pipx uninstall` deletes git-teddy's."""
    venv = Path(sys.prefix)
    site = Path(next(venv.glob("lib/python3*/site-packages")))
    (folder / "bin").mkdir(parents=True)
    (folder / site.parent.relative_to(venv)).mkdir(parents=True)
    (folder / site.relative_to(venv)).symlink_to(site)
    shutil.copy(venv / "pyvenv.cfg", folder / "pyvenv.cfg")
    python = folder / "bin" / "python"
    python.symlink_to(Path(sys.executable).resolve())
    return python


def test_a_hook_whose_python_is_gone_skips_with_one_line(
    repo: Path, hook_env: dict, applied: str, remote: Path, tmp_path: Path
) -> None:
    env = hook_env
    python = throwaway_venv(tmp_path / "pipx-venv")
    hooks = repo / ".git" / "hooks"
    (hooks / "prepare-commit-msg").write_text(USER_PREPARE)  # the rest of the hook
    (hooks / "prepare-commit-msg").chmod(0o755)
    run([str(python), "-m", "git_teddy", "hooks", "install"], repo, env, check=True)
    assert f"{python} -I -m git_teddy" in (hooks / "pre-push").read_text()

    shutil.rmtree(tmp_path / "pipx-venv")  # `pipx uninstall git-teddy`
    git(repo, env, "add", "x.txt")
    done = run(["git", "commit", "-qm", "add x"], repo, env)
    assert done.returncode == 0, done.stderr
    assert done.stderr == SKIPPED.format(python=python) + "\n"
    assert log_lines(env) == ["user prepare-commit-msg ran"]
    assert trailers(repo, env) == []

    ref = f"refs/heads/teddy/{applied}/main"
    pushed = run(["git", "push", "-q", "origin", f"{ref}:{ref}"], repo, env)
    assert pushed.returncode == 0, pushed.stderr
    assert pushed.stderr == SKIPPED.format(python=python) + "\n"
    assert git(remote, env, "rev-parse", ref) == git(repo, env, "rev-parse", ref)
    fsck_clean(repo, env)
