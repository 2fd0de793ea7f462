"""One git layer, read from the source with `ast` (a module added tomorrow is checked too):

- every process git-teddy starts, it starts in `gitstore/runner.py`, with exactly three named
  exceptions: the user's EXECUTE commands, the clipboard tools and the pager, each in one
  module;
- git's arguments (a list or tuple literal starting with "git") are spelled only inside
  `gitstore/`, and outside it nobody calls the runner: callers use named operations;
- the runner and the other modules the fast paths use (hooks, `list`, `context`) load
  neither dulwich nor pydantic.
"""

import ast
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import git_teddy

PACKAGE = Path(git_teddy.__file__).parent
RUNNER = "gitstore/runner.py"
GIT_LAYER = "gitstore/"
# The only places besides the runner that start a process: each one module, and why.
PROCESS_EXCEPTIONS = {
    "execute/actions.py": "runs the user's EXECUTE commands",
    "llm/clipboard.py": "runs the clipboard tools",
    "cli/pager.py": "runs the user's pager",
    "planning/tool_probe.py": "probes the developer tools on PATH (`--version`, bounded)",
}
PROCESS_MODULES = {"subprocess", "pty", "asyncio.subprocess"}
OS_PROCESS_CALLS = ("system", "popen", "exec", "spawn", "posix_spawn", "fork")
# What code outside gitstore/ may take from the runner: its error, and the environment the
# user's EXECUTE commands run in. Never the functions that run git with git's arguments.
# What the runner offers that starts no process: its error, and the environment it runs git in.
RUNNER_NAMES_OUTSIDE = {
    "GitFailed",
    "isolated_environ",
    "anchor_repository_env",
    "skip_pydantic_plugins",
    "seed_yaml_pattern",
}
STDLIB_FAST_PATHS = [
    "git_teddy.gitstore.runner",
    "git_teddy.gitstore.plumbing",
    "git_teddy.gitstore.changes",
    "git_teddy.gitstore.layout",
    "git_teddy.gitstore.worktree_tree",
    "git_teddy.hooks.pre_push",
    "git_teddy.hooks.prepare_commit_msg",
    "git_teddy.planning.context_cache",
    "git_teddy.index.refresh",
]


# ---- the checks ---------------------------------------------------------------------------------


def _starts_process(node: ast.AST) -> str | None:
    """What starts (or imports what starts) a process at this node, if anything."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
        found = [n for n in names if n in PROCESS_MODULES or n.startswith("subprocess.")]
        return f"import {', '.join(found)}" if found else None
    if isinstance(node, ast.ImportFrom):
        names = [alias.name for alias in node.names]
        if node.module in PROCESS_MODULES or (node.module == "asyncio" and "subprocess" in names):
            return f"from {node.module} import {', '.join(names)}"
        if node.module == "os" and any(n.startswith(OS_PROCESS_CALLS) for n in names):
            return f"from os import {', '.join(names)}"
        return None
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        owner, name = node.value.id, node.attr
        if owner == "os" and name.startswith(OS_PROCESS_CALLS):
            return f"os.{name}"
        if (owner, name) == ("pty", "spawn") or (owner == "asyncio" and "subprocess" in name):
            return f"{owner}.{name}"
        if owner == "subprocess":
            return f"subprocess.{name}"
    if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
        called = ast.unparse(node.func)
        if called.endswith(("import_module", "__import__")) and node.args[0].value == "subprocess":
            return f"{called}('subprocess')"
    return None


def _spells_git(node: ast.AST) -> str | None:
    """A git argv: a list or tuple literal whose first element is "git"."""
    if isinstance(node, ast.List | ast.Tuple) and node.elts:
        first = node.elts[0]
        if isinstance(first, ast.Constant) and first.value == "git":
            return f"git argv {ast.unparse(node)[:60]}"
    return None


def _uses_runner(node: ast.AST) -> str | None:
    """Outside gitstore/: the runner's git-running functions, reached by any import."""
    if not isinstance(node, ast.Import | ast.ImportFrom):
        return None
    names = {alias.name for alias in node.names}
    module = node.module if isinstance(node, ast.ImportFrom) else None
    if module == "git_teddy.gitstore.runner" and names - RUNNER_NAMES_OUTSIDE:
        return f"from {module} import {', '.join(sorted(names - RUNNER_NAMES_OUTSIDE))}"
    if module == "git_teddy.gitstore" and "runner" in names:
        return f"from {module} import runner"
    if module is None and "git_teddy.gitstore.runner" in names:
        return "import git_teddy.gitstore.runner"
    return None


