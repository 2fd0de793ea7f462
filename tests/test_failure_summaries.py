"""Failure summaries per test runner (issue 30 item 3): the failing test's name, its first
assertion message and its location, read from real outputs of each runner captured on this
machine (tests/fixtures/runner_output/: pytest 9, unittest of Python 3.11, node 20's
`node --test` with its TAP and spec reporters, jest 30, vitest 4, mocha 11, uvu 0.5,
go 1.19, cargo 1.9x; the vitest and uvu samples also with their colour codes)."""

import shutil
from pathlib import Path

import pytest

from git_teddy.artifacts.failures import FailedTest, failed_tests
from git_teddy.artifacts.output import first_error
from git_teddy.errors import EXIT_TURN_FAILED
from testing.commands import Teddy, git
from testing.plans import create, execute
from testing.sessions import report_of, start

SAMPLES = Path(__file__).parent / "fixtures" / "runner_output"
NODE_ASSERT = "Expected values to be strictly equal: -2 !== -3"


@pytest.mark.parametrize(
    ("sample", "runner", "expected"),
    [
        (
            "pytest.txt",
            "pytest",
            [FailedTest("test_calc.py::test_add_negative", "assert -2 == -3", "test_calc.py:10")],
        ),
        (
            "pytest_q.txt",
            "pytest",
            [FailedTest("test_calc.py::test_add_negative", "assert -2 == -3", "test_calc.py:10")],
        ),
        (
            "pytest_two.txt",
            "pytest",
            [
                FailedTest(
                    "test_more.py::test_name",
                    "NameError: name 'undefined_name' is not defined",
                    "test_more.py:6",
                ),
                FailedTest(
                    "test_more.py::test_strings",
                    "AssertionError: assert 'TEDDY' == 'TEDY'",
                    "test_more.py:10",
                ),
            ],
        ),
        *[
            (
                sample,
                "unittest",
                [
                    FailedTest(
                        "test_calc_unittest.AddTest.test_add_negative",
                        "AssertionError: -2 != -3",
                        "/tmp/samples/py/test_calc_unittest.py:13",
                    )
                ],
            )
            for sample in ("unittest.txt", "unittest_v.txt")
        ],
        (
            "node_test_tap.txt",
            "node --test",
            [FailedTest("adds negatives", NODE_ASSERT, "/tmp/samples/node/calc.test.mjs:11:10")],
        ),
        (
            "node_test_spec.txt",
            "node --test",
            [
                FailedTest(
                    "adds negatives",
                    f"AssertionError [ERR_ASSERTION]: {NODE_ASSERT}",
                    "/tmp/samples/node/calc.test.mjs:11:10",
                )
            ],
        ),
        (
            "jest.txt",
            "jest",
            [
                FailedTest(
                    "adds negatives",
                    "expect(received).toBe(expected) // Object.is equality "
                    "Expected: -3 Received: -2",
                    "t/calc.test.js:8:23",
                )
            ],
        ),
        *[
            (
                sample,
                "vitest",
                [
                    FailedTest(
                        "v/calc.test.mjs > adds negatives",
                        "AssertionError: expected -2 to be -3 // Object.is equality",
                        "v/calc.test.mjs:10:23",
                    )
                ],
            )
            for sample in ("vitest.txt", "vitest_color.txt")
        ],
        (
            "mocha.txt",
            "mocha",
            [
                FailedTest(
                    "add adds negatives",
                    f"AssertionError [ERR_ASSERTION]: {NODE_ASSERT}",
                    "m/calc.test.js:11:12",
                )
            ],
        ),
        *[
            (
                sample,
                "uvu",
                [
                    FailedTest(
                        "adds negatives",
                        "Expected values to be strictly equal: (is) ++-3 (Expected) ---2 (Actual)",
                        "/tmp/rt/u/calc.test.mjs:11:10",
                    )
                ],
            )
            for sample in ("uvu.txt", "uvu_color.txt")
        ],
        *[
            (
                sample,
                "go test",
                [FailedTest("TestAddNegatives", "Add(-1, -1) = -2, want -3", "calc_test.go:13")],
            )
            for sample in ("go_test.txt", "go_test_v.txt")
        ],
        *[
            (
                sample,
                "cargo test",
                [
                    FailedTest(
                        "tests::adds_negatives",
                        "assertion `left == right` failed left: -2 right: -3",
                        "src/lib.rs:16:9",
                    )
                ],
            )
            for sample in ("cargo_test.txt", "cargo_test_backtrace.txt")
        ],
    ],
)
def test_each_runner_names_its_failing_tests(
    sample: str, runner: str, expected: list[FailedTest]
) -> None:
    found = failed_tests((SAMPLES / sample).read_text(encoding="utf-8"))
    assert found is not None
    assert (found.runner, list(found.tests)) == (runner, expected)


