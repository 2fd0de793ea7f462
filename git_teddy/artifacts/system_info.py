"""System Information as the model reads it (pure): the user's project by name, its
languages, the test and lint commands it declares, the developer tools on PATH with their
versions and, for a Python project, whether it imports from the working tree.

Everything here is computed from texts the caller read: the root manifests of the snapshot
(pyproject.toml, package.json, Cargo.toml, go.mod, Makefile, tox.ini, setup.cfg...), the
`--version` output of each probed tool and where Python found the package. Running the probes
and caching them is planning/system_info.py's.
"""

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

# Root files read to describe the project.
PROJECT_FILES = (
    "pyproject.toml",
    "setup.cfg",
    "pytest.ini",
    "tox.ini",
    "noxfile.py",
    "package.json",
    "Cargo.toml",
    "go.mod",
    "Makefile",
    "makefile",
    "GNUmakefile",
)
# package.json scripts worth naming, and what each is for.
SCRIPT_PURPOSES = {
    "test": "Test",
    "lint": "Lint",
    "typecheck": "Type check",
    "type-check": "Type check",
    "check": "Check",
    "format": "Format",
    "build": "Build",
}
MAKE_PURPOSES = {
    "test": "Test",
    "check": "Check",
    "lint": "Lint",
    "typecheck": "Type check",
    "format": "Format",
}
_VERSION = re.compile(r"\d+(?:\.\d+)+[\w.+-]*")
_MAKE_TARGET = re.compile(r"^([A-Za-z][\w.-]*)\s*:(?!=)", re.M)
_LANGUAGE = re.compile(r"^(.+) \((\d+) files?\)$")


class Tool(NamedTuple):
    name: str
    version: str | None  # None: not on PATH


@dataclass(frozen=True)
class Command:
    purpose: str  # Test, Lint, ...
    command: str  # what to run from the project root
    source: str  # where the project declares it


@dataclass(frozen=True)
class Project:
    name: str
    named_by: str  # the file the name comes from, or "folder"
    commands: list[Command] = field(default_factory=list)
    python_module: str | None = None  # the top-level package to check the import of
    python_root: str = ""  # the folder it lives in: "" (the root) or e.g. "src"


@dataclass(frozen=True)
class SystemFacts:
    os: str
    shell: str
    git: str


# ---- reading the project's files -----------------------------------------------------------------


def _toml(text: str | None) -> dict[str, Any]:
    if not text:
        return {}
    import tomllib  # a project without pyproject.toml or Cargo.toml does not pay for it

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return {}


def _json(text: str | None) -> dict[str, Any]:
    try:
        data = json.loads(text) if text else {}
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _table(data: Mapping[str, Any], *keys: str) -> dict[str, Any]:
    for key in keys:
        value = data.get(key)
        if not isinstance(value, dict):
            return {}
        data = value
    return dict(data)


def project_name(files: Mapping[str, str], folder: str) -> tuple[str, str]:
    """The project's name and the file that gives it; the folder's name without one."""
    pyproject = _toml(files.get("pyproject.toml"))
    for name in (
        _table(pyproject, "project").get("name"),
        _table(pyproject, "tool", "poetry").get("name"),
    ):
        if isinstance(name, str) and name:
            return name, "pyproject.toml"
    name = _json(files.get("package.json")).get("name")
    if isinstance(name, str) and name:
        return name, "package.json"
    name = _table(_toml(files.get("Cargo.toml")), "package").get("name")
    if isinstance(name, str) and name:
        return name, "Cargo.toml"
    module = re.search(r"^module\s+(\S+)", files.get("go.mod", ""), re.M)
    if module:
        return module.group(1), "go.mod"
    return folder, "folder"


def _node_runner(paths: set[str], package: Mapping[str, Any]) -> str:
    manager = str(package.get("packageManager", ""))
    if "pnpm-lock.yaml" in paths or manager.startswith("pnpm"):
        return "pnpm"
    if "yarn.lock" in paths or manager.startswith("yarn"):
        return "yarn"
    return "npm"


def _node_commands(paths: set[str], text: str | None) -> list[Command]:
    package = _json(text)
    scripts = package.get("scripts")
    if not isinstance(scripts, dict):
        return []
    runner = _node_runner(paths, package)
    found = []
    for script, purpose in SCRIPT_PURPOSES.items():
        body = scripts.get(script)
        if isinstance(body, str):
            run = f"{runner} test" if script == "test" else f"{runner} run {script}"
            found.append(Command(purpose, run, f"package.json: `{body}`"))
    return found


def _python_commands(paths: set[str], files: Mapping[str, str]) -> list[Command]:
    pyproject = _toml(files.get("pyproject.toml"))
    tool = _table(pyproject, "tool")
    text = files.get("pyproject.toml", "")
    found = []
    configured = (
        "ini_options" in _table(tool, "pytest")
        or "[pytest]" in files.get("pytest.ini", "")
        or "[tool:pytest]" in files.get("setup.cfg", "")
        or "conftest.py" in paths
    )
    if configured:
        found.append(Command("Test", "python -m pytest", "pytest configuration"))
    elif "pytest" in text:
        found.append(Command("Test", "python -m pytest", "pyproject.toml names pytest"))
    if "tox.ini" in paths or "tox" in tool:
        found.append(Command("Test", "tox", "tox configuration"))
    if "noxfile.py" in paths:
        found.append(Command("Test", "nox", "noxfile.py"))
    if "ruff" in tool:
        found.append(Command("Lint", "ruff check .", "[tool.ruff]"))
        if "format" in _table(tool, "ruff"):
            found.append(Command("Format", "ruff format --check .", "[tool.ruff.format]"))
    if "mypy" in tool:
        found.append(Command("Type check", "mypy .", "[tool.mypy]"))
    if "black" in tool:
        found.append(Command("Format", "black --check .", "[tool.black]"))
    return found


