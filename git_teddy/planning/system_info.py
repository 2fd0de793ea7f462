"""A context's System Information, gathered: the snapshot's root files, the platform, and the
probes of planning/tool_probe.py (cached); rendered by artifacts/system_info.py (pure)."""

import os
import platform

from git_teddy.artifacts.system_info import (
    PROJECT_FILES,
    SystemFacts,
    Tool,
    describe_project,
    import_finding,
    render_system_info,
    version_of,
)
from git_teddy.gitstore.repo import GitRepo
from git_teddy.planning.tool_probe import Probes


def system_facts(repo: GitRepo, probes: Probes) -> SystemFacts:
    return SystemFacts(
        os=f"{platform.system()} {platform.release()} ({platform.machine()})",
        shell=os.environ.get("SHELL") or os.environ.get("COMSPEC") or "unknown",
        git=probes.git_version(repo.git_version),
    )


def system_information(repo: GitRepo, tree: str, detected: list[str], probe_tools: bool) -> str:
    """The `### System Information` section for the snapshot `tree`; `detected`: what
    detect_tools found in it (languages first); `probe_tools`: teddy.probeTools."""
    files = {}
    for name in PROJECT_FILES:
        data = repo.read_file(tree, name)
        if data is not None:
            files[name] = data.decode("utf-8", "replace")
    paths = _package_paths(repo, tree)
    project = describe_project(paths + list(files), files, repo.toplevel.name)
    probes = Probes(repo.layout.system_tools_file, repo.layout.shared)
    tools = (
        [Tool(name, None if out is None else version_of(out)) for name, out in probes.tools()]
        if probe_tools
        else None
    )
    imports = None
    if project.python_module is not None:
        asked, origin = probes.import_origin(project.python_module, repo.toplevel, tree)
        if asked:
            imports = import_finding(
                project.python_module, project.python_root, origin, str(repo.toplevel)
            )
    return render_system_info(system_facts(repo, probes), project, detected, tools, imports)


def _package_paths(repo: GitRepo, tree: str) -> list[str]:
    """The paths that tell the project's top-level Python packages and its lock files: the
    root's and src/'s folders, each with an `__init__.py` or not (a few reads, not a listing
    of the whole tree)."""
    paths = []
    root = repo.list_dir(tree)
    for name, is_folder in root.items():
        paths.append(name)
        if is_folder and name not in (".git",):
            inner = repo.list_dir(tree, name)
            paths += [f"{name}/{entry}" for entry, sub in inner.items() if not sub]
            if name == "src":
                for package, sub in inner.items():
                    if sub and "__init__.py" in repo.list_dir(tree, f"src/{package}"):
                        paths.append(f"src/{package}/__init__.py")
    return paths
