"""A context's System Information, gathered: the snapshot's root files, the platform, and the
probes of planning/tool_probe.py (cached); rendered by artifacts/system_info.py (pure)."""

import os
import platform

from git_teddy.artifacts.repomap import Census
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


def system_information(
    repo: GitRepo, tree: str, detected: list[str], census: Census, probe_tools: bool
) -> str:
    """The `### System Information` section for the snapshot `tree`; `detected`: what
    detect_tools found in it (languages first); `census`: the tree's (the repository map's
    listing keeps it, so no folder is read here); `probe_tools`: teddy.probeTools."""
    files = {}
    for name in PROJECT_FILES:
        data = repo.read_file(tree, name)
        if data is not None:
            files[name] = data.decode("utf-8", "replace")
    project = describe_project(
        census.project_paths() + list(files),
        files,
        repo.toplevel.name,
        census.shallow_python > 0,
    )
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
