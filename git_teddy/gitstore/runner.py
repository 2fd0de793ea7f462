"""Starting git: the one place in git-teddy that runs a git process, hooks included.

Standard library only (and git_teddy.errors), so that the hooks and the cached answers of
`list` and `context` load it in milliseconds, before anything heavy. gitstore's modules build
their named operations on it; nothing outside gitstore/ spells git's arguments.

Output is decoded as UTF-8 with surrogate escapes: paths and messages come through byte for
byte, and go back to git unchanged as arguments or input.
"""

import contextlib
import os
import re
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from importlib import import_module
from pathlib import Path
from types import ModuleType
from typing import IO

from git_teddy.errors import TeddyError

ENCODING = "utf-8"
ERRORS = "surrogateescape"
# Variables that point git at a repository: a scratch worktree must never inherit the user's.
REPOSITORY_ENV = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_PREFIX")


class GitFailed(TeddyError):
    """A git command git-teddy needs did not work."""


# Variables git reads as paths from the directory it starts in: teddy starts git from several
# places (the top of the working tree, its own folders), so a relative one is made absolute once.
RELATIVE_ENV = ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR")


def anchor_repository_env() -> None:
    """Make a relative GIT_DIR, GIT_WORK_TREE or GIT_COMMON_DIR (`GIT_DIR=../.git`, `git
    --git-dir=REL teddy`) absolute from this process's directory, as git reads it here."""
    for name in RELATIVE_ENV:
        value = os.environ.get(name)
        if value and not os.path.isabs(value):
            os.environ[name] = os.path.abspath(value)


# Variables git-teddy set for itself (skip_pydantic_plugins): no child process inherits them.
_OWN_ENV: set[str] = set()


def skip_pydantic_plugins() -> None:
    """pydantic looks for plugins in every installed package's entry points when it builds
    its first validator (`importlib.metadata` imported and scanned: 20-40 ms of each
    command); git-teddy uses none, and PYDANTIC_DISABLE_PLUGINS=__all__ (pydantic's own
    switch) skips the scan. A value the user set is left alone; ours is for this process
    only: git, its hooks and EXECUTE commands get the environment as the user gave it."""
    if "PYDANTIC_DISABLE_PLUGINS" not in os.environ:
        os.environ["PYDANTIC_DISABLE_PLUGINS"] = "__all__"
        _OWN_ENV.add("PYDANTIC_DISABLE_PLUGINS")
    if os.environ["PYDANTIC_DISABLE_PLUGINS"] in ("__all__", "1", "true"):
        sys.modules.setdefault(_PLUGIN_LOADER, _no_plugins())


# pydantic's plugin loader imports importlib.metadata at its top (with email, socket, zipfile:
# ~70 million instructions, 8 ms of every command) only to scan entry points; with every
# plugin disabled its get_plugins returns () before it looks. This stands in for it; any
# other name a pydantic version asks of it is the real loader's, imported then.
_PLUGIN_LOADER = "pydantic.plugin._loader"


def _no_plugins() -> ModuleType:
    loader = ModuleType(_PLUGIN_LOADER, "pydantic's plugin loader with every plugin disabled")

    def real(name: str) -> object:
        if name.startswith("__"):  # what the import system asks of a module (`__path__`)
            raise AttributeError(name)
        if sys.modules.get(_PLUGIN_LOADER) is loader:
            del sys.modules[_PLUGIN_LOADER]
        return getattr(import_module(_PLUGIN_LOADER), name)

    loader.__dict__.update(get_plugins=tuple, __getattr__=real)
    return loader


# PyYAML compiles at import the class of characters its pure-Python reader refuses: its
# 55,000-character ranges cost re's compiler ~57 million instructions (10-15 ms) in every
# command that reads or writes YAML, though libyaml's reader (yamlio's CSafeLoader) never
# uses it. The same characters written as the complement class compile 15 times faster.
YAML_NON_PRINTABLE = "[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"
YAML_NON_PRINTABLE_AS_COMPLEMENT = (
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufffe\uffff]"
)


def seed_yaml_pattern() -> None:
    """PyYAML's pattern of refused characters put in re's cache, compiled from the complement
    class (the same characters), before yaml is imported: its import finds it there. A PyYAML
    that writes its pattern otherwise, or a Python whose re keeps no `_cache` dict, compiles
    its own as before."""
    cache = getattr(re, "_cache", None)
    if isinstance(cache, dict) and "yaml.reader" not in sys.modules:
        cache[(str, YAML_NON_PRINTABLE, 0)] = re.compile(YAML_NON_PRINTABLE_AS_COMPLEMENT)


