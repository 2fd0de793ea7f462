"""The corpus under tests/fixtures/plans: each NAME.md parses to NAME.json, or fails with
exactly the problems in NAME.errors.json, and gives exactly the notes (repairs, parts left
out) in NAME.notes.json (none without one). Plus a generated plan of more than 1 MB."""

import json
from pathlib import Path

import pytest
from big_plan import big_plan

from git_teddy.artifacts.plan import (
    check_plan,
    parse_plan,
    plan_to_json,
    problems_to_json,
    read_plan,
    sanitize,
)

CORPUS = Path(__file__).parent.parent / "fixtures" / "plans"
PLANS = sorted(CORPUS.glob("*.md"))


def expected(plan_file: Path) -> tuple[str, dict]:
    for suffix in (".json", ".errors.json"):
        path = plan_file.with_name(plan_file.stem + suffix)
        if path.exists():
            return suffix, json.loads(path.read_text(encoding="utf-8"))
    raise AssertionError(f"{plan_file.name} has no expected .json or .errors.json")


def read(plan_file: Path) -> str:
    return plan_file.read_bytes().decode("utf-8")


def test_the_corpus_has_at_least_30_plans_with_both_outcomes():
    suffixes = [expected(plan)[0] for plan in PLANS]
    assert len(PLANS) >= 30
    assert suffixes.count(".json") >= 15 and suffixes.count(".errors.json") >= 10


@pytest.mark.parametrize("plan_file", PLANS, ids=[p.stem for p in PLANS])
def test_corpus_plan_gives_its_expected_result(plan_file):
    suffix, want = expected(plan_file)
    plan, problems = check_plan(read(plan_file))
    got = plan_to_json(plan) if plan is not None else problems_to_json(problems)
    assert (suffix == ".json") == (plan is not None)
    assert got == want


@pytest.mark.parametrize("plan_file", PLANS, ids=[p.stem for p in PLANS])
def test_corpus_plan_gives_its_expected_notes(plan_file):
    notes_file = plan_file.with_name(plan_file.stem + ".notes.json")
    want = json.loads(notes_file.read_text(encoding="utf-8")) if notes_file.exists() else None
    notes = [note.as_dict() for note in read_plan(read(plan_file)).notes]
    assert ({"notes": notes} if notes else None) == want


def test_the_corpus_exercises_every_kind_of_note():
    notes = [
        note["message"]
        for path in CORPUS.glob("*.notes.json")
        for note in json.loads(path.read_text(encoding="utf-8"))["notes"]
    ]
    for kind in ("is not root-relative", "is not a link", "angle brackets", "are left out"):
        assert any(kind in message for message in notes), kind


@pytest.mark.parametrize("plan_file", PLANS, ids=[p.stem for p in PLANS])
def test_corpus_errors_name_a_line_of_the_file_and_give_a_hint(plan_file):
    text = read(plan_file)
    _, problems = check_plan(text)
    line_count = max(1, len(text.splitlines()))
    for problem in problems:
        assert 1 <= problem.line <= line_count
        assert len(problem.hint) > 10 and problem.message


@pytest.mark.parametrize("plan_file", PLANS, ids=[p.stem for p in PLANS])
def test_sanitizing_a_corpus_plan_twice_changes_nothing_more(plan_file):
    once = sanitize(read(plan_file))
    assert sanitize(once) == once
    plans = [check_plan(text)[0] for text in (once, read(plan_file))]
    assert [plan_to_json(plan) if plan else None for plan in plans[:1]] == [
        plan_to_json(plan) if plan else None for plan in plans[1:]
    ]


def test_the_crlf_fixture_really_has_crlf_line_ends():
    assert b"\r\n" in (CORPUS / "crlf.md").read_bytes()


def test_the_spec_example_is_accepted_as_is():
    text = read(CORPUS / "spec_example.md")
    assert sanitize(text) == text  # correctly fenced already
    assert [a.type for a in parse_plan(text).actions] == [
        "RESEARCH",
        "CREATE",
        "EDIT",
        "CHAT_WITH_USER",
        "INVOKE",
    ]


def test_a_plan_of_more_than_1_mb_parses_with_every_action_intact():
    text, chunks = big_plan()
    assert len(text.encode()) > 1_000_000
    plan = plan_to_json(parse_plan(text))
    actions = plan["actions"]
    assert len(actions) == 3 * chunks
    last = chunks - 1
    create, edit, execute = actions[-3:]
    assert create["content"] == (
        f"# Page {last}\n```python\nprint({last})\n```\nText with ``` inline and café.\n"
    )
    assert edit["edits"] == [{"find": f"value = {last}", "replace": f"value = {last + 1}"}]
    assert execute["command"] == f"pytest -k test_{last}"
