"""The repository's settings as git has them (a part of GitRepo): the teddy.* keys and git's
own keys teddy follows, read in one git process; the committer's identity; the hooks path;
where the user stands in the working tree."""

import os
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from git_teddy.errors import TeddyError
from git_teddy.gitstore import permissions, plumbing, runner
from git_teddy.gitstore.layout import Layout
from git_teddy.settings import SECRET_FILES, Settings

GPG_SIGN = "commit.gpgsign"
SHARED_REPOSITORY = permissions.KEY
FILE_MODE_KEY = "core.filemode"
IGNORE_CASE_KEY = "core.ignorecase"
QUOTE_PATH_KEY = "core.quotepath"
# the colour keys: for cli/color.py, which then asks git nothing more (`show`)
COLOR_KEYS = ("color.teddy", "color.ui", "color.pager")
FOLLOWED_CONFIG = (
    GPG_SIGN, SHARED_REPOSITORY, FILE_MODE_KEY, IGNORE_CASE_KEY, QUOTE_PATH_KEY, *COLOR_KEYS
)  # fmt: skip


@dataclass(frozen=True)
class Identity:
    """An author or committer line as git would write it (`git var GIT_COMMITTER_IDENT`)."""

    name_email: str
    timestamp: int
    tz_offset: int  # seconds east of UTC

    @classmethod
    def parse(cls, ident: str) -> "Identity":
        name_email, timestamp, zone = ident.strip().rsplit(" ", 2)
        sign = -1 if zone.startswith("-") else 1
        offset = sign * (int(zone[1:3]) * 3600 + int(zone[3:5]) * 60)
        return cls(name_email, int(timestamp), offset)


class ConfigPart:
    """Reads settings and identities through the git CLI (discovery is git's too)."""

    cwd: Path
    layout: Layout
    git_config: dict[str, list[str]]  # git's own keys teddy follows
    settings: Settings | None  # the command's settings, once checked
    _identity: Identity | None
    _remotes: list[str] | None  # read with the teddy.* keys, else by `git remote`

    def config(self, section: str) -> dict[str, list[str]]:
        """All values of `<section>.*` keys, keys lower-cased as git compares them."""
        return plumbing.read_config(self.cwd, section)

    def teddy_config(self) -> dict[str, list[str]]:
        """The teddy.* keys; git's own keys that teddy follows (FOLLOWED_CONFIG) come in the
        same git process and are kept in `git_config`."""
        values, self._remotes = plumbing.read_config_and_remotes(
            self.cwd, "teddy", also=FOLLOWED_CONFIG
        )
        self.git_config = {key: values.pop(key) for key in FOLLOWED_CONFIG if key in values}
        self.share(permissions.Shared.from_config(self.git_config))
        return values

    def secret_globs(self) -> list[str] | None:
        """`teddy.secretFiles` from the command's settings (the registry's one reading of
        them, session/workspace.py); None when no settings were read."""
        return self.settings.paths(SECRET_FILES) if self.settings is not None else None

    def share(self, shared: permissions.Shared) -> None:
        """Follow core.sharedRepository: derived state gets git's modes (layout.shared), and
        objects and refs are written by git's plumbing, which gives them those modes itself
        (dulwich would write them with its own: see WritingPart._git_writes)."""
        self.layout.shared = shared

    def git_says_sign(self) -> bool:
        """commit.gpgSign, as `git commit` and `git commit-tree` read it (the last value)."""
        values = self.git_config.get(GPG_SIGN, [])
        return bool(values) and plumbing.is_true(values[-1])

    def committer(self) -> Identity:
        """Who and when, as git would record it (honours GIT_COMMITTER_* and user.*)."""
        if self._identity is None:
            proc = runner.run(["var", "GIT_COMMITTER_IDENT"], self.cwd)
            if proc.returncode != 0:
                raise TeddyError(
                    "git does not know who you are, so it cannot write commits",
                    'set it with `git config user.name "Your Name"` and '
                    "`git config user.email you@example.com`",
                )
            self._identity = Identity.parse(proc.stdout)
        if "GIT_COMMITTER_DATE" in os.environ:
            return self._identity  # a fixed date, as in tests: every commit gets it
        offset = datetime.now().astimezone().utcoffset() or timedelta(0)
        return Identity(self._identity.name_email, int(time.time()), int(offset.total_seconds()))

    def trusts_file_mode(self) -> bool:
        """core.fileMode (read with the teddy.* keys): whether git records exec bits."""
        values = self.git_config.get(FILE_MODE_KEY) or ["true"]
        return plumbing.is_true(values[-1])

    def ignores_case(self) -> bool:
        """core.ignoreCase (read with the teddy.* keys): whether git takes `README.md` and
        `readme.md` for one file."""
        values = self.git_config.get(IGNORE_CASE_KEY) or ["false"]
        return plumbing.is_true(values[-1])

    def quotes_paths(self) -> bool:
        """core.quotePath (read with the teddy.* keys): whether file names past ASCII are
        shown with octal escapes, as git shows them (printable.quote_path)."""
        values = self.git_config.get(QUOTE_PATH_KEY) or ["true"]
        return plumbing.is_true(values[-1])

    def hooks_path(self) -> Path:
        """Where git looks for this repository's hooks (`core.hooksPath` honoured)."""
        return plumbing.hooks_path(self.cwd)

    def hooks_path_origin(self) -> plumbing.ConfigOrigin | None:
        """The `core.hooksPath` setting in force and which config file sets it (None: unset)."""
        return plumbing.hooks_path_origin(self.cwd)

    def show_prefix(self) -> str:
        """Where the current directory is in the working tree, as git names it (`sub/dir/`,
        "" at the top): paths a user types are relative to it."""
        return runner.output(["rev-parse", "--show-prefix"], self.cwd).rstrip("\n")

    def git_version(self) -> str:
        """git's own version, as `git --version` says it (for the context's system facts)."""
        return runner.output(["--version"], self.cwd).strip().removeprefix("git version ")
