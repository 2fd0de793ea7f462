"""The sealed environment every test runs git and `git teddy` in: no user or system git
configuration, fixed identities and dates (so hashes are stable), and no network."""

import os
import sys
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
    return env
