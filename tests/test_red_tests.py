"""Red tests are not failures (issue 27 item 6): a plan says a command is expected to fail
(`- **Expected To Fail:** yes`), the report records whether it did; a later success of the
same check resolves an earlier failure in the session log; `stats` counts unexpected
failures only."""

import json
from pathlib import Path

import pytest

from git_teddy.artifacts.plan import parse_plan
from git_teddy.artifacts.plan.models import Execute
from git_teddy.artifacts.plan.render import render_plan
from git_teddy.artifacts.sessionlog.build import same_check
from git_teddy.errors import EXIT_TURN_FAILED
from testing.commands import Teddy, git
from testing.plans import create, edit, execute, plan_text
from testing.sessions import report_of, start

RED = """import unittest


class Red(unittest.TestCase):
    def test_red(self):
        self.assertEqual(len('ab'), 3)
"""


def red_run(command: str) -> str:
    head = (
        "### `EXECUTE`\n- **Description:** The new test fails first.\n"
        "- **Expected Outcome:** One failure.\n- **Expected To Fail:** yes\n"
    )
    return f"{head}````shell\n{command}\n````\n"


def test_the_field_parses_and_renders_back() -> None:
    plan = parse_plan(plan_text(red_run("pytest tests/test_a.py"), execute("pytest")))
    red, plain = plan.actions
    assert isinstance(red, Execute) and isinstance(plain, Execute)
    assert (red.expect_failure, plain.expect_failure) == (True, False)
    assert "- **Expected To Fail:** yes\n" in render_plan(plan)
    assert parse_plan(render_plan(plan)) == plan


@pytest.mark.parametrize(
    ("failed", "later", "same"),
    [
        ("pytest -x tests/test_a.py", "pytest -q tests/test_a.py", True),
        ("pytest tests/test_a.py::test_b -x", "pytest tests/test_a.py", True),
        ("python -m pytest tests/test_a.py", "python -m pytest", True),
        ("PYTHONPATH=src pytest tests/test_a.py", "pytest --tb=short tests/test_a.py", True),
        ("node --test calc.test.mjs", "node --test", True),
        ("npx uvu tests", "npx uvu tests -b", True),
        ("pytest tests/test_a.py", "pytest tests/test_b.py", False),
        ("python setup.py build", "cat setup.py", False),
        ("make lint", "make test", False),
        ("pytest", "ruff check", False),
    ],
)
def test_the_same_check_allows_other_flags_and_the_same_test_file(
    failed: str, later: str, same: bool
) -> None:
    assert same_check(failed, later) is same


def test_a_red_test_that_fails_as_expected_is_not_a_failure(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    session = start(
        repo,
        teddy,
        create("test_red.py", RED),
        red_run("python -m unittest test_red"),
        execute("echo after the red test"),
    )
    result = teddy.ok(repo, "execute", "-y")  # the turn succeeds; the next action ran
    assert "ok: failed as expected: exit code 1: test_red.Red.test_red (" in result.stdout
    logs = report_of(repo, env, session)["action_logs"]
    assert [log["status"] for log in logs] == ["SUCCESS", "SUCCESS", "SUCCESS"]
    assert logs[1]["details"]["expected_failure"] == "failed as expected"
    assert logs[1]["summary"].endswith("test_red.py:6): AssertionError: 2 != 3")
    session_md = git(repo, env, "show", f"teddy/{session}/main:session.md")
    assert "[!error]" not in session_md
    stats = json.loads(teddy.ok(repo, "stats", "--json").stdout)["overall"]
    assert (stats["failures"], stats["failure_rate"]) == (0, 0)


def test_a_red_test_that_passes_is_a_failure(repo: Path, teddy: Teddy, env: dict) -> None:
    session = start(repo, teddy, red_run("true"))
    result = teddy.exits(EXIT_TURN_FAILED, repo, "execute", "-y")
    assert "FAILED: exit code 0, but the plan expected it to fail\n" in result.stdout
    (log,) = report_of(repo, env, session)["action_logs"]
    assert log["details"]["expected_failure"] == "passed, but the plan expected it to fail"


def test_a_later_success_of_the_same_check_resolves_a_failure(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    """Not marked as expected, the red test fails the turn; the turn that makes it pass
    with other flags resolves it in the log."""
    session = start(
        repo, teddy, create("test_red.py", RED), execute("python -m unittest -v test_red")
    )
    teddy.exits(EXIT_TURN_FAILED, repo, "execute", "-y")
    fix = plan_text(
        edit("test_red.py", "len('ab'), 3", "len('abc'), 3"), execute("python -m unittest test_red")
    )
    plan_file = repo.parent / "fix.md"
    plan_file.write_text(fix)
    teddy.ok(repo, "plan", "-m", "make it pass", "--from-file", str(plan_file))
    teddy.ok(repo, "execute", "-y")
    session_md = git(repo, env, "show", f"teddy/{session}/main:session.md")
    callout = session_md[session_md.index("> [!error]") :].split("\n")[0]
    assert callout == "> [!error] Resolved in turn 02: A plan"
