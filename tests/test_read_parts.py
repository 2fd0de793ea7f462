"""Issue 27 item 4: READ of part of a file, a line range (`[app.py](/app.py#L120-L180)`) or a
symbol (`#split_into`): resolved against the snapshot, shown with the file's line numbers,
counted, PRUNEd like any entry; a range past the end or an unknown symbol sent back to the
model as a plan problem."""

from pathlib import Path

import pytest

from git_teddy.artifacts.plan import check_plan
from git_teddy.artifacts.read_parts import PartError, excerpt, fragment_problem, split_part
from testing.commands import Teddy, git
from testing.plans import create, edit, plan_text
from testing.repos import commit_files
from testing.sessions import queue, report_of

FIXTURES = Path(__file__).parent / "fixtures" / "symbols"
PYTHON = (FIXTURES / "shapes.py").read_text()  # 27 lines
GO = (FIXTURES / "shapes.go").read_text()


def read_part(path: str, fragment: str) -> str:
    return (
        f"### `READ`\n- **Resource:** [{path}](/{path}#{fragment})\n"
        "- **Description:** Only that part.\n"
    )


def prune(resource: str) -> str:
    return f"### `PRUNE`\n- **Resource:** [{resource}](/{resource})\n- **Description:** Done.\n"


# ---- pure ----------------------------------------------------------------------------------------


def test_a_resource_splits_into_its_file_and_its_part() -> None:
    assert split_part("app.py#L120-L180") == ("app.py", "L120-L180")
    assert split_part("src/app.py#split_into") == ("src/app.py", "split_into")
    assert split_part("app.py") == ("app.py", None)
    assert split_part("https://example.com/doc#part") == ("https://example.com/doc#part", None)
    assert split_part("session:01/plan.md") == ("session:01/plan.md", None)
    assert split_part("docs/C#.md") == ("docs/C#.md", None)  # a `#` in a file's name
    assert split_part("notes#1.txt") == ("notes#1.txt", None)


@pytest.mark.parametrize(
    ("fragment", "problem"),
    [
        ("L120-L180", None),
        ("L120-180", None),
        ("L7", None),
        ("split_into", None),
        ("Circle.area", None),
        ("L0-L3", "line numbers start at 1"),
        ("L9-L3", "the range ends (line 3) before it starts"),
    ],
)
def test_the_form_of_a_part(fragment: str, problem: str | None) -> None:
    found = fragment_problem(fragment)
    assert found == problem if problem is None else (found or "").startswith(problem)


def test_a_range_and_a_symbol_come_with_the_files_line_numbers() -> None:
    lines = excerpt("geo/shapes.py", PYTHON, "L14-L15")
    assert (
        lines.text
        == "14 | class Circle(Shape):\n15 |     def __init__(self, radius: float) -> None:\n"
    )
    assert lines.note == "lines 14-15 of 27, numbered"
    member = excerpt("geo/shapes.py", PYTHON, "Circle.area")
    assert member.text.splitlines() == [
        "18 |     def area(self) -> float:",
        "19 |         return math.pi * self.radius**2",
    ]
    go = excerpt("geo/shapes.go", GO, "TotalArea")
    assert (go.start, go.end) == (25, 31) and go.text.endswith("31 | }\n")


@pytest.mark.parametrize(
    ("fragment", "message", "hint"),
    [
        ("L20-L40", "geo/shapes.py has 27 lines; `#L20-L40` goes past its end", "lines 1-27"),
        ("perimeter", "geo/shapes.py defines no symbol `perimeter`", "repository map"),
        ("area", "geo/shapes.py defines `area` 2 times (line 7, line 18)", "`Class.method`"),
    ],
)
def test_a_part_the_file_lacks_is_refused(fragment: str, message: str, hint: str) -> None:
    with pytest.raises(PartError) as refused:
        excerpt("geo/shapes.py", PYTHON, fragment)
    assert str(refused.value) == message and hint in refused.value.hint


def test_a_malformed_part_is_a_problem_of_the_plans_form() -> None:
    plan, problems = check_plan(plan_text(read_part("app.py", "L9-L3")))
    assert plan is None
    [problem] = problems
    assert "the range ends (line 3) before it starts" in problem.message
    assert "/app.py#L120-L180" in problem.hint
    plan, problems = check_plan(plan_text(read_part("app.py", "L3-L9")))
    assert plan is not None and not problems
    assert plan.actions[0].model_dump()["resource"] == "app.py#L3-L9"


# ---- in a repository -----------------------------------------------------------------------------


