"""docs/plan-format.md cannot drift from the parser: every example plan or action in it is
valid as written (and needs no repair), every action has an example, every row of its path
table reads as the table says, and its pipeline example is a valid pipeline."""

import re
from pathlib import Path

import pytest

from git_teddy.artifacts.plan import ACTION_TYPES, read_plan
from git_teddy.planning.pipelines import parse_pipeline
from testing.plans import plan_text

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs" / "plan-format.md").read_text(encoding="utf-8")
EXAMPLES = re.findall(r"^`````markdown\n(.*?)^`````$", DOC, re.M | re.S)
TABLE = DOC[DOC.index("<!-- path-table: begin -->") : DOC.index("<!-- path-table: end -->")]
ROWS = [
    [cell.strip() for cell in line.strip().strip("|").split("|")]
    for line in TABLE.splitlines()[3:]
    if line.startswith("|")
]


def code(cell: str) -> str:
    """The text of a table cell that is one code span (`x` or `` `x` ``)."""
    match = re.fullmatch(r"(`+) ?(.*?) ?\1", cell)
    assert match is not None, cell
    return match.group(2)


def as_plan(example: str) -> str:
    return example if example.startswith("# ") else plan_text(example, agent="Dev")


def test_the_doc_has_examples_and_a_path_table() -> None:
    assert len(EXAMPLES) >= 9 and len(ROWS) >= 15


@pytest.mark.parametrize("example", EXAMPLES, ids=range(len(EXAMPLES)))
def test_every_example_is_a_valid_plan_that_needs_no_repair(example: str) -> None:
    checked = read_plan(as_plan(example))
    assert checked.problems == ()
    assert checked.notes == ()


def test_every_action_has_an_example() -> None:
    shown = {
        action.type
        for example in EXAMPLES
        for action in (read_plan(as_plan(example)).plan or pytest.fail(example)).actions
    }
    assert shown == set(ACTION_TYPES)


def create_with(written: str) -> str:
    return f"### `CREATE`\n- **File Path:** {written}\n- **Description:** D.\n````\nx\n````\n"


def read_with(written: str) -> str:
    return f"### `READ`\n- **Resource:** {written}\n- **Description:** D.\n"


@pytest.mark.parametrize("row", ROWS, ids=[row[0] for row in ROWS])
def test_every_row_of_the_path_table_reads_as_documented(row: list[str]) -> None:
    written, read_as, kind = code(row[0]), row[1], row[2]
    for action in (create_with(written), read_with(written)):
        checked = read_plan(plan_text(action))
        if read_as.startswith("error: "):
            assert checked.plan is None
            assert [read_as.removeprefix("error: ") in p.message for p in checked.problems] == [
                True
            ]
            continue
        assert checked.plan is not None, checked.problems
        got = checked.plan.actions[0]
        assert (getattr(got, "path", None) or getattr(got, "resource", None)) == code(read_as)
        repairs = [note for note in checked.notes if note.message.startswith("repaired: ")]
        assert len(repairs) == (1 if kind == "repaired" else 0)
        assert kind in ("repaired", "as is")


def test_the_pipeline_example_is_a_valid_pipeline() -> None:
    (example,) = re.findall(r"^```yaml\n(.*?)^```$", DOC, re.M | re.S)
    pipeline = parse_pipeline(example, "doc")
    assert [step.name for step in pipeline.steps] == ["analysis", "plan"]


def test_the_readme_and_the_man_page_link_the_doc() -> None:
    assert "docs/plan-format.md" in (ROOT / "README.md").read_text(encoding="utf-8")
    man = (ROOT / "docs" / "git-teddy.1").read_text(encoding="utf-8").replace("\\-", "-")
    assert "plan format is described in docs/plan-format.md" in man  # validate --help
