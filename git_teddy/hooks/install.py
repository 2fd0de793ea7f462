"""`git teddy hooks install|uninstall|status`: git-teddy's hooks as marked blocks in the
repository's hook files, beside whatever else those files do.

The block goes right after the shebang, so it runs before the hook's own code (and before any
`exec` that would end the script); it never exits on success, so the rest of the hook runs and
its exit status is the hook's. A hook file that does not exist is created (`#!/bin/sh` plus
the block, executable). Uninstall removes exactly the block's bytes, so the file is what it
was; a file that held nothing else is deleted. Only shell scripts can take the block: a hook
in another language (a Python pre-commit hook, say) is refused with a hint.

Beside husky and pre-commit the block goes where that manager keeps running it and does not
rewrite it (`hooks/managers.py`), and an older block left where it would be lost is moved.
A `core.hooksPath` from the global or system config is a folder other repositories share:
install and uninstall refuse to write there unless asked (`--shared-hooks-path`). The block
names the Python it runs; when that is gone it prints one line and lets git go on.
"""

import os
import shlex
import sys
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

from git_teddy.errors import TeddyError
from git_teddy.gitstore import GitRepo
from git_teddy.gitstore.layout import APPLIED_BLOBS, DERIVED_DIR
from git_teddy.hooks import hook_source
from git_teddy.hooks.managers import Place, place