def _make_commands(files: Mapping[str, str]) -> list[Command]:
    name = next((n for n in ("GNUmakefile", "makefile", "Makefile") if n in files), None)
    if name is None:
        return []
    targets = set(_MAKE_TARGET.findall(files[name]))
    return [
        Command(purpose, f"make {target}", name)
        for target, purpose in MAKE_PURPOSES.items()
        if target in targets
    ]


def declared_commands(paths: Iterable[str], files: Mapping[str, str]) -> list[Command]:
    """The test, lint and other commands the project declares, the Makefile's first."""
    names = set(paths)
    found = _make_commands(files) + _node_commands(names, files.get("package.json"))
    found += _python_commands(names, files)
    if "Cargo.toml" in files:
        found += [
            Command("Test", "cargo test", "Cargo.toml"),
            Command("Lint", "cargo clippy", "Cargo.toml"),
        ]
    if "go.mod" in files:
        found += [
            Command("Test", "go test ./...", "go.mod"),
            Command("Lint", "go vet ./...", "go.mod"),
        ]
    return list({c.command: c for c in found}.values())


def python_package(paths: Iterable[str], name: str) -> tuple[str, str] | None:
    """The project's top-level Python package and its folder ("" or "src"): the one named
    like the project if there is one, else the first package at the root or in src/."""
    packages: list[tuple[str, str]] = []
    for path in paths:
        parts = path.split("/")
        if parts[-1] != "__init__.py" or parts[0] in ("tests", "test", "docs"):
            continue
        if len(parts) == 2:
            packages.append((parts[0], ""))
        elif len(parts) == 3 and parts[0] == "src":
            packages.append((parts[1], "src"))
    wanted = re.sub(r"[-.]+", "_", name).lower()
    for module, root in sorted(packages):
        if module.lower() == wanted:
            return module, root
    return sorted(packages)[0] if packages else None


def describe_project(
    paths: Iterable[str], files: Mapping[str, str], folder: str, python: bool = False
) -> Project:
    """All of the above, from the tracked paths and the root files' texts (`files`);
    `python`: whether .py files are tracked beside those of `paths`."""
    listed = list(paths)
    name, named_by = project_name(files, folder)
    package = (
        python_package(listed, name)
        if python or "pyproject.toml" in files or any(p.endswith(".py") for p in listed)
        else None
    )
    module, root = package if package else (None, "")
    return Project(name, named_by, declared_commands(listed, files), module, root)


# ---- the tools ---------------------------------------------------------------------------------


def version_of(output: str) -> str:
    """The version in a tool's `--version` output: `ruff 0.6.9` -> `0.6.9`."""
    for line in output.splitlines():
        match = _VERSION.search(line)
        if match:
            return match.group(0).rstrip(".")
    return "version unknown"


def import_finding(module: str, root: str, origin: str | None, toplevel: str) -> str:
    """What `import <module>` from the project root finds (`origin`: the file, None: nothing),
    said so the model knows how to run the project's code."""
    if origin is None:
        if root:
            return (
                f"`import {module}` fails from the project root: the package is in {root}/ "
                f"and not installed; run with `PYTHONPATH={root}` (or install it: "
                "`pip install -e .`)"
            )
        return f"`import {module}` fails from the project root"
    if origin.startswith(toplevel.rstrip("/") + "/"):
        where = origin[len(toplevel.rstrip("/")) + 1 :]
        return f"`import {module}` finds the working tree's {where}"
    return (
        f"`import {module}` finds an installed copy ({origin}), not the working tree: "
        f"use `PYTHONPATH={root or '.'}` to test the project's own code"
    )


# ---- rendering ---------------------------------------------------------------------------------


def render_system_info(
    facts: SystemFacts,
    project: Project,
    detected: list[str],
    tools: list[Tool] | None,
    imports: str | None,
) -> str:
    """The `### System Information` section. `detected`: detect_tools' list (languages with
    their file counts first, then what the files say of the project's tools)."""
    languages = [entry for entry in detected if _LANGUAGE.match(entry)]
    others = [entry for entry in detected if not _LANGUAGE.match(entry)]
    source = "" if project.named_by == "folder" else f" (from {project.named_by})"
    lines = [
        "### System Information",
        f"- Project: `{project.name}`{source}",
        f"- Languages: {', '.join(languages) or '(none recognised)'}",
        f"- Recognised: {', '.join(others) or '(nothing)'}",
    ]
    for command in project.commands:
        lines.append(f"- {command.purpose}: `{command.command}` ({command.source})")
    if not project.commands:
        lines.append("- Commands: the project declares no test or lint command")
    if imports:
        lines.append(f"- Python import: {imports}")
    if tools is not None:  # None: not probed (teddy.probeTools=false)
        found = [f"{t.name} {t.version}" for t in tools if t.version is not None]
        missing = [t.name for t in tools if t.version is None]
        lines.append(f"- Tools on PATH: {', '.join(found) or '(none of those probed)'}")
        if missing:
            lines.append(f"- Not on PATH: {', '.join(missing)}")
    lines += [f"- OS: {facts.os}", f"- Shell: {facts.shell}", f"- git: {facts.git}"]
    return "\n".join(lines) + "\n"
