"""Start-up cost of the per-turn commands (issue 16): what each one imports, run as the
installed command runs. Each module named here costs every turn milliseconds that
benchmarks/bench_startup.py measures; these tests keep them out of the commands that do
not use them."""

import subprocess
import sys
from pathlib import Path

from testing.commands import Teddy, imported_modules

PLAN = """# Greet
- **Agent:** Dev

## Rationale
````text
### 1. Synthesis
Text.
### 2. Justification
Text.
### 3. Expected Outcome
Text.
### 4. State Dashboard
Text.
````

## Action Plan

### `EDIT`
- **File Path:** [app.py](/app.py)
- **Description:** Say hi.

`FIND:`
```
print('hello')
```
`REPLACE:`
```
print('hi')
```
"""

PLAN_PARSER = {"commonmark", "git_teddy.artifacts.plan.parse", "git_teddy.artifacts.plan.fences"}


def test_new_loads_no_plan_parser_and_no_redactor(repo: Path, env: dict[str, str]) -> None:
    output, modules = imported_modules(repo, env, "new", "lean")
    assert output.strip().endswith("-lean")
    assert "git_teddy.session.logfiles" in modules  # the session log was written
    assert not modules & (PLAN_PARSER | {"git_teddy.redact"})


def test_a_turn_without_commands_loads_no_worktree_module(
    repo: Path, env: dict[str, str], teddy: Teddy, tmp_path: Path
) -> None:
    teddy.ok(repo, "new", "lean")
    plan = tmp_path / "plan.md"
    plan.write_text(PLAN)
    teddy.ok(repo, "plan", "-m", "greet", "--from-file", str(plan))
    _output, modules = imported_modules(repo, env, "execute", "-y")
    assert (repo / "app.py").read_text() == "print('hi')\n"
    assert modules >= PLAN_PARSER  # the plan was read
    assert "git_teddy.gitstore.worktree" not in modules


def test_plan_redacts_without_importing_detect_secrets(
    repo: Path, env: dict[str, str], teddy: Teddy, tmp_path: Path
) -> None:
    """Its plugins' patterns come from git_teddy.secret_formats' copy of this version's: the
    library (with requests, multiprocessing and email) cost every plan about 0.15 s."""
    teddy.ok(repo, "new", "lean")
    plan = tmp_path / "plan.md"
    plan.write_text(PLAN)
    _output, modules = imported_modules(repo, env, "plan", "-m", "greet", "--from-file", str(plan))
    assert "git_teddy.redact" in modules  # the request was redacted
    assert not {m for m in modules if m.split(".")[0] == "detect_secrets"}


def test_models_are_built_on_first_use(repo: Path) -> None:
    """Pydantic builds a model's validator when it is first used, not at import: a command
    pays only for the models it validates."""
    code = (
        "from git_teddy.artifacts.plan.models import Plan\n"
        "from git_teddy.artifacts.turn_record import TurnRecord\n"
        "print(Plan.__pydantic_complete__, TurnRecord.__pydantic_complete__)\n"
        "Plan.model_validate({'title': 't', 'rationale': 'r'})\n"
        "print(Plan.__pydantic_complete__)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=repo, capture_output=True, text=True, check=True
    )
    assert proc.stdout.split() == ["False", "False", "True"]
