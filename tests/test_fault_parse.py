"""Fault suite, issue 14 item 13: a plan of any shape is answered in seconds.

Each input here took more than 20 s before (commonmark is quadratic on unclosed links, on
deep nesting and on large blocks): `[a](` repeated 16 KB took 113 s on the test machine, a
1000-level list in 1 MB 77 s, a 2 MB code block 24 s. The bound of 10 s below is a guard
against that coming back, not a benchmark (benchmarks/bench_plan.py times parsing): it counts
CPU seconds, of this process and of the commands it waited for, which a loaded machine does
not inflate as it does wall time.
"""

from pathlib import Path

from git_teddy.artifacts.plan import check_plan
from git_teddy.artifacts.plan.bounds import MAX_NESTING, MAX_PLAN_CHARS
from testing.commands import Result, Teddy, git
from testing.cpu import cpu_timed
from testing.llm_servers import OpenAIServer, model_reply
from testing.plans import CONCLUDE, create, plan_text

BOUND = 10.0  # CPU seconds: against a quadratic parse; each case takes well under one
PLAN_BOUND = 2 * BOUND  # `plan` also loads the tokenizer, snapshots, writes the attempts

UNCLOSED_LINKS = "[a](" * 4096  # 16 KB
NESTED = "".join("  " * level + "- x\n" for level in range(1000))  # 1000 levels, 1 MB
NESTED_PLAN = plan_text(CONCLUDE) + "\n" + NESTED + "filler line\n" * 6000


def timed(call: object, *args: object, **kwargs: object) -> tuple[object, float]:
    """What `call` returned and the CPU seconds it took (its commands' included)."""
    return cpu_timed(lambda: call(*args, **kwargs))  # type: ignore[operator]


def user_error(result: Result) -> None:
    assert result.returncode == 1, result.stderr
    assert "error:" in result.stderr and "hint:" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr, result.stderr


def fsck(repo: Path, env: dict[str, str]) -> None:
    git(repo, env, "fsck", "--strict", "--no-progress")


def test_unclosed_links_in_a_message_are_read_in_seconds(teddy: Teddy, tmp_path: Path) -> None:
    plan = tmp_path / "plan.md"
    plan.write_text(plan_text(f"### `CHAT_WITH_USER`\n{UNCLOSED_LINKS}\n"))
    result, took = timed(teddy, tmp_path, "validate", str(plan))
    assert took < BOUND
    assert result.returncode == 0, result.stderr  # a message may be any text
    assert "CHAT_WITH_USER" in result.stdout


def test_unclosed_links_in_a_path_are_a_problem_in_seconds(teddy: Teddy, tmp_path: Path) -> None:
    plan = tmp_path / "plan.md"
    plan.write_text(plan_text(create(UNCLOSED_LINKS, "x\n")))
    result, took = timed(teddy, tmp_path, "validate", str(plan))
    assert took < BOUND
    user_error(result)
    assert "a metadata line is longer than 2000 characters" in result.stderr


def test_a_1000_level_list_is_refused_in_seconds(teddy: Teddy, tmp_path: Path) -> None:
    plan = tmp_path / "plan.md"
    plan.write_text(NESTED_PLAN)
    assert len(NESTED_PLAN) > 1_000_000
    result, took = timed(teddy, tmp_path, "validate", str(plan))
    assert took < BOUND
    user_error(result)
    assert f"nested more than {MAX_NESTING} levels deep" in result.stderr


def test_a_long_line_of_list_markers_is_refused_in_seconds(teddy: Teddy, tmp_path: Path) -> None:
    plan = tmp_path / "plan.md"
    plan.write_text(plan_text(CONCLUDE) + "\n" + "- " * 50_000 + "x\n")
    result, took = timed(teddy, tmp_path, "validate", str(plan))
    assert took < BOUND
    user_error(result)
    assert "nested more than" in result.stderr


def test_a_2_mb_file_in_a_plan_is_read_in_seconds(teddy: Teddy, tmp_path: Path) -> None:
    content = "def f(x):\n    return [x, (x), {'a': x}]  # [link](x) *a* `b`\n" * 30_000
    plan = tmp_path / "plan.md"
    plan.write_text(plan_text(create("big.py", content)))
    assert len(content) > 1_800_000
    result, took = timed(teddy, tmp_path, "validate", str(plan), "--json")
    assert took < BOUND
    assert result.returncode == 0, result.stderr
    assert '"path": "big.py"' in result.stdout


def test_a_plan_larger_than_the_limit_is_refused_at_once(teddy: Teddy, tmp_path: Path) -> None:
    plan = tmp_path / "plan.md"
    plan.write_text(plan_text(create("big.txt", "x" * MAX_PLAN_CHARS + "\n")))
    result, took = timed(teddy, tmp_path, "validate", str(plan))
    assert took < BOUND
    user_error(result)
    assert "more than the 2,000,000 a plan may have" in result.stderr


def test_the_deadline_stops_whatever_is_still_slow() -> None:
    # Blocks of a CREATE with text between them: finding where each was meant to end scans
    # to the end of the plan (quadratic); the deadline cuts it off.
    text = "# T\n## Action Plan\n### `CREATE`\n" + "```a\nx\n```\nyy\n" * 40_000
    (plan, problems), took = timed(check_plan, text, seconds=1.0)
    assert plan is None and took < 1.0 + BOUND / 2
    assert [p.message for p in problems] == [
        "the plan could not be read within 1 s of processor time (stopped at line 1): "
        "its Markdown is pathological"
    ]


def test_plan_from_file_refuses_a_nested_plan_and_records_nothing(
    repo: Path, teddy: Teddy, env: dict[str, str], tmp_path: Path
) -> None:
    session = teddy.ok(repo, "new", "work").stdout.strip()
    before = git(repo, env, "rev-parse", f"teddy/{session}/main")
    plan = tmp_path / "plan.md"
    plan.write_text(NESTED_PLAN)
    result, took = timed(teddy, repo, "plan", "-m", "go", "--from-file", str(plan))
    assert took < PLAN_BOUND
    user_error(result)
    assert "nested more than" in result.stderr
    assert git(repo, env, "rev-parse", f"teddy/{session}/main") == before
    assert git(repo, env, "status", "--porcelain") == ""
    fsck(repo, env)


def test_a_model_is_told_what_is_wrong_and_its_next_plan_is_recorded(
    repo: Path, teddy: Teddy, env: dict[str, str], openai_server: OpenAIServer
) -> None:
    env.update(openai_server.env())
    slow = plan_text(create(UNCLOSED_LINKS, "x\n"))
    openai_server.push(model_reply(slow), model_reply(plan_text(create("a.txt", "a\n"))))
    session = teddy.ok(repo, "new", "work").stdout.strip()
    _, took = timed(teddy.ok, repo, "plan", "-m", "go")
    assert took < PLAN_BOUND
    assert len(openai_server.requests) == 2
    retry = openai_server.requests[1].json["messages"][-1]["content"]
    assert "a metadata line is longer than 2000 characters" in retry
    recorded = git(repo, env, "show", f"teddy/{session}/main:01/plan.md")
    assert "[a.txt](/a.txt)" in recorded
    fsck(repo, env)
