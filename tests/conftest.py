"""Fixtures of the hermetic test environment: real git repositories in temporary folders, a
sealed git configuration, fixed author and dates (so hashes are stable), and the installed
`git-teddy` executable run as a subprocess, the way `git teddy` runs it. The helpers behind
them live in the `testing` package.

Tiers (testing/tiers.py): each test is marked from the fixtures it uses, `git` when it needs
a repository or the installed executable, `slow` when it plays a long story, `process` when it
drives a process by signals or a terminal. `make check` runs the tests that are none of these;
`make test` runs all of them, in parallel.
"""

from collections.abc import Iterator
from pathlib import Path

import hypothesis
import pytest

from testing import tiers
from testing.commands import Teddy, teddy_executable
from testing.repos import commit_files, sealed_git_repo
from testing.sealed import sealed_env
from testing.session_story import Story, copy_story, play_story

# Hypothesis times each example (200 ms by default): on a loaded machine that fails good code.
# No deadline anywhere; a bound on speed belongs to benchmarks/.
hypothesis.settings.register_profile("teddy", deadline=None)
hypothesis.settings.load_profile("teddy")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        for marker in tiers.markers_of(item.nodeid, getattr(item, "fixturenames", ())):
            item.add_marker(marker)


@pytest.fixture(scope="session", autouse=True)
def _check_tier_has_no_git(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Under `make check`, git and git-teddy are replaced by programs that fail saying why,
    so a test that needs them and is not marked `git` fails there instead of passing slowly."""
    with tiers.without_git_in_check_tier(tmp_path_factory.mktemp("no-git")):
        yield


@pytest.fixture(scope="session", autouse=True)
def _user_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """What code run in the tests' own process keeps in the user's cache folder (the secret
    formats' patterns, git_teddy.secret_formats) goes to a temporary folder, never the
    tester's ~/.cache."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("user-cache")))
        yield


# Fixtures: openai_server and anthropic_server (model APIs), server (web pages, search).
pytest_plugins = ["testing.llm_servers", "testing.web_server"]


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir()
    return sealed_env(home)


@pytest.fixture
def teddy_exe() -> str:
    return teddy_executable()


@pytest.fixture
def teddy(env: dict[str, str], teddy_exe: str) -> Iterator[Teddy]:
    yield Teddy(env)


@pytest.fixture
def empty_repo(request: pytest.FixtureRequest, tmp_path: Path, env: dict[str, str]) -> Path:
    """A repository without commits: pytest-git's `git_repo`, made in the sealed env."""
    return sealed_git_repo(request, tmp_path, env)


@pytest.fixture
def repo(empty_repo: Path, env: dict[str, str]) -> Path:
    """A repository with one commit of two files."""
    commit_files(empty_repo, env, {"README.md": "# demo\n", "app.py": "print('hello')\n"})
    return empty_repo


@pytest.fixture
def replies(tmp_path: Path, env: dict[str, str]) -> Path:
    """The replay provider's folder of replies (fill it with testing.sessions.queue)."""
    folder = tmp_path / "replies"
    folder.mkdir()
    env.update(TEDDY_PROVIDER="replay", TEDDY_REPLAY_DIR=str(folder))
    return folder


@pytest.fixture(scope="session")
def played_story(tmp_path_factory: pytest.TempPathFactory) -> Story:
    """The story session (testing/session_story.py), played once per test process."""
    return play_story(tmp_path_factory.mktemp("story"))


@pytest.fixture(scope="module")
def story(played_story: Story, tmp_path_factory: pytest.TempPathFactory) -> Story:
    """A copy of the story for each module using it: a module may change its repository."""
    return copy_story(played_story, tmp_path_factory.mktemp("story"))
