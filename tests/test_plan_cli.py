"""End to end: `git teddy validate` and `git teddy preprocess` through the installed executable,
in a folder that is not a git repository."""

import json
import os
import random
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures" / "plans"

BROKEN = """# Fix the README
## Rationale
```text
### 1. Synthesis
a
### 2. Justification
b
### 3. Expected Outcome
c
### 4. State Dashboard
d
```
## Action Plan
### `CREATE`
- **File Path:** [README.md](/README.md)
```markdown
# Demo
```python
print(1)
```
```
"""


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder with no git repository in it or above it (tmp_path's parents have none)."""
    folder = tmp_path / "work"
    folder.mkdir()
    probe = subprocess.run(["git", "rev-parse", "--git-dir"], cwd=folder, capture_output=True)
    assert probe.returncode != 0, "the test folder must not be inside a git repository"
    return folder


def copy_fixture(name: str, folder: Path) -> Path:
    target = folder / name
    shutil.copyfile(FIXTURES / name, target)
    return target


def test_validate_a_valid_file_prints_a_summary(teddy, outside):
    copy_fixture("spec_example.md", outside)
    result = teddy.ok(outside, "validate", "spec_example.md")
    assert 'Research and Propose a New "Finisher" Agent Role' in result.stdout
    assert "5 action(s)" in result.stdout
    assert "CREATE docs/briefs/01-finisher-agent-brief.md" in result.stdout
    assert "INVOKE Architect" in result.stdout


def test_validate_json_prints_the_plan_in_the_documented_shape(teddy, outside):
    copy_fixture("action_execute.md", outside)
    result = teddy.ok(outside, "validate", "action_execute.md", "--json")
    plan = json.loads(result.stdout)
    assert plan == json.loads((FIXTURES / "action_execute.json").read_text())
    assert list(plan) == ["title", "metadata", "rationale", "memos", "actions"]
    assert list(plan["actions"][0]) == [
        "type",
        "command",
        "description",
        "expected_outcome",
        "cwd",
        "env",
    ]


def test_validate_reads_stdin_for_a_dash(teddy, outside):
    text = (FIXTURES / "non_ascii.md").read_text(encoding="utf-8")
    result = teddy.ok(outside, "validate", "-", "--json", input=text)
    assert json.loads(result.stdout)["actions"][0]["path"] == "docs/café/résumé.md"


def test_validate_an_invalid_plan_lists_every_problem_with_line_and_hint(teddy, outside):
    copy_fixture("unsafe_paths.md", outside)
    result = teddy(outside, "validate", "unsafe_paths.md")
    assert result.returncode == 1
    errors = [line for line in result.stderr.splitlines() if line.startswith("error: line ")]
    hints = [line for line in result.stderr.splitlines() if line.startswith("hint: ")]
    assert len(errors) == 5 and len(hints) == 5
    assert result.stderr.endswith("error: unsafe_paths.md is not a valid plan (5 problems)\n")
    assert "error: line 24: CREATE at line 23: `../outside.txt` contains `..`" in result.stderr
    assert "Traceback" not in result.stderr


def test_validate_json_prints_the_errors(teddy, outside):
    copy_fixture("find_without_replace.md", outside)
    result = teddy(outside, "validate", "--json", "find_without_replace.md")
    assert result.returncode == 1
    errors = json.loads(result.stdout)["errors"]
    assert (
        errors == json.loads((FIXTURES / "find_without_replace.errors.json").read_text())["errors"]
    )
    assert "without a REPLACE block" in errors[0]["message"]


def test_validate_a_missing_file_is_a_user_error(teddy, outside):
    result = teddy(outside, "validate", "nope.md")
    assert result.returncode == 1
    assert result.stderr.startswith("error: cannot read nope.md")
    assert "hint: " in result.stderr


def test_validate_without_a_file_is_a_usage_error(teddy, outside):
    result = teddy(outside, "validate")
    assert result.returncode == 2


@pytest.mark.parametrize("seed", range(8))
def test_random_bytes_never_give_a_traceback(teddy, outside, seed):
    generator = random.Random(seed)
    data = bytes(generator.randrange(256) for _ in range(generator.randrange(1, 3000)))
    if seed % 2:  # valid UTF-8 too, so the parser itself sees noise
        data = data.decode("utf-8", "replace").encode("utf-8")
    (outside / "noise.md").write_bytes(data)
    for args in (["validate", "noise.md"], ["validate", "--json", "noise.md"]):
        result = teddy(outside, *args)
        assert result.returncode == 1, result.stderr
        assert "Traceback" not in result.stderr and "error: " in result.stderr + result.stdout
    result = teddy(outside, "preprocess", "noise.md")
    assert "Traceback" not in result.stderr
    assert result.returncode == (0 if seed % 2 else 1)


def test_preprocess_prints_the_sanitized_plan_from_stdin(teddy, outside):
    result = teddy.ok(outside, "preprocess", input=BROKEN)
    assert "````markdown\n# Demo\n```python\nprint(1)\n```\n````\n" in result.stdout
    assert teddy.ok(outside, "validate", "-", input=result.stdout).returncode == 0
    assert teddy.ok(outside, "preprocess", input=result.stdout).stdout == result.stdout


def test_preprocess_a_file_prints_it_and_leaves_the_file_alone(teddy, outside):
    plan = outside / "plan.md"
    plan.write_text(BROKEN)
    result = teddy.ok(outside, "preprocess", "plan.md")
    assert "````markdown" in result.stdout
    assert plan.read_text() == BROKEN


def test_preprocess_in_place_rewrites_the_file(teddy, outside):
    plan = copy_fixture("crlf.md", outside)
    teddy.ok(outside, "preprocess", "-i", "crlf.md")
    rewritten = plan.read_bytes()
    assert b"\r\n" not in rewritten
    expected = (FIXTURES / "crlf.md").read_bytes().replace(b"\r\n", b"\n")
    assert rewritten == expected
    result = teddy.ok(outside, "validate", "--json", "crlf.md")
    assert json.loads(result.stdout) == json.loads((FIXTURES / "crlf.json").read_text())


def test_validate_and_preprocess_report_each_repair_and_what_is_left_out(teddy, outside):
    copy_fixture("links_repaired.md", outside)
    result = teddy.ok(outside, "validate", "links_repaired.md")
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning: ")]
    assert warnings == [
        "warning: line 24: repaired: the link target `app.py` is not root-relative: read as "
        "`/app.py`",
        "warning: line 31: repaired: the path `src/util.py` is not a link: read as "
        "`[src/util.py](/src/util.py)`",
        "warning: line 38: repaired: the path `docs/read me.md` is not a link: read as "
        "`[docs/read me.md](</docs/read me.md>)`",
        "warning: line 45: repaired: the link target `app.py` is not root-relative: read as "
        "`/app.py`",
    ]
    assert "CREATE docs/read me.md" in result.stdout

    result = teddy.ok(outside, "preprocess", "-i", "links_repaired.md")
    assert result.stderr.count("warning: line ") == 4
    rewritten = (outside / "links_repaired.md").read_text()
    assert "- **File Path:** [app.py](/app.py)\n" in rewritten
    assert "- **File Path:** [docs/read me.md](</docs/read me.md>)\n" in rewritten
    again = teddy.ok(outside, "validate", "links_repaired.md")
    assert "warning:" not in again.stderr

    copy_fixture("create_two_blocks.md", outside)
    result = teddy.ok(outside, "validate", "create_two_blocks.md")
    assert "warning: line 30: CREATE at line 23 has 2 code blocks: the first is" in result.stderr


def test_validate_refuses_links_whose_text_and_target_disagree(teddy, outside):
    copy_fixture("links_wrong.md", outside)
    result = teddy(outside, "validate", "links_wrong.md")
    assert result.returncode == 1
    assert (
        "error: line 24: CREATE at line 23: the link text `the app` and its target `/app.py` "
        "name different paths" in result.stderr
    )
    assert result.stderr.endswith("error: links_wrong.md is not a valid plan (4 problems)\n")


def test_preprocess_in_place_needs_a_file(teddy, outside):
    result = teddy(outside, "preprocess", "--in-place", input=BROKEN)
    assert result.returncode == 2
    assert "--in-place needs a FILE" in result.stderr


def isolated_path(folder: Path, tools: dict[str, str]) -> str:
    """A PATH with git, git-teddy and the given scripts only: no real clipboard tool."""
    folder.mkdir()
    for name in ("git", "git-teddy"):
        found = shutil.which(
            name, path=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
        )
        assert found
        (folder / name).symlink_to(found)
    for name, script in tools.items():
        tool = folder / name
        tool.write_text(script)
        tool.chmod(tool.stat().st_mode | stat.S_IEXEC)
    return str(folder)


def test_preprocess_clipboard_without_a_tool_is_a_clear_error(teddy, outside, tmp_path):
    teddy.env["PATH"] = isolated_path(tmp_path / "bin", {})
    result = teddy(outside, "preprocess", "--clipboard")
    assert result.returncode == 1
    assert result.stderr.startswith("error: no clipboard tool found")
    assert "hint: " in result.stderr


def test_preprocess_clipboard_reads_and_writes_it_back(teddy, outside, tmp_path):
    board = tmp_path / "board.txt"
    board.write_text(BROKEN)
    xsel = f"""#!{sys.executable}
import sys
from pathlib import Path
board = Path({str(board)!r})
if sys.argv[2] == "--output":
    sys.stdout.write(board.read_text())
else:
    board.write_text(sys.stdin.read())
"""
    teddy.env["PATH"] = isolated_path(tmp_path / "bin", {"xsel": xsel})
    result = teddy.ok(outside, "preprocess", "--clipboard")
    assert "sanitized the plan in the clipboard" in result.stderr
    assert "````markdown\n# Demo\n```python" in board.read_text()


def test_preprocess_clipboard_tool_failure_is_a_user_error(teddy, outside, tmp_path):
    failing = f'#!{sys.executable}\nimport sys\nsys.exit("Error: Can\'t open display")\n'
    teddy.env["PATH"] = isolated_path(tmp_path / "bin", {"xsel": failing})
    result = teddy(outside, "preprocess", "--clipboard")
    assert result.returncode == 1
    assert "Can't open display" in result.stderr and "hint: " in result.stderr
