"""Remotes (a part of GitRepo): their names and URLs, and push and fetch of exactly the refs
asked for, each remote after `--` so that git never reads it as an option."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from git_teddy.gitstore import plumbing, runner
from git_teddy.gitstore.changes import ALLOW_SECRETS_ENV, SECRETS_FILE_ENV, SESSION_PUSH_ENV
from git_teddy.gitstore.layout import Layout
from git_teddy.gitstore.reflisting import RefListing


@dataclass(frozen=True)
class GitResult:
    """What a git command that may fail for the user's reasons (a rejected push, a line
    past the end of a file) said; the caller words the error."""

    ok: bool
    stdout: str
    stderr: str


def _git_result(args: list[str], cwd: Path) -> GitResult:
    proc = runner.run(args, cwd)
    return GitResult(proc.returncode == 0, proc.stdout, proc.stderr)


class RemotesPart:
    """Talks to remotes through the git CLI; a push or fetch drops the command's ref listing."""

    cwd: Path
    layout: Layout
    _remotes: list[str] | None  # read with the teddy.* keys, else by `git remote`
    _listing: RefListing | None

    def remote_names(self) -> list[str]:
        return runner.output(["remote"], self.cwd).split()

    def remotes(self) -> list[str]:
        """The remotes' names as this command found them (read with the settings), and the
        names sessions fetched from a URL are kept under."""
        if self._remotes is None:
            self._remotes = plumbing.remote_names(self.cwd)
        return self._remotes

    def remember_remote(self, name: str) -> None:
        """From now on, read the sessions kept under refs/remotes/<name>/ (a fetched URL)."""
        self.layout.remember_remote(name)
        if name not in self.remotes():
            self.remotes().append(name)
            self._listing = None

    def remote_urls(self) -> dict[str, list[str]]:
        """The URLs (`remote.<name>.url`) of each configured remote, by name."""
        args = ["config", "--get-regexp", r"^remote\..*\.url$"]
        proc = runner.run(args, self.cwd)
        if proc.returncode not in (0, 1):  # 1: no remote has a URL
            raise runner.failure(args, proc.stderr.strip())
        urls: dict[str, list[str]] = {}
        for line in proc.stdout.splitlines():
            key, _, url = line.partition(" ")
            urls.setdefault(key.removeprefix("remote.").removesuffix(".url"), []).append(url)
        return urls

    def push_refs(
        self,
        remote: str,
        refspecs: list[str],
        allowed: Sequence[str] = (),
        secrets_file: Path | None = None,
    ) -> GitResult:
        """`git push` of exactly these refspecs (porcelain output: one line per ref), marked
        for the pre-push hook as teddy's own push (snapshots included), with the findings
        it may let through (`allowed`: ids or paths) and the file it writes those it refuses
        to (`secrets_file`). `remote` (a name, URL or path) comes after `--`: git never
        reads it as an option."""
        args = ["push", "--porcelain", "--", remote, *refspecs]
        env = {SESSION_PUSH_ENV: "1", ALLOW_SECRETS_ENV: "\n".join(allowed)}
        if secrets_file is not None:
            env[SECRETS_FILE_ENV] = str(secrets_file)
        proc = runner.run(args, self.cwd, env=env)
        self._listing = None  # a push moves remote-tracking branches
        return GitResult(proc.returncode == 0, proc.stdout, proc.stderr)

    def delete_remote_refs(self, remote: str, expected: Mapping[str, str]) -> GitResult:
        """Delete `expected`'s refs (name -> the id each must still have) on `remote`, in one
        atomic push that deletes none if one moved meanwhile (--force-with-lease)."""
        leases = [f"--force-with-lease={name}:{oid}" for name, oid in expected.items()]
        args = ["push", "--porcelain", "--atomic", *leases, "--", remote]
        self._listing = None  # a push moves remote-tracking branches
        return _git_result([*args, *(f":{n}" for n in expected)], self.cwd)

    def remote_heads(self, remote: str) -> dict[str, str]:
        """The branches a remote has now (full ref name -> id), asked of the remote itself
        (protocol v2 lists refs/heads/ alone, however many other refs it holds)."""
        out = runner.output(["ls-remote", "--heads", "--", remote], self.cwd)
        pairs = (line.split("\t", 1) for line in out.splitlines() if "\t" in line)
        return {name: oid for oid, name in pairs}

    def fetch_refs(self, remote: str, refspecs: list[str]) -> GitResult:
        """One `git fetch` of exactly these refspecs: no tags, none of the remote's configured
        refspecs (`--refmap=`), and every ref written in one transaction once all objects are
        in (`--atomic`): a failed or killed fetch writes none. `remote` after `--`."""
        args = ["fetch", "--no-tags", "--atomic", "--refmap=", "--", remote, *refspecs]
        self._listing = None  # a fetch moves remote-tracking branches
        return _git_result(args, self.cwd)