def test_read_of_a_range_and_of_a_symbol_then_prune(
    repo: Path, teddy: Teddy, env: dict, replies: Path
) -> None:
    (repo / "geo").mkdir()
    commit_files(repo, env, {"geo/shapes.py": PYTHON, "geo/shapes.go": GO})
    session = teddy.ok(repo, "new", "parts").stdout.strip()
    queue(
        replies,
        plan_text(read_part("geo/shapes.py", "L14-L19"), read_part("geo/shapes.go", "TotalArea")),
        plan_text(prune("geo/shapes.py#L14-L19")),
        plan_text(create("x.txt", "x\n")),
    )
    teddy.ok(repo, "plan", "-m", "Look at the circle")
    report = teddy.ok(repo, "execute", "-y").stdout
    assert "geo/shapes.go#TotalArea (lines 25-31) added" in report
    teddy.ok(repo, "plan", "-m", "Go on")
    log = git(repo, env, "show", f"teddy/{session}/main:02/_context.log")
    assert "**Resource:** `[geo/shapes.py#L14-L19](/geo/shapes.py#L14-L19)`" in log
    assert "- `[geo/shapes.go#TotalArea](/geo/shapes.go#TotalArea)`: " in log
    python_part = log.split("(/geo/shapes.py#L14-L19)`\n", 1)[1]
    assert python_part.startswith("**Tokens:** ")
    assert int(python_part.split("\n", 1)[0].split()[-1]) > 10
    assert "**Note:** lines 14-19 of 27, numbered\n```python\n14 | class Circle(Shape):\n" in log
    assert "\n17 |\n18 |     def area(self) -> float:\n" in log  # no trailing blank
    assert "19 |         return math.pi * self.radius**2\n```" in log
    assert "def total_area" not in log.rsplit("## 5. Resource Contents", 1)[1]  # only the parts
    assert "```go\n25 | func TotalArea(shapes []Shape) float64 {\n" in log
    assert "\n31 | }\n```" in log
    rows = teddy.ok(repo, "context").stdout
    assert "geo/shapes.py#L14-L19" in rows and "geo/shapes.go#TotalArea" in rows

    teddy.ok(repo, "execute", "-y")
    teddy.ok(repo, "plan", "-m", "Done with the circle")
    third = git(repo, env, "show", f"teddy/{session}/main:03/_context.log")
    assert (
        "geo/shapes.py#L14-L19"
        not in third.rsplit("## 3. User Message", 1)[1].split("### System Information")[0]
    )  # PRUNEd: not in the summary
    assert "**Resource:** `[geo/shapes.go#TotalArea]" in third


def test_a_range_past_the_end_or_an_unknown_symbol_is_sent_back(
    repo: Path, teddy: Teddy, env: dict, replies: Path
) -> None:
    (repo / "geo").mkdir()
    commit_files(repo, env, {"geo/shapes.py": PYTHON})
    session = teddy.ok(repo, "new", "refused").stdout.strip()
    queue(
        replies,
        plan_text(read_part("geo/shapes.py", "L20-L40"), read_part("geo/shapes.py", "perimeter")),
        plan_text(read_part("geo/shapes.py", "L20-L27")),
    )
    planned = teddy.ok(repo, "plan", "-m", "Read the end")
    assert "2 attempt(s)" in planned.stdout + planned.stderr
    problems = git(repo, env, "show", f"teddy/{session}/main:01/attempts/01.problems.txt")
    assert (
        "READ geo/shapes.py#L20-L40: geo/shapes.py has 27 lines; `#L20-L40` goes past" in problems
    )
    assert "READ a range within lines 1-27, or the whole file" in problems
    assert "READ geo/shapes.py#perimeter: geo/shapes.py defines no symbol `perimeter`" in problems


def test_a_part_the_plans_own_edit_removes_fails_its_read(
    repo: Path, teddy: Teddy, env: dict, replies: Path
) -> None:
    """The READ runs after the plan's EDIT, on the files as they then are: the next turn's
    snapshot, where its part would be read from."""
    (repo / "geo").mkdir()
    commit_files(repo, env, {"geo/shapes.py": PYTHON})
    session = teddy.ok(repo, "new", "gone").stdout.strip()
    report_fn = PYTHON[PYTHON.index("def report") :]
    queue(
        replies,
        plan_text(
            edit("geo/shapes.py", report_fn.rstrip("\n"), "# no report"),
            read_part("geo/shapes.py", "report"),
        ),
    )
    teddy.ok(repo, "plan", "-m", "Drop the report")
    teddy(repo, "execute", "-y")
    [edited, gone] = report_of(repo, env, session)["action_logs"]
    assert edited["status"] == "SUCCESS" and gone["status"] == "FAILURE"
    assert gone["details"]["error"] == "geo/shapes.py defines no symbol `report`"
