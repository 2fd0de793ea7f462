"""Which remote `git teddy push` and `fetch` talk to, taken as git takes it: a configured
remote's name, a URL or a path. Whatever the user or the repository's config gives is checked
here before git sees it (and handed to git after `--`): nothing can be read as an option.

Fetched sessions are kept under `refs/remotes/<name>/`. A configured remote, or a URL or path
one of them has, uses that remote's name. Any other URL or path gets a name of its own made
from its last part, as `git clone` names a folder (`git://host/team.git` -> `team`): git's
own `git fetch URL` keeps nothing but FETCH_HEAD, and sessions need a place that lasts. When a
configured remote already has that name, fetch refuses and the hint says to name the URL.
"""

import re
from dataclasses import dataclass
from pathlib import Path

from git_teddy.errors import TeddyError
from git_teddy.session.workspace import Workspace
from git_teddy.settings import REMOTE

_SCP_LIKE = re.compile(r"^[^/:]+:")  # user@host:path, as git reads it (no slash before ':')
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True)
class Remote:
    given: str  # what git is handed: a remote's name, a URL or a path
    name: str  # where fetched sessions are kept: refs/remotes/<name>/

    @property
    def named(self) -> bool:
        """Whether the user gave a configured remote's name (else a URL or a path)."""
        return self.given == self.name


def resolve(ws: Workspace, given: str | None) -> Remote:
    """The remote `given` names (default: teddy.remote, else origin)."""
    value = given or ws.settings.text(REMOTE)
    if value.startswith("-"):
        raise TeddyError(
            f"{value!r} is not a remote: it starts with '-', so git would read it as an option",
            "give a remote's name, a URL or a path (`./-x` for a folder named so); rename a"
            " remote configured so: `git remote rename -- <old> <new>`",
        )
    urls = ws.repo.remote_urls()
    if value in urls:
        return Remote(value, value)
    if not _is_url_or_path(value, ws.repo.cwd):
        if _has_remote(ws, value):
            return Remote(value, value)
        raise TeddyError(
            f"no remote named {value!r}",
            "add one with `git remote add <name> <url>`, or give a remote's name, a URL or a"
            " path: `git teddy push <remote>`",
        )
    for name, known in urls.items():
        if value in known:
            return Remote(value, name)
    return Remote(value, _own_name(value, set(urls)))


def _has_remote(ws: Workspace, name: str) -> bool:
    """A remote configured without a URL (`git remote` lists it: pushurl, insteadOf...)."""
    return name in ws.repo.remote_names()


def _is_url_or_path(value: str, cwd: Path) -> bool:
    return "://" in value or bool(_SCP_LIKE.match(value)) or (cwd / value).exists()


def _own_name(url: str, configured: set[str]) -> str:
    """The name a URL's sessions are kept under: its last part, `.git` dropped."""
    parts = [p for p in re.split(r"[/:\\]", url) if p not in ("", ".", "..", ".git")]
    last = parts[-1].removesuffix(".git") if parts else ""
    name = _UNSAFE.sub("-", last).strip(".-") or "remote"
    if name in configured:
        raise TeddyError(
            f"the sessions of {url} would be kept as {name!r}, but {name!r} is another remote",
            f"name this one: `git remote add <name> {url}`, then `git teddy fetch <name>`",
        )
    return name
