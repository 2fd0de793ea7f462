"""Issue 27 item 2: System Information a model can act on: the project's name, languages, the
commands it declares, the developer tools on PATH with their versions, and whether a Python
project imports from the working tree. Pure rules first, then real projects through
`git teddy context` (the section as the model gets it)."""

import os
import re
from pathlib import Path

from git_teddy.artifacts.system_info import (
    Command,
    Project,
    SystemFacts,
    Tool,
    declared_commands,
    describe_project,
    import_finding,
    project_name,
    python_package,
    render_system_info,
    version_of,
)
from testing.commands import Teddy, git

PYPROJECT = """[project]
name = "tiny-calc"
dependencies = []

[tool.pytest.ini_options]
testpaths = ["tests"]

[tool.ruff]
line-length = 100

[tool.mypy]
strict = true
"""
PACKAGE_JSON = """{
  "name": "tiny-shop",
  "scripts": {"test": "node --test test/", "lint": "eslint src", "start": "node src/index.js"}
}
"""


# ---- pure ------------------------------------------------------------------------------------


def test_the_name_comes_from_the_manifest_else_the_folder() -> None:
    assert project_name({"pyproject.toml": PYPROJECT}, "folder") == ("tiny-calc", "pyproject.toml")
    assert project_name({"package.json": PACKAGE_JSON}, "f") == ("tiny-shop", "package.json")
    cargo = '[package]\nname = "crab"\nversion = "0.1.0"\n'
    assert project_name({"Cargo.toml": cargo}, "f") == ("crab", "Cargo.toml")
    go = "module example.com/gopher\n\ngo 1.22\n"
    assert project_name({"go.mod": go}, "f") == ("example.com/gopher", "go.mod")
    assert project_name({"pyproject.toml": "not [toml"}, "work") == ("work", "folder")


def test_declared_commands_of_a_python_project() -> None:
    commands = declared_commands(["pyproject.toml", "tox.ini"], {"pyproject.toml": PYPROJECT})
    assert [(c.purpose, c.command) for c in commands] == [
        ("Test", "python -m pytest"),
        ("Test", "tox"),
        ("Lint", "ruff check ."),
        ("Type check", "mypy ."),
    ]


def test_declared_commands_of_node_make_cargo_and_go() -> None:
    node = declared_commands(["yarn.lock"], {"package.json": PACKAGE_JSON})
    assert [(c.purpose, c.command) for c in node] == [
        ("Test", "yarn test"),
        ("Lint", "yarn run lint"),
    ]
    assert node[0].source == "package.json: `node --test test/`"
    makefile = "VAR := 1\n.PHONY: test\ntest: build\n\tpytest\nlint:\n\truff check .\n"
    assert [c.command for c in declared_commands([], {"Makefile": makefile})] == [
        "make test",
        "make lint",
    ]
    assert [c.command for c in declared_commands([], {"Cargo.toml": "", "go.mod": "module m"})] == [
        "cargo test",
        "cargo clippy",
        "go test ./...",
        "go vet ./...",
    ]


def test_the_python_package_is_the_one_named_like_the_project() -> None:
    paths = ["src/aaa/__init__.py", "src/tiny_calc/__init__.py", "tests/__init__.py"]
    assert python_package(paths, "tiny-calc") == ("tiny_calc", "src")
    assert python_package(["pkg/__init__.py", "tests/__init__.py"], "other") == ("pkg", "")
    assert python_package(["tests/__init__.py", "setup.py"], "x") is None


def test_versions_and_import_findings_are_said_plainly() -> None:
    assert version_of("ruff 0.6.9\n") == "0.6.9"
    assert version_of("v20.11.0\n") == "20.11.0"
    assert version_of("go version go1.22.1 linux/amd64") == "1.22.1"
    assert version_of("") == "version unknown"
    found = import_finding("calc", "", "/w/p/calc/__init__.py", "/w/p")
    assert found == "`import calc` finds the working tree's calc/__init__.py"
    missing = import_finding("calc", "src", None, "/w/p")
    assert "fails from the project root" in missing and "PYTHONPATH=src" in missing
    installed = import_finding("calc", "src", "/usr/lib/site-packages/calc/__init__.py", "/w/p")
    assert "an installed copy" in installed and "not the working tree" in installed