def violations(rel: str, source: str) -> Iterator[str]:
    """`<rel>:<line>: <what>` for everything module `rel` (a path under git_teddy/) does
    against the git layer."""
    may_start = rel == RUNNER or rel in PROCESS_EXCEPTIONS
    inside = rel.startswith(GIT_LAYER)
    for node in ast.walk(ast.parse(source, rel)):
        checks = [] if may_start else [_starts_process]
        checks += [] if inside else [_spells_git, _uses_runner]
        for check in checks:
            what = check(node)
            if what:
                yield f"git_teddy/{rel}:{getattr(node, 'lineno', 0)}: {what}"


def modules() -> dict[str, str]:
    return {
        path.relative_to(PACKAGE).as_posix(): path.read_text(encoding="utf-8")
        for path in sorted(PACKAGE.rglob("*.py"))
    }


# ---- the package as it is -------------------------------------------------------------------


def test_only_the_git_layer_runs_git() -> None:
    found = [v for rel, source in modules().items() for v in violations(rel, source)]
    assert not found, "outside the git layer (see tests/test_git_layer.py):\n" + "\n".join(found)


@pytest.mark.parametrize("rel", sorted(PROCESS_EXCEPTIONS))
def test_each_exception_is_still_needed(rel: str) -> None:
    """The list of exceptions stays exact: each one really starts processes."""
    tree = ast.parse((PACKAGE / rel).read_text(encoding="utf-8"))
    assert any(_starts_process(node) for node in ast.walk(tree)), f"{rel} starts no process"


def test_the_runner_is_the_only_module_that_starts_git() -> None:
    """Inside gitstore/ too: the named operations all go through the runner."""
    starting = {
        rel
        for rel, source in modules().items()
        if any(_starts_process(node) for node in ast.walk(ast.parse(source)))
    }
    assert starting == {RUNNER, *PROCESS_EXCEPTIONS}


def test_the_runner_imports_only_the_standard_library_and_errors() -> None:
    tree = ast.parse((PACKAGE / RUNNER).read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module)
    outside = {m for m in imported if m.split(".")[0] not in sys.stdlib_module_names}
    assert outside == {"git_teddy.errors"}


def test_the_fast_paths_load_neither_dulwich_nor_pydantic() -> None:
    code = (
        "import importlib, json, sys\n"
        f"for name in {STDLIB_FAST_PATHS!r}: importlib.import_module(name)\n"
        "print(json.dumps(sorted(m for m in ('dulwich', 'pydantic', 'yaml', 'click')"
        " if m in sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == []


# ---- the checks themselves find what they look for ------------------------------------------


@pytest.mark.parametrize(
    ("rel", "source", "expected"),
    [
        ("session/x.py", "import os\n\nimport subprocess\n", ["3: import subprocess"]),
        ("index/x.py", "from subprocess import run\n", ["1: from subprocess import run"]),
        ("cli/x.py", "import os\nos.system('ls')\n", ["2: os.system"]),
        ("cli/x.py", "import os\nos.execvp('git', [])\n", ["2: os.execvp"]),
        ("cli/x.py", "from os import popen\n", ["1: from os import popen"]),
        ("hooks/x.py", "import pty\n", ["1: import pty"]),
        ("loop.py", "m = __import__('subprocess')\n", ["1: __import__('subprocess')"]),
        ("gitstore/repo.py", "import subprocess\n", ["1: import subprocess"]),
        ("index/x.py", "args = ['git', 'status']\n", ["1: git argv ['git', 'status']"]),
        ("hooks/x.py", "run(('git', *args))\n", ["1: git argv ('git', *args)"]),
        (
            "hooks/x.py",
            "from git_teddy.gitstore.runner import GitFailed, output\n",
            ["1: from git_teddy.gitstore.runner import output"],
        ),
        ("session/x.py", "from git_teddy.gitstore import runner\n", ["1: from git_teddy.gitstore"]),
        # What is allowed: the runner itself, the two exceptions, git argvs inside gitstore/,
        # and the runner's error and isolated environment outside it.
        ("gitstore/runner.py", "import subprocess\n", []),
        ("execute/actions.py", "import subprocess\n", []),
        ("llm/clipboard.py", "import subprocess\n", []),
        ("gitstore/plumbing.py", "args = ['git', 'status']\n", []),
        ("cli/x.py", "from git_teddy.gitstore.runner import GitFailed, isolated_environ\n", []),
        ("cli/x.py", "args = ['teddy', 'git']\n", []),
    ],
)
def test_the_checks_find_what_they_look_for(rel: str, source: str, expected: list[str]) -> None:
    found = list(violations(rel, source))
    assert len(found) == len(expected), found
    for line, want in zip(found, expected, strict=True):
        assert line.startswith(f"git_teddy/{rel}:{want}"), (line, want)
