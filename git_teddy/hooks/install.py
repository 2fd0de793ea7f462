"""`git teddy hooks install|uninstall|status`: git-teddy's hooks as marked blocks in the
repository's hook files, beside whatever else those files do.

The block goes right after the shebang, so it runs before the hook's own code (and before any
`exec` that would end the script); it never exits on success, so the rest of the hook runs and
its exit status is the hook's. A hook file that does not exist is created (`#!/bin/sh` plus
the block, executable). Uninstall removes exactly the block's bytes, so the file is what it
was; a file that held nothing else is deleted. Only shell scripts can take the block: a hook
in another language (a Python pre-commit hook, say) is refused with a hint.
"""

import os
import shlex
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from git_teddy.errors import TeddyError
from git_teddy.gitstore import GitRepo
from git_teddy.hooks import hook_source

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
    return block.replace("@PYTHON@", shlex.quote(python or sys.executable)).replace(
        "@PREFIX@", prefix
    )


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


def install_hook(folder: Path, name: str, block: str) -> str:
    """Install or update one hook; returns what was done."""
    path = folder / name
    text = read_hook(path)
    if text is None:
        write_hook(path, insert_block("", block), 0o755)
        return "installed"
    span = find_block(text)
    if span is not None:
        if text[span[0] : span[1]] == block:
            return "already installed"
        write_hook(path, text[: span[0]] + block + text[span[1] :], _mode(path))
        return "updated"
    if not is_shell(text):
        raise _not_shell_error(name, path, text)
    write_hook(path, insert_block(text, block), _mode(path))
    return "installed"


def uninstall_hook(folder: Path, name: str) -> str:
    path = folder / name
    text = read_hook(path)
    if text is None or find_block(text) is None:
        return "not installed"
    rest = remove_block(text)
    if rest in ("", NEW_FILE_HEADER):
        path.unlink()
        return "removed (the file held nothing else)"
    write_hook(path, rest, _mode(path))
    return "removed"


def hook_state(folder: Path, name: str, block: str) -> HookState:
    path = folder / name
    text = read_hook(path)
    span = None if text is None else find_block(text)
    if text is None or span is None:
        note = ""
        if text is not None and not is_shell(text):
            note = f"the hook is a {interpreter(text)} script; install refuses it"
        return HookState(name, path, "not installed", note)
    state = "installed" if text[span[0] : span[1]] == block else "outdated"
    note = "" if os.access(path, os.X_OK) else "not executable: git ignores it"
    if state == "outdated":
        note = note or "differs from this git-teddy's: run `git teddy hooks install`"
    return HookState(name, path, state, note)


def _mode(path: Path) -> int:
    return path.stat().st_mode & 0o7777


def install_hooks(repo: GitRepo, prefix: str, names: list[str]) -> list[tuple[str, Path, str]]:
    folder = repo.hooks_path()
    # Every hook is checked before any is written, so a refusal leaves nothing half-done.
    for name in names:
        text = read_hook(folder / name)
        if text is not None and find_block(text) is None and not is_shell(text):
            raise _not_shell_error(name, folder / name, text)
    return [
        (name, folder / name, install_hook(folder, name, shipped_block(name, prefix)))
        for name in names
    ]


def uninstall_hooks(repo: GitRepo, names: list[str]) -> list[tuple[str, Path, str]]:
    folder = repo.hooks_path()
    return [(name, folder / name, uninstall_hook(folder, name)) for name in names]


def hook_states(repo: GitRepo, prefix: str, names: list[str]) -> list[HookState]:
    folder = repo.hooks_path()
    return [hook_state(folder, name, shipped_block(name, prefix)) for name in names]