def test_the_section_names_the_project_its_commands_and_tools() -> None:
    project = Project("tiny-shop", "package.json", [Command("Test", "npm test", "package.json")])
    text = render_system_info(
        SystemFacts("Linux", "/bin/sh", "2.43.0"),
        project,
        ["JavaScript (3 files)", "Node (package.json)"],
        [Tool("node", "20.11.0"), Tool("ruff", None)],
        None,
    )
    assert text.splitlines()[:7] == [
        "### System Information",
        "- Project: `tiny-shop` (from package.json)",
        "- Languages: JavaScript (3 files)",
        "- Recognised: Node (package.json)",
        "- Test: `npm test` (package.json)",
        "- Tools on PATH: node 20.11.0",
        "- Not on PATH: ruff",
    ]
    folder = describe_project([], {}, "my-folder")
    assert folder.name == "my-folder" and folder.python_module is None


# ---- real projects -----------------------------------------------------------------------------


def system_information(repo: Path, teddy: Teddy) -> str:
    text = teddy.ok(repo, "context").stdout
    match = re.search(r"### System Information\n(.*?)\n\n", text, re.S)
    assert match, text
    return match.group(1)


def fake_tool(folder: Path, name: str, version: str) -> None:
    folder.mkdir(exist_ok=True)
    tool = folder / name
    tool.write_text(f"#!/bin/sh\necho '{name} {version}'\n")
    tool.chmod(0o755)


def test_a_js_project_gets_its_name_scripts_and_tools(
    empty_repo: Path, env: dict[str, str], teddy: Teddy, tmp_path: Path
) -> None:
    (empty_repo / "src").mkdir()
    (empty_repo / "src" / "cart.js").write_text("export const total = (xs) => xs.length;\n")
    (empty_repo / "package.json").write_text(PACKAGE_JSON)
    git(empty_repo, env, "add", ".")
    git(empty_repo, env, "commit", "-qm", "a small JS project")
    tools = tmp_path / "tools"
    fake_tool(tools, "ruff", "9.9.1")
    env["PATH"] = f"{tools}{os.pathsep}{env['PATH']}"
    env["TEDDY_PROBE_TOOLS"] = "true"  # off in the other tests (testing/sealed.py)
    teddy.ok(empty_repo, "new", "js")

    info = system_information(empty_repo, teddy)
    assert "- Project: `tiny-shop` (from package.json)" in info
    assert "- Languages: JavaScript (1 file)" in info
    assert "- Test: `npm test` (package.json: `node --test test/`)" in info
    assert "- Lint: `npm run lint` (package.json: `eslint src`)" in info
    assert re.search(r"- Tools on PATH: .*ruff 9\.9\.1", info), info
    assert "Python import" not in info

    # A tool upgraded on PATH is probed again, cached answer of `context` included.
    (tools / "ruff").unlink()
    fake_tool(tools, "ruff", "9.9.20")
    assert re.search(r"- Tools on PATH: .*ruff 9\.9\.20", system_information(empty_repo, teddy))
    (tools / "ruff").unlink()
    assert "ruff 9.9.20" not in system_information(empty_repo, teddy)  # another ruff, or none
    env["TEDDY_PROBE_TOOLS"] = "false"
    assert "Tools on PATH" not in system_information(empty_repo, teddy)


def test_a_python_project_says_whether_it_imports_from_the_working_tree(
    empty_repo: Path, env: dict[str, str], teddy: Teddy
) -> None:
    (empty_repo / "src" / "tiny_calc").mkdir(parents=True)
    (empty_repo / "src" / "tiny_calc" / "__init__.py").write_text(
        "def add(a, b):\n    return a + b\n"
    )
    (empty_repo / "tests").mkdir()
    (empty_repo / "tests" / "test_add.py").write_text("from tiny_calc import add\n")
    (empty_repo / "pyproject.toml").write_text(PYPROJECT)
    git(empty_repo, env, "add", ".")
    git(empty_repo, env, "commit", "-qm", "a small Python project, src layout")
    teddy.ok(empty_repo, "new", "py")

    info = system_information(empty_repo, teddy)
    assert "- Project: `tiny-calc` (from pyproject.toml)" in info
    assert "- Test: `python -m pytest` (pytest configuration)" in info
    assert "- Lint: `ruff check .` ([tool.ruff])" in info
    assert "- Type check: `mypy .` ([tool.mypy])" in info
    assert "- Python import: `import tiny_calc` fails from the project root" in info
    assert "PYTHONPATH=src" in info

    # Moved to the root (a flat layout), the package imports from the working tree.
    git(empty_repo, env, "mv", "src/tiny_calc", "tiny_calc")
    git(empty_repo, env, "commit", "-qm", "flat layout")
    info = system_information(empty_repo, teddy)
    assert "- Python import: `import tiny_calc` finds the working tree's " in info
    assert "tiny_calc/__init__.py" in info