def isolated_environ() -> dict[str, str]:
    """os.environ without the variables that would point git at the user's repository."""
    return {k: v for k, v in _inherited().items() if k not in REPOSITORY_ENV}


def _inherited() -> Mapping[str, str]:
    """What a child process gets of os.environ: all of it but git-teddy's own settings."""
    if not _OWN_ENV:
        return os.environ
    return {k: v for k, v in os.environ.items() if k not in _OWN_ENV}


def _environ(env: Mapping[str, str] | None, isolated: bool) -> dict[str, str]:
    return {**(isolated_environ() if isolated else _inherited()), **(env or {})}


def run(
    args: Sequence[str],
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    isolated: bool = False,
    input: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """git's result, whether it worked or not: the caller says what a failure means. `env`
    adds variables; `isolated` drops GIT_DIR and friends, so git finds the repository from
    `cwd`; without `cwd`, git runs where this process runs (as in a hook)."""
    return subprocess.run(
        ["git", *args],
        cwd=cwd,
        env=_environ(env, isolated),
        input=input,
        capture_output=True,
        encoding=ENCODING,
        errors=ERRORS,
        check=False,
    )


def output(
    args: Sequence[str],
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    isolated: bool = False,
    input: str | None = None,
    strict: bool = False,
) -> str:
    """git's stdout. GitFailed when git fails or, `strict`, when it warns (for-each-ref warns
    of the broken refs it leaves out)."""
    proc = run(args, cwd, env, isolated, input)
    if proc.returncode != 0 or (strict and proc.stderr):
        raise failure(args, proc.stderr.strip() or proc.stdout.strip())
    return proc.stdout


def output_bytes(args: Sequence[str], cwd: Path | None = None, input: bytes | None = None) -> bytes:
    """git's stdout as bytes (object contents), GitFailed when git fails."""
    proc = subprocess.run(
        ["git", *args],
        cwd=cwd,
        env=_environ(None, False),
        input=input,
        capture_output=True,
        check=False,
    )
    if proc.returncode != 0:
        raise failure(args, proc.stderr.decode(ENCODING, "replace").strip())
    return proc.stdout


def output_head(args: Sequence[str], cwd: Path | None, limit: int) -> bytes:
    """The first `limit` bytes of git's stdout; git is stopped then (a large object is not
    read to its end)."""
    proc = subprocess.Popen(
        ["git", *args], cwd=cwd, env=_environ(None, False), stdout=subprocess.PIPE
    )
    assert proc.stdout is not None
    with proc:
        data = proc.stdout.read(limit)
        proc.kill()  # ours, started above; done with its output
    return data


@contextlib.contextmanager
def streamed(args: Sequence[str], cwd: Path | None, input: bytes) -> Iterator[IO[bytes]]:
    """git's stdout to read as it comes, `input` written to its stdin meanwhile by a
    thread (git answers while it reads: neither side waits on a full pipe), so a caller
    keeps what it needs of a large answer and not all of it. GitFailed when git fails."""
    import tempfile  # here: the hooks load this module and start in milliseconds
    import threading

    with tempfile.TemporaryFile() as errors:  # a file: git never waits on its stderr
        proc = subprocess.Popen(
            ["git", *args],
            cwd=cwd,
            env=_environ(None, False),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errors,
        )
        assert proc.stdin is not None and proc.stdout is not None
        writer = threading.Thread(target=_write_all, args=(proc.stdin, input), daemon=True)
        writer.start()
        with proc:
            try:
                yield proc.stdout
            finally:
                proc.stdout.read()  # to its end: git exits once its answer is taken
                writer.join()
        if proc.returncode != 0:
            errors.seek(0)
            raise failure(args, errors.read().decode(ENCODING, "replace").strip())


def _write_all(pipe: IO[bytes], data: bytes) -> None:
    with contextlib.suppress(BrokenPipeError), pipe:
        pipe.write(data)


def attached(args: Sequence[str], cwd: Path | None = None) -> int:
    """Run git with this process's stdout and stderr (and the pager or terminal behind
    them): for output git formats and colours for the user itself (the caller flushes
    what it printed first). Its exit code."""
    return subprocess.run(
        ["git", *args], cwd=cwd, env=_environ(None, False), check=False
    ).returncode


def hookless(no_hooks: Path) -> list[str]:
    """`-c` options under which git runs none of the user's hooks (`no_hooks` holds none):
    a post-index-change or post-checkout hook of theirs is not for teddy's temporary
    indexes and scratch worktrees."""
    return ["-c", f"core.hooksPath={no_hooks}"]


def failure(args: Sequence[str], detail: str) -> GitFailed:
    return GitFailed(
        f"git {args[0]} failed: {detail}",
        "run the same git command yourself to see what git needs",
    )
