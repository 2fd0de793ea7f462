"""A plan that validates executes as it reads: for every valid plan of the corpus
(tests/fixtures/plans) that writes files, the paths `git teddy validate --json` reports are
exactly the paths `git teddy execute` writes, in a real repository, through the installed
executable. Each plan runs with its CREATE and EDIT actions only, as written (other actions
would read, run or ask); the files its EDITs change are committed first, holding what they
find."""

import json
from pathlib import Path

import pytest

from git_teddy.artifacts.plan import Create, EditFile, Plan, read_plan
from testing.commands import Teddy, git
from testing.repos import commit_files

CORPUS = Path(__file__).parent / "fixtures" / "plans"


def file_actions_only(text: str, plan: Plan) -> str:
    """The plan as written, without its actions other than CREATE and EDIT."""
    lines = text.split("\n")
    starts = [action.line for action in plan.actions] + [len(lines) + 1]
    kept = lines[: starts[0] - 1]
    for action, start, end in zip(plan.actions, starts, starts[1:], strict=False):
        if action.type in ("CREATE", "EDIT"):
            kept += lines[start - 1 : end - 1]
    return "\n".join(kept)


def writing_plans() -> list[Path]:
    chosen = []
    for path in sorted(CORPUS.glob("*.md")):
        plan = read_plan(path.read_bytes().decode("utf-8")).plan
        if plan is not None and any(a.type in ("CREATE", "EDIT") for a in plan.actions):
            chosen.append(path)
    return chosen


PLANS = writing_plans()


def seeds(plan: Plan) -> dict[str, str]:
    """The files the plan's EDITs change without creating them first: what they find."""
    created: set[str] = set()
    files: dict[str, str] = {"base.txt": "base\n"}
    for action in plan.actions:
        if isinstance(action, Create):
            created.add(action.path)
        elif isinstance(action, EditFile) and action.path not in created:
            files[action.path] = "".join(edit.find + "\n" for edit in action.edits)
    return files


def changed_paths(repo: Path, env: dict) -> set[str]:
    out = git(repo, env, "status", "--porcelain", "-z", "--untracked-files=all")
    paths = {entry[3:] for entry in out.split("\0") if entry}
    return {path for path in paths if not path.startswith(".teddy/")}


def test_the_corpus_has_writing_plans_with_odd_paths() -> None:
    names = {path.stem for path in PLANS}
    assert {"paths_with_spaces", "links_repaired", "non_ascii"} <= names
    assert len(PLANS) >= 15


@pytest.mark.parametrize("plan_file", PLANS, ids=[p.stem for p in PLANS])
def test_validated_paths_are_the_paths_execute_writes(
    plan_file: Path, empty_repo: Path, env: dict, teddy: Teddy
) -> None:
    given = plan_file.read_bytes().decode("utf-8")
    original = read_plan(given).plan
    assert original is not None
    text = file_actions_only(given, original)
    plan_path = empty_repo.parent / "plan.md"
    plan_path.write_bytes(text.encode("utf-8"))

    validated = json.loads(teddy.ok(empty_repo, "validate", "--json", str(plan_path)).stdout)
    paths = [action["path"] for action in validated["actions"]]
    wanted = [a.path for a in original.actions if isinstance(a, Create | EditFile)]
    assert paths == wanted  # the cut keeps every file action as it was
    expected = json.loads(plan_file.with_suffix(".json").read_text(encoding="utf-8"))
    assert paths == [a["path"] for a in expected["actions"] if a["type"] in ("CREATE", "EDIT")]

    files = seeds(original)
    for name in files:
        (empty_repo / name).parent.mkdir(parents=True, exist_ok=True)
    commit_files(empty_repo, env, files)
    teddy.ok(empty_repo, "new", "paths")
    agent = original.metadata.get("Agent", "Dev").lower()  # the header names who plans
    planned = teddy.ok(
        empty_repo, "plan", "-m", "write", "-a", agent, "--from-file", str(plan_path)
    )
    for note in read_plan(text).notes:  # each repair is reported, as validate reports it
        assert f"warning: line {note.line}: {note.message}\n" in planned.stderr
    teddy.ok(empty_repo, "execute", "-y")

    assert changed_paths(empty_repo, env) == set(paths)
    edited = {a["path"] for a in validated["actions"] if a["type"] == "EDIT"}
    for action in validated["actions"]:
        if action["type"] == "CREATE" and action["path"] not in edited:
            written = (empty_repo / action["path"]).read_bytes().decode("utf-8")
            assert written == action["content"]