HOOK_NAMES = ("prepare-commit-msg", "pre-push")
BEGIN = "# >>> git-teddy >>>"
END = "# <<< git-teddy <<<"
NEW_FILE_HEADER = "#!/bin/sh\n"
SHELLS = {"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "busybox"}
ENCODING = "utf-8"
ERRORS = "surrogateescape"  # any bytes survive a read and a write unchanged


@dataclass(frozen=True)
class HookState:
    name: str
    path: Path
    state: str  # "installed", "not installed" or "outdated"
    note: str = ""


def shipped_block(name: str, prefix: str, python: str | None = None) -> str:
    """The block of the shipped hook `name`, with the interpreter and ref prefix filled in."""
    text: str = hook_source(name).decode(ENCODING)
    span = find_block(text)
    if span is None:
        raise TeddyError(f"the shipped hook {name} has no git-teddy block", "reinstall git-teddy")
    block = text[span[0] : span[1]]
    block = block.replace("@PYTHON@", shlex.quote(python or sys.executable))
    return block.replace("@PREFIX@", prefix).replace("@APPLIED@", f"{DERIVED_DIR}/{APPLIED_BLOBS}")


def find_block(text: str) -> tuple[int, int] | None:
    """Start and end (after the END line's newline) of the block, if the text has one."""
    start = _line_start(text, BEGIN)
    if start is None:
        return None
    end = _line_start(text, END, start)
    if end is None:
        return None
    newline = text.find("\n", end)
    return start, (len(text) if newline < 0 else newline + 1)


def _line_start(text: str, marker: str, start: int = 0) -> int | None:
    at = start
    while (at := text.find(marker, at)) >= 0:
        if at == 0 or text[at - 1] == "\n":
            return at
        at += len(marker)
    return None


def insert_block(text: str, block: str) -> str:
    """The hook with the block added after its shebang (a new hook if `text` is empty)."""
    if not text:
        return NEW_FILE_HEADER + block
    if not text.startswith("#!"):
        return block + text  # no shebang: git runs it with sh, the block goes first
    newline = text.find("\n")
    if newline < 0:
        return text + "\n" + block
    return text[: newline + 1] + block + text[newline + 1 :]


def remove_block(text: str) -> str:
    span = find_block(text)
    return text if span is None else text[: span[0]] + text[span[1] :]


def interpreter(text: str) -> str | None:
    """The program a shebang names (`/usr/bin/env bash` -> `bash`), or None without one."""
    if not text.startswith("#!"):
        return None
    words = text[2:].partition("\n")[0].split()
    if not words:
        return None
    program = os.path.basename(words[0])
    if program == "env":
        rest = [w for w in words[1:] if not w.startswith("-")]
        program = os.path.basename(rest[0]) if rest else program
    return program


def is_shell(text: str) -> bool:
    program = interpreter(text)
    return program is None or program in SHELLS


def read_hook(path: Path) -> str | None:
    try:
        return path.read_bytes().decode(ENCODING, ERRORS)
    except FileNotFoundError:
        return None


def write_hook(path: Path, text: str, mode: int) -> None:
    """Replace the file in one step (a half-written hook would break the user's git)."""
    target = path.resolve()  # a symlinked hook is edited where it lives
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(text.encode(ENCODING, ERRORS))
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _not_shell_error(name: str, path: Path, text: str) -> TeddyError:
    return TeddyError(
        f"{path} is a {interpreter(text)} script; git-teddy can add its block to shell hooks only",
        f"call git-teddy's {name} hook from it yourself: run "
        f"`{sys.executable} -I -m git_teddy.hooks.{name.replace('-', '_')}` with the hook's "
        "arguments (and, for pre-push, its stdin)",
    )


def install_hook(where: Place, block: str) -> str:
    """Install or update one hook where it belongs; returns what was done."""
    path = where.path
    text = read_hook(path)
    if text is None:
        write_hook(path, insert_block("", block), 0o755)
        done = "installed"
    else:
        span = find_block(text)
        if span is not None and text[span[0] : span[1]] == block:
            done = "already installed"
        elif span is not None:
            write_hook(path, text[: span[0]] + block + text[span[1] :], _mode(path))
            done = "updated"
        else:
            if not is_shell(text):
                raise _not_shell_error(where.name, path, text)
            write_hook(path, insert_block(text, block), _mode(path))
            done = "installed"
    moved = [stale for stale in where.stale if _remove_from(stale) != "not installed"]
    return done + "".join(f"; removed the block from {stale}" for stale in moved)


def _remove_from(path: Path) -> str:
    text = read_hook(path)
    if text is None or find_block(text) is None:
        return "not installed"
    rest = remove_block(text)
    if rest in ("", NEW_FILE_HEADER):
        path.unlink()
        return "removed (the file held nothing else)"
    write_hook(path, rest, _mode(path))
    return "removed"


def uninstall_hook(where: Place) -> str:
    done = _remove_from(where.path)
    for stale in where.stale:
        if _remove_from(stale) != "not installed":
            done = f"removed from {stale}" if done == "not installed" else done
    return done


def hook_state(where: Place, block: str) -> HookState:
    path = where.path
    text = read_hook(path)
    span = None if text is None else find_block(text)
    if text is None or span is None:
        return _missing_state(where, text)
    state = "installed" if text[span[0] : span[1]] == block else "outdated"
    notes = [where.via] if where.via else []
    if not os.access(path, os.X_OK) and not where.must_exist:  # husky runs it with `sh`
        notes.append("not executable, so it does not run")
    if where.must_exist and not where.must_exist.exists():
        notes.append(f"{where.must_exist} is missing, so it does not run: run husky's install")
    if state == "outdated":
        notes.append("differs from this git-teddy's: run `git teddy hooks install`")
    return HookState(where.name, path, state, "; ".join(notes))


def _missing_state(where: Place, text: str | None) -> HookState:
    """The state of a hook whose file holds no block: maybe one is left where it is lost."""
    for stale in where.stale:
        old = read_hook(stale)
        if old is not None and find_block(old) is not None:
            note = (
                f"the block is in {stale}, which its hook manager rewrites: "
                "run `git teddy hooks install` to move it"
            )
            return HookState(where.name, where.path, "outdated", note)
    note = ""
    if text is not None and not is_shell(text):
        note = f"the hook is a {interpreter(text)} script; install refuses it"
    return HookState(where.name, where.path, "not installed", note)


def _mode(path: Path) -> int:
    return path.stat().st_mode & 0o7777


def places(repo: GitRepo, names: list[str]) -> list[Place]:
    folder = repo.hooks_path().resolve()
    return [place(folder, name, repo.toplevel) for name in names]


def shared_folder(repo: GitRepo) -> str | None:
    """Which config sets a `core.hooksPath` outside this repository (a folder other
    repositories share), or None when the hooks folder is this repository's own."""
    origin = repo.hooks_path_origin()
    if origin is None or origin.scope in ("local", "worktree"):
        return None
    folder = repo.hooks_path().resolve()
    own = (repo.toplevel.resolve(), repo.common_dir.resolve())
    if any(folder.is_relative_to(root) for root in own):
        return None  # a relative path in a global config: each repository has its own folder
    return f"your {origin.scope} git config ({origin.origin.removeprefix('file:')})"


def check_shared(repo: GitRepo, shared_ok: bool) -> None:
    """Refuse to write to a hooks folder other repositories share, unless asked to."""
    where = shared_folder(repo)
    if where is None or shared_ok:
        return
    raise TeddyError(
        f"core.hooksPath is set in {where} to {repo.hooks_path()}, a hooks folder shared by "
        "every repository without its own core.hooksPath",
        "pass --shared-hooks-path to change it anyway (git-teddy's hooks then run in all those "
        "repositories, and do nothing where there are no git-teddy sessions), or give this "
        "repository its own hooks folder first: `git config core.hooksPath .githooks` (it then "
        "no longer runs the shared hooks)",
    )


def install_hooks(
    repo: GitRepo, prefix: str, names: list[str], shared_ok: bool = False
) -> list[tuple[Place, str]]:
    check_shared(repo, shared_ok)
    wheres = places(repo, names)
    # Every hook is checked before any is written, so a refusal leaves nothing half-done.
    for where in wheres:
        text = read_hook(where.path)
        if text is not None and find_block(text) is None and not is_shell(text):
            raise _not_shell_error(where.name, where.path, text)
    return [(where, install_hook(where, shipped_block(where.name, prefix))) for where in wheres]


def uninstall_hooks(
    repo: GitRepo, names: list[str], shared_ok: bool = False
) -> list[tuple[Place, str]]:
    check_shared(repo, shared_ok)
    return [(where, uninstall_hook(where)) for where in places(repo, names)]


def hook_states(repo: GitRepo, prefix: str, names: list[str]) -> list[HookState]:
    states = [hook_state(where, shipped_block(where.name, prefix)) for where in places(repo, names)]
    where = shared_folder(repo)
    if where is None:
        return states
    shared = f"shared: core.hooksPath from {where}"
    return [replace(s, note=f"{s.note}; {shared}" if s.note else shared) for s in states]
