"""The refs under a few prefixes as one command found them: listed once (one `git
for-each-ref`), then kept current with the writes the command itself makes through its
GitRepo, so no helper lists refs again (git does the same: one ref store per process).
Standard library only."""

from bisect import bisect_left
from collections.abc import Mapping, Sequence


class RefListing:
    """Full ref name -> object id of every ref under `prefixes` (each ending in `/`)."""

    def __init__(self, prefixes: Sequence[str], refs: Mapping[str, str]) -> None:
        self.prefixes = tuple(prefixes)
        self.refs = dict(refs)
        self.version = 0  # counts the changes since the listing: a reader's cache key
        self._sorted: tuple[int, list[str]] | None = None  # the names in order, at a version

    def covers(self, name: str) -> bool:
        return name.startswith(self.prefixes)

    def wrote(self, name: str, sha: str | None) -> None:
        """`name` was set to `sha` (None: deleted) by this process."""
        if not self.covers(name):
            return
        if sha is None:
            self.refs.pop(name, None)
        else:
            self.refs[name] = sha
        self.version += 1

    def under(self, prefix: str) -> dict[str, str]:
        """The refs under `prefix` (one of the listed prefixes, or inside one), found by
        bisection: asked once per session, it must not cost every session's refs."""
        if self._sorted is None or self._sorted[0] != self.version:
            self._sorted = (self.version, sorted(self.refs))
        names = self._sorted[1]
        found: dict[str, str] = {}
        for name in names[bisect_left(names, prefix) :]:
            if not name.startswith(prefix):
                break
            found[name] = self.refs[name]
        return found
