"""The test tiers: which marks a test gets from the fixtures it uses (conftest.py applies
them at collection). `make check` runs the tests with none of them (no repository, no
installed executable: about a minute); `make test` runs everything across the machine's
cores (pytest-xdist).

- `git`: a real repository or the `git-teddy` executable, from a fixture below or because the
  test's module builds repositories itself (GIT_MODULES);
- `slow`: plays the story session or builds a large repository;
- `process`: drives a process by signals, kills or a terminal (pexpect): the tests a loaded
  machine stresses most. They wait on events (testing/waits.py), never on the clock.
"""

import os
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

TIER_VARIABLE = "TEDDY_TEST_TIER"  # `check` under `make check`

GIT_FIXTURES = frozenset(
    {"env", "teddy", "teddy_exe", "empty_repo", "repo", "replies", "story", "git_repo", "world"}
)
SLOW_FIXTURES = frozenset({"played_story", "world"})
# Modules whose tests run git without a git fixture (they build repositories by hand).
GIT_MODULES: frozenset[str] = frozenset()
# Modules of tests that signal, kill or type into processes.
PROCESS_MODULES = frozenset(
    {
        "test_fault_kill.py",
        "test_fault_bounds.py",
        "test_fault_races.py",
        "test_fault_locks.py",
        "test_loop.py",
        "test_execute.py",
        "test_rough_edges.py",
        "test_review_browser.py",
    }
)


def markers_of(nodeid: str, fixtures: Collection[str]) -> list[pytest.MarkDecorator]:
    module = nodeid.split("::")[0].rsplit("/", 1)[-1]
    names = set(fixtures)
    marks = []
    if names & GIT_FIXTURES or module in GIT_MODULES:
        marks.append(pytest.mark.git)
    if names & SLOW_FIXTURES:
        marks.append(pytest.mark.slow)
    if module in PROCESS_MODULES:
        marks.append(pytest.mark.process)
    return marks


BLOCKED = '#!/bin/sh\necho "{name} is not available to the tests of make check: this test needs \
the git marker (testing/tiers.py)" >&2\nexit 127\n'


@contextmanager
def without_git_in_check_tier(folder: Path) -> Iterator[None]:
    """In the check tier, PATH starts with `folder`, where git and git-teddy always fail."""
    if os.environ.get(TIER_VARIABLE) != "check":
        yield
        return
    for name in ("git", "git-teddy"):
        program = folder / name
        program.write_text(BLOCKED.format(name=name))
        program.chmod(0o755)
    saved = os.environ["PATH"]
    os.environ["PATH"] = f"{folder}{os.pathsep}{saved}"
    try:
        yield
    finally:
        os.environ["PATH"] = saved
