"""One UI seam: click, prompts and the terminal belong to git_teddy/cli/. Library code tells
and asks the user only through the UI it is given (git_teddy.ui), so every module outside
cli/ is read with `ast` for the ways around it: importing click (or getpass), calling
print() or input(), touching sys.stdin/stdout/stderr, asking whether something is a tty."""

import ast
from pathlib import Path

import pytest

import git_teddy

PACKAGE = Path(git_teddy.__file__).parent
CLI = PACKAGE / "cli"
BANNED_MODULES = {"click", "getpass"}
BANNED_CALLS = {"print", "input"}
STD_STREAMS = {"stdin", "stdout", "stderr"}

# Modules that talk to a terminal themselves, and why. Each must still need its exception.
EXCEPTIONS = {
    # git runs the hooks as programs of their own, outside the CLI: their input on stdin and
    # their messages on stderr are git's hook protocol.
    "hooks/pre_push.py": "reads the pushed refs on stdin, refuses on stderr",
    "hooks/prepare_commit_msg.py": "warns on stderr, never fails a commit",
}


def _imported(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
        return [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
    return []


def _problem(node: ast.AST) -> str | None:
    """What `node` does that only the CLI may do, if anything."""
    for name in _imported(node):
        if name.split(".")[0] in BANNED_MODULES or name in {f"sys.{s}" for s in STD_STREAMS}:
            return f"imports {name}"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return f"calls {node.func.id}()" if node.func.id in BANNED_CALLS else None
    if not isinstance(node, ast.Attribute):
        return None
    if node.attr == "isatty":
        return "asks whether something is a terminal (isatty)"
    on_sys = isinstance(node.value, ast.Name) and node.value.id == "sys"
    return f"uses sys.{node.attr}" if on_sys and node.attr in STD_STREAMS else None


def problems_in(source: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        problem = _problem(node)
        if problem:
            found.append(f"line {getattr(node, 'lineno', '?')}: {problem}")
    return found


def library_modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if CLI not in p.parents)


def test_the_checker_finds_each_way_around_the_ui() -> None:
    """The seam check below can fail: each banned form is found, harmless look-alikes not."""
    offending = [
        "import click",
        "from click import echo",
        "import getpass",
        "from sys import stdin",
        "print('hi')",
        "input('name? ')",
        "sys.stdin.read()",
        "sys.stdout.write('x')",
        "sys.stderr.flush()",
        "os.isatty(0)",
        "stream.isatty()",
    ]
    for source in offending:
        assert problems_in(source), source
    harmless = "ui.progress('x')\nsubprocess.run(['git'], stdin=subprocess.DEVNULL)\nprint_x()"
    assert problems_in(harmless) == []


def test_only_the_cli_talks_to_the_terminal() -> None:
    found = {}
    for path in library_modules():
        name = path.relative_to(PACKAGE).as_posix()
        problems = problems_in(path.read_text(encoding="utf-8"))
        if problems and name not in EXCEPTIONS:
            found[name] = problems
    assert not found, (
        "only git_teddy/cli/ may use click, print, input, sys.std* or isatty; library code "
        f"tells and asks through the UI it is given (git_teddy.ui): {found}"
    )


@pytest.mark.parametrize("name", sorted(EXCEPTIONS))
def test_each_exception_is_still_needed(name: str) -> None:
    assert problems_in((PACKAGE / name).read_text(encoding="utf-8")), (
        f"{name} no longer talks to the terminal: remove it from EXCEPTIONS"
    )


def test_the_ui_module_stays_at_the_bottom() -> None:
    """git_teddy.ui is layer 0: it may name the plan's models (for types), nothing above."""
    tree = ast.parse((PACKAGE / "ui.py").read_text(encoding="utf-8"))
    imported = [n for node in ast.walk(tree) for n in _imported(node)]
    ours = [n for n in imported if n.startswith("git_teddy.")]
    assert ours and all(n.startswith("git_teddy.artifacts.") for n in ours), ours
