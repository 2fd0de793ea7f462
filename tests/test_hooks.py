"""`git teddy hooks install|uninstall|status` and the hooks themselves, with real `git commit`
and `git push` (to a local bare remote) in real repositories."""

import os
import re
import stat
from pathlib import Path

import pytest

from testing.commands import Teddy, git, run
from testing.plans import create, plan_text
from testing.sessions import start

FAKE_TOKEN = "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"  # the shape of a GitHub token

USER_PREPARE = """#!/bin/sh
# the user's own hook: appends to the message, then hands over with exec
echo "user hook ran" >> "$HOOK_LOG"
printf '\\nUser-Hook: yes\\n' >> "$1"
exec sh -c 'exit "${USER_HOOK_STATUS:-0}"'
"""

USER_PRE_PUSH = """#!/usr/bin/env bash
cat > "$HOOK_LOG.stdin"
exit "${USER_HOOK_STATUS:-0}"
"""


def hook_path(repo: Path, env: dict[str, str], name: str) -> Path:
    return repo / git(repo, env, "rev-parse", "--git-path", f"hooks/{name}").strip()


def write_hook(path: Path, text: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    path.chmod(0o755)


def trailers(repo: Path, env: dict[str, str], rev: str = "HEAD") -> list[str]:
    out = git(repo, env, "log", "-1", "--format=%(trailers:only,unfold)", rev)
    # Teddy-Snapshot beside them: tests/test_shape_landing.py
    return [line for line in out.splitlines() if line.startswith(("Teddy-Session", "Teddy-Turn"))]


def break_interpreter(hook: Path, tmp_path: Path) -> None:
    """Point the recorded interpreter at a program that fails, as a removed venv would."""
    broken = tmp_path / "broken-python"
    write_hook(broken, "#!/bin/sh\necho 'broken interpreter' >&2\nexit 1\n")
    text = hook.read_text()
    new = re.sub(r"(TEDDY_HOOK_REF_PREFIX=\S+ )\S+( -I -m)", rf"\g<1>{broken}\g<2>", text)
    assert new != text
    hook.write_text(new)


@pytest.fixture
def hook_env(env: dict[str, str], tmp_path: Path) -> dict[str, str]:
    env["HOOK_LOG"] = str(tmp_path / "hook.log")
    return env


@pytest.fixture
def applied(repo: Path, teddy: Teddy) -> str:
    """A session whose turn 01 created x.txt, executed into the working tree."""
    session = start(repo, teddy, create("x.txt", "x\n"))
    teddy.ok(repo, "execute", "-y")
    assert (repo / "x.txt").read_text() == "x\n"
    return session


@pytest.fixture
def remote(repo: Path, env: dict[str, str], tmp_path: Path) -> Path:
    bare = tmp_path / "remote.git"
    git(tmp_path, env, "init", "-q", "--bare", str(bare))
    git(repo, env, "remote", "add", "origin", str(bare))
    return bare


# ---- install, uninstall, status ----------------------------------------------------------


def test_install_creates_executable_hooks_and_uninstall_deletes_them(
    repo: Path, teddy: Teddy, env: dict[str, str]
) -> None:
    out = teddy.ok(repo, "hooks", "install").stdout
    for name in ("prepare-commit-msg", "pre-push"):
        path = hook_path(repo, env, name)
        assert f"{name}: installed ({path})" in out
        text = path.read_text()
        assert text.startswith("#!/bin/sh\n# >>> git-teddy >>>\n")
        assert text.endswith("# <<< git-teddy <<<\n")
        assert os.access(path, os.X_OK)
    assert "already installed" in teddy.ok(repo, "hooks", "install").stdout
    teddy.ok(repo, "hooks", "uninstall")
    assert not hook_path(repo, env, "prepare-commit-msg").exists()
    assert not hook_path(repo, env, "pre-push").exists()


def test_the_block_records_the_interpreter(repo: Path, teddy: Teddy, env: dict) -> None:
    teddy.ok(repo, "hooks", "install")
    text = hook_path(repo, env, "prepare-commit-msg").read_text()
    python = re.search(r"TEDDY_HOOK_REF_PREFIX=\S+ (\S+) -I -m git_teddy", text)
    assert python
    probe = run([python.group(1), "-c", "import git_teddy.hooks.pre_push"], repo, env)
    assert probe.returncode == 0, probe.stderr


def test_install_beside_existing_hooks_keeps_them_running(
    repo: Path, teddy: Teddy, hook_env: dict[str, str], remote: Path
) -> None:
    env = hook_env
    prepare, pre_push = hook_path(repo, env, "prepare-commit-msg"), hook_path(repo, env, "pre-push")
    write_hook(prepare, USER_PREPARE)
    write_hook(pre_push, USER_PRE_PUSH)
    teddy.ok(repo, "hooks", "install")
    text = prepare.read_text()
    assert text.startswith("#!/bin/sh\n# >>> git-teddy >>>\n")  # before the user's exec
    assert text.endswith(USER_PREPARE.partition("\n")[2])
    assert pre_push.read_text().startswith("#!/usr/bin/env bash\n# >>> git-teddy >>>\n")

    (repo / "app.py").write_text("print('changed')\n")
    git(repo, env, "commit", "-qam", "by hand")
    assert "user hook ran" in Path(env["HOOK_LOG"]).read_text()
    assert "User-Hook: yes" in git(repo, env, "log", "-1", "--format=%B")

    # The user's hook's exit status still decides.
    failing = {**env, "USER_HOOK_STATUS": "1"}
    (repo / "app.py").write_text("print('again')\n")
    assert run(["git", "commit", "-qam", "refused"], repo, failing).returncode != 0
    assert git(repo, env, "log", "-1", "--format=%s").strip() == "by hand"

    # pre-push: the user's hook still gets git's ref lines on stdin, and its status counts.
    git(repo, env, "push", "-q", "origin", "main")
    head = git(repo, env, "rev-parse", "HEAD").strip()
    lines = Path(env["HOOK_LOG"] + ".stdin").read_text()
    assert lines == f"refs/heads/main {head} refs/heads/main {'0' * 40}\n"
    git(repo, env, "commit", "-qam", "more")
    assert run(["git", "push", "-q", "origin", "main"], repo, failing).returncode != 0


def test_core_hooks_path_is_respected(repo: Path, teddy: Teddy, hook_env: dict) -> None:
    env = hook_env
    git(repo, env, "config", "core.hooksPath", ".githooks")
    write_hook(repo / ".githooks" / "prepare-commit-msg", USER_PREPARE)
    out = teddy.ok(repo, "hooks", "install").stdout
    assert str(repo / ".githooks" / "pre-push") in out
    assert (repo / ".githooks" / "pre-push").exists()
    assert not (repo / ".git" / "hooks" / "pre-push").exists()
    status = teddy.ok(repo, "hooks", "status").stdout
    assert f"prepare-commit-msg: installed ({repo / '.githooks' / 'prepare-commit-msg'})" in status
    (repo / "app.py").write_text("print('changed')\n")
    git(repo, env, "commit", "-qm", "by hand", "app.py")
    assert "user hook ran" in Path(env["HOOK_LOG"]).read_text()


def test_uninstall_restores_the_original_byte_for_byte(
    repo: Path, teddy: Teddy, env: dict[str, str]
) -> None:
    original = (
        b"#!/bin/bash\r\n# odd bytes: \xff\xfe\nexit 0"  # CR, invalid UTF-8, no final newline
    )
    path = hook_path(repo, env, "pre-push")
    write_hook(path, original)
    path.chmod(0o750)
    teddy.ok(repo, "hooks", "install")
    assert path.read_bytes() != original
    assert stat.S_IMODE(path.stat().st_mode) == 0o750
    teddy.ok(repo, "hooks", "install")  # again: still one block
    assert path.read_bytes().count(b"# >>> git-teddy >>>") == 1
    teddy.ok(repo, "hooks", "uninstall")
    assert path.read_bytes() == original
    assert stat.S_IMODE(path.stat().st_mode) == 0o750
    assert "not installed" in teddy.ok(repo, "hooks", "uninstall").stdout


def test_status_installed_not_installed_outdated(
    repo: Path, teddy: Teddy, env: dict[str, str], tmp_path: Path
) -> None:
    pre_push = hook_path(repo, env, "pre-push")
    lines = teddy.ok(repo, "hooks", "status").stdout.splitlines()
    assert lines == [
        f"prepare-commit-msg: not installed ({hook_path(repo, env, 'prepare-commit-msg')})",
        f"pre-push: not installed ({pre_push})",
    ]
    teddy.ok(repo, "hooks", "install", "pre-push")
    status = teddy.ok(repo, "hooks", "status").stdout
    assert f"pre-push: installed ({pre_push})" in status
    assert "prepare-commit-msg: not installed" in status
    break_interpreter(pre_push, tmp_path)  # the block no longer matches the shipped one
    assert "pre-push: outdated" in teddy.ok(repo, "hooks", "status").stdout
    assert "pre-push: updated" in teddy.ok(repo, "hooks", "install", "pre-push").stdout
    assert "pre-push: installed" in teddy.ok(repo, "hooks", "status").stdout


def test_a_hook_in_another_language_is_refused_untouched(
    repo: Path, teddy: Teddy, env: dict[str, str]
) -> None:
    path = hook_path(repo, env, "pre-push")
    write_hook(path, "#!/usr/bin/env python3\nimport sys\nsys.exit(0)\n")
    before = path.read_bytes()
    result = teddy(repo, "hooks", "install")
    assert result.returncode == 1
    assert "is a python3 script" in result.stderr
    assert path.read_bytes() == before
    assert not hook_path(repo, env, "prepare-commit-msg").exists()  # nothing half-done
    assert "install refuses it" in teddy.ok(repo, "hooks", "status").stdout


# ---- prepare-commit-msg ------------------------------------------------------------------


def test_a_commit_of_applied_changes_gets_the_trailers_once(
    repo: Path, teddy: Teddy, env: dict[str, str], applied: str
) -> None:
    teddy.ok(repo, "hooks", "install")
    git(repo, env, "add", "x.txt")
    result = run(["git", "commit", "-qm", "add x"], repo, env, check=True)
    assert "warning" not in result.stderr
    expected = [f"Teddy-Session: {applied}", "Teddy-Turn: 01"]
    assert trailers(repo, env) == expected
    git(repo, env, "commit", "-q", "--amend", "--no-edit")
    assert trailers(repo, env) == expected
    editor = {**env, "GIT_EDITOR": "true"}  # the editor keeps the message as git wrote it
    run(["git", "commit", "-q", "--amend"], repo, editor, check=True)
    assert trailers(repo, env) == expected


def test_trailers_name_each_turn_whose_result_is_committed(
    repo: Path, teddy: Teddy, env: dict, applied: str
) -> None:
    plan = repo.parent / "plan2.md"
    plan.write_text(plan_text(create("y.txt", "y\n")))
    teddy.ok(repo, "plan", "-m", "more", "--from-file", str(plan))
    teddy.ok(repo, "execute", "-y")
    teddy.ok(repo, "hooks", "install")
    git(repo, env, "add", "x.txt", "y.txt")
    git(repo, env, "commit", "-qm", "both")
    expected = [f"Teddy-Session: {applied}", "Teddy-Turn: 01", "Teddy-Turn: 02"]
    assert trailers(repo, env) == expected


def test_an_ordinary_commit_gets_no_trailers(
    repo: Path, teddy: Teddy, env: dict[str, str], applied: str
) -> None:
    teddy.ok(repo, "hooks", "install")
    (repo / "app.py").write_text("print('by hand')\n")
    result = run(["git", "commit", "-qm", "by hand", "app.py"], repo, env, check=True)
    assert result.stderr == ""
    assert trailers(repo, env) == []
    # Content equal to what the turn wrote, but not new in this commit: still no trailers.
    git(repo, env, "add", "x.txt")
    git(repo, env, "commit", "-qm", "add x", "--no-verify")
    (repo / "README.md").write_text("# demo, edited\n")
    git(repo, env, "commit", "-qam", "readme")
    assert trailers(repo, env) == []


def test_a_crashing_hook_never_fails_the_commit(
    repo: Path, teddy: Teddy, env: dict[str, str], applied: str, tmp_path: Path
) -> None:
    teddy.ok(repo, "hooks", "install")
    break_interpreter(hook_path(repo, env, "prepare-commit-msg"), tmp_path)
    git(repo, env, "add", "x.txt")
    result = run(["git", "commit", "-qm", "add x"], repo, env)
    assert result.returncode == 0, result.stderr
    assert "warning: git-teddy prepare-commit-msg hook failed" in result.stderr
    assert git(repo, env, "log", "-1", "--format=%s").strip() == "add x"


def test_a_failing_git_inside_the_hook_is_a_warning(
    repo: Path, teddy: Teddy, env: dict[str, str], applied: str
) -> None:
    teddy.ok(repo, "hooks", "install")
    git(repo, env, "add", "x.txt")
    # The message file the hook is given cannot be rewritten: the Python side fails.
    hook = hook_path(repo, env, "prepare-commit-msg")
    text = hook.read_text().replace(
        'prepare_commit_msg "$@"', "prepare_commit_msg /nonexistent/MSG"
    )
    hook.write_text(text)
    result = run(["git", "commit", "-qm", "add x"], repo, env)
    assert result.returncode == 0, result.stderr
    assert (
        "warning: git-teddy prepare-commit-msg hook failed: git interpret-trailers" in result.stderr
    )


# ---- pre-push ----------------------------------------------------------------------------


def add_file_by_hand(repo: Path, env: dict[str, str], ref: str, name: str, content: str) -> None:
    """Commit a file onto `ref` with plumbing, as no git-teddy command would."""
    tip = git(repo, env, "rev-parse", ref).strip()
    blob = run(["git", "hash-object", "-w", "--stdin"], repo, env, input=content, check=True)
    listing = git(repo, env, "ls-tree", tip) + f"100644 blob {blob.stdout.strip()}\t{name}\n"
    tree = run(["git", "mktree"], repo, env, input=listing, check=True).stdout.strip()
    commit = git(repo, env, "commit-tree", tree, "-p", tip, "-m", "by hand").strip()
    git(repo, env, "update-ref", ref, commit, tip)


def test_pre_push_blocks_a_session_ref_holding_a_secret(
    repo: Path, teddy: Teddy, env: dict[str, str], remote: Path
) -> None:
    session = teddy.ok(repo, "new", "work").stdout.strip()
    teddy.ok(repo, "hooks", "install")
    git(repo, env, "push", "-q", "origin", "main")  # the user's branch: not this hook's business
    teddy.ok(repo, "push", "origin")  # a clean session goes through
    ref = f"refs/heads/teddy/{session}/main"
    add_file_by_hand(repo, env, ref, "leak.txt", f"notes\ntoken: {FAKE_TOKEN}\n")
    result = run(["git", "push", "origin", f"{ref}:{ref}"], repo, env)
    assert result.returncode != 0
    assert f"error: {ref}: leak.txt:2 contains a secret (github-token)" in result.stderr
    assert "--no-verify" in result.stderr
    leaky = git(repo, env, "rev-parse", ref).strip()
    assert run(["git", "rev-parse", "--verify", "-q", ref], remote, env).stdout.strip() != leaky
    # Nor by hand to where `git teddy push` puts session branches on a remote.
    there = f"refs/teddy/sessions/{session}/main"
    by_hand = run(["git", "push", "origin", f"{ref}:{there}"], repo, env)
    assert by_hand.returncode != 0 and "contains a secret" in by_hand.stderr, by_hand
    assert git(remote, env, "rev-parse", there).strip() != leaky
    assert teddy(repo, "push", "origin").returncode != 0

    git(repo, env, "push", "-q", "--no-verify", "origin", f"{ref}:{ref}")
    assert git(remote, env, "rev-parse", ref) == git(repo, env, "rev-parse", ref)


def test_pre_push_fails_closed_only_for_session_refs(
    repo: Path, teddy: Teddy, env: dict[str, str], remote: Path, tmp_path: Path
) -> None:
    teddy.ok(repo, "new", "work")
    teddy.ok(repo, "hooks", "install")
    break_interpreter(hook_path(repo, env, "pre-push"), tmp_path)
    git(repo, env, "push", "-q", "origin", "main")  # ordinary pushes never start Python
    result = teddy(repo, "push", "origin")
    assert result.returncode != 0
    assert "git-teddy pre-push hook could not run" in result.stderr + result.stdout


def test_the_repository_files_never_shadow_the_hooks_code(
    repo: Path, teddy: Teddy, env: dict[str, str], applied: str
) -> None:
    """Hooks run at the top of the working tree: a project file named like a module of
    git_teddy (or of the standard library) must not be what the hook imports (`python -I`)."""
    marker = repo.parent / "shadowed"
    for module in ("git_teddy/__init__.py", "git_teddy/hooks/__init__.py", "json.py"):
        write_hook(repo / module, f"open({str(marker)!r}, 'w').close()\n")
    teddy.ok(repo, "hooks", "install")
    git(repo, env, "add", "x.txt")
    result = run(["git", "commit", "-qm", "add x"], repo, env, check=True)
    assert "warning" not in result.stderr
    assert not marker.exists()
    assert trailers(repo, env) == [f"Teddy-Session: {applied}", "Teddy-Turn: 01"]


def spy_interpreter(hook: Path, tmp_path: Path) -> Path:
    """The recorded interpreter, behind a script that leaves a mark each time it is started:
    the file that says whether a push started Python."""
    marks = tmp_path / "python-started"
    text = hook.read_text()
    python = re.search(r"TEDDY_HOOK_REF_PREFIX=\S+ (\S+) -I -m", text)
    assert python
    spy = tmp_path / "spy-python"
    write_hook(spy, f'#!/bin/sh\necho started >> "{marks}"\nexec {python.group(1)} "$@"\n')
    hook.write_text(text.replace(f" {python.group(1)} -I -m", f" {spy} -I -m"))
    return marks


def test_an_ordinary_push_starts_no_python_and_a_session_push_does(
    repo: Path, teddy: Teddy, env: dict[str, str], remote: Path, tmp_path: Path
) -> None:
    teddy.ok(repo, "new", "work")
    teddy.ok(repo, "hooks", "install")
    marks = spy_interpreter(hook_path(repo, env, "pre-push"), tmp_path)
    result = run(["git", "push", "-q", "origin", "main"], repo, env)
    assert result.returncode == 0 and result.stderr == "", result.stderr
    git(repo, env, "checkout", "-qb", "topic")
    (repo / "topic.txt").write_text(f"token: {FAKE_TOKEN}\n")  # the project's: not the gate's
    git(repo, env, "add", "topic.txt")
    git(repo, env, "commit", "-qm", "topic", "--no-verify")
    for refspec in ("topic", "topic:refs/heads/other", ":other", "main:refs/tags/v1"):
        result = run(["git", "push", "-q", "origin", refspec], repo, env)
        assert result.returncode == 0, result.stderr
    assert not marks.exists()
    teddy.ok(repo, "push", "origin")  # session refs: Python looks at them, and lets them go
    assert marks.read_text() == "started\n"


def test_the_pre_push_hook_reads_the_ref_prefix_when_it_runs(
    repo: Path, teddy: Teddy, env: dict[str, str], remote: Path
) -> None:
    teddy.ok(repo, "hooks", "install")  # with the default prefix, teddy/
    git(repo, env, "config", "teddy.refPrefix", "ai/")
    session = teddy.ok(repo, "new", "work").stdout.strip()
    ref = f"refs/heads/ai/{session}/main"
    result = run(["git", "push", "origin", f"{ref}:{ref}"], repo, env)
    assert result.returncode == 0, result.stderr
    assert "warning: git push carries session branches without their snapshots" in result.stderr
    add_file_by_hand(repo, env, ref, "leak.txt", f"token: {FAKE_TOKEN}\n")
    result = run(["git", "push", "origin", f"{ref}:{ref}"], repo, env)
    assert result.returncode != 0
    assert f"error: {ref}: leak.txt:1 contains a secret (github-token)" in result.stderr