def test_every_sample_is_read() -> None:
    samples = sorted(p.name for p in SAMPLES.glob("*.txt"))
    assert len(samples) == 17
    assert all(failed_tests((SAMPLES / s).read_text(encoding="utf-8")) for s in samples)


def test_output_of_no_test_runner_has_no_failing_tests() -> None:
    assert failed_tests("") is None
    assert failed_tests("src/a.c:3: error: expected ';'\nmake: *** [all] Error 1\n") is None
    passing = (SAMPLES / "pytest.txt").read_text().replace("FAILED", "PASSED")
    assert failed_tests(passing.split("=== FAILURES")[0]) is None


def test_many_failures_are_counted_past_the_ones_listed() -> None:
    block = "--- FAIL: Test{n} (0.00s)\n    a_test.go:{n}: wrong {n}\n"
    found = failed_tests("".join(block.format(n=n) for n in range(1, 13)) + "FAIL\n")
    assert found is not None and len(found.tests) == 12
    lines = found.lines()
    assert lines[0] == "Test1 (a_test.go:1): wrong 1" and lines[-1] == "... and 2 more"


def test_a_timing_line_is_never_the_error_quoted() -> None:
    """uvu's last line was the failure's summary (`exit code 1: Duration: 302.45ms`)."""
    uvu_tail = "  Total:     2\n  Passed:    1\n  Skipped:   0\n  Duration:  1.70ms\n\n"
    assert first_error(uvu_tail, "") == "Skipped:   0"
    assert first_error("ok\nDone in 0.31s\n", "") == "ok"


NODE_TEST = """import { test } from 'node:test';
import assert from 'node:assert/strict';

test('adds', () => {
  assert.equal(1 + 1, 2);
});

test('adds negatives', () => {
  assert.equal(-1 + -1, -3);
});
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed here")
def test_a_failed_node_test_run_is_summarised_by_its_failing_test(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    """The turn's summary names the failing test, its assertion and where, not the run's
    last line; the report has them first, before the output."""
    session = start(
        repo, teddy, create("calc.test.mjs", NODE_TEST), execute("node --test calc.test.mjs")
    )
    result = teddy.exits(EXIT_TURN_FAILED, repo, "execute", "-y")
    summary = f"exit code 1: adds negatives (calc.test.mjs:9:10): {NODE_ASSERT}"
    assert f"FAILED: {summary}\n" in result.stdout  # the path in the project, not the scratch's
    report = report_of(repo, env, session)
    assert report["run_summary"]["failed_tests"] == [  # at the top of the report
        f"action 2: adds negatives (calc.test.mjs:9:10): {NODE_ASSERT}"
    ]
    raw = git(repo, env, "show", f"teddy/{session}/main:01/report.md")
    assert raw.index("failed_tests:") < raw.index("action_logs:")
    log = report["action_logs"][1]
    assert next(iter(log["details"])) == "failed_tests"
    failed = log["details"]["failed_tests"]
    assert (failed["runner"], failed["count"]) == ("node --test", 1)
    assert failed["tests"] == [f"adds negatives (calc.test.mjs:9:10): {NODE_ASSERT}"]


PYTEST_TEST = """def test_adds():
    assert 1 + 1 == 2


def test_adds_negatives():
    assert -1 + -1 == -3
"""


def test_the_same_turn_in_a_python_project_is_summarised_as_well(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    """Issue 30: the turn above, in a Python project run by pytest (from the test
    environment's PATH): the summary names the failing test and its assertion."""
    session = start(
        repo,
        teddy,
        create("test_calc.py", PYTEST_TEST),
        execute("python -m pytest -q -p no:cacheprovider test_calc.py"),
    )
    result = teddy.exits(EXIT_TURN_FAILED, repo, "execute", "-y")
    (line,) = [x for x in result.stdout.splitlines() if "FAILED: exit code 1: " in x]
    assert "test_adds_negatives" in line and "assert (-1 + -1) == -3" in line, line
    (failed,) = report_of(repo, env, session)["run_summary"]["failed_tests"]
    assert failed.startswith("action 2: ") and "test_adds_negatives" in failed
