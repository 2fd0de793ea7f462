"""Shared helpers of the test suite, imported as `testing.*` (the folder is on pytest's
`pythonpath`, see pyproject.toml); tests/conftest.py holds only fixtures and plugin
registration.

    sealed          the sealed environment: temporary HOME, no user or system git config,
                    fixed author, committer and dates (so hashes are stable), no network
    commands        `run`, `git`, `Teddy` (the installed `git teddy`), `imported_modules`
    repos           repository builders, and pytest-git's `git_repo` made in the sealed env
    plans           plan text (spec 004) built from actions
    sessions        a session started with a plan, replies for the replay provider, reports
    fake_secrets    secret-looking strings made at run time
    llm_servers     local OpenAI and Anthropic API servers (pytest plugin: fixtures
                    `openai_server`, `anthropic_server`)
    web_server      a local web server for READ, RESEARCH and URLs (pytest plugin: `server`)
    log_builders    session log pieces
    session_story   the story session shared by the session log, codify and learn tests
    templates       expensive state played once and copied for each test that changes it
"""

import pkgutil

import pytest

# Before any module of the package is imported: their asserts (Teddy.ok, run(check=True), the
# servers' checks) report the values compared, as asserts in tests and conftest.py do. (This
# package itself is already imported here, so its modules are named one by one.)
pytest.register_assert_rewrite(*(f"{__name__}.{m.name}" for m in pkgutil.iter_modules(__path__)))
