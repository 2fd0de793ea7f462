"""The refs under a few prefixes as one command found them: listed once (one `git
for-each-ref`), then kept current with the writes the command itself makes through its
GitRepo, so no helper lists refs again (git does the same: one ref store per process).
Standard library only."""

from collections.abc import Mapping, Sequence


class RefListing:
    """Full ref name -> object id of every ref under `prefixes` (each ending in `/`)."""

    def __init__(self, prefixes: Sequence[str], refs: Mapping[str, str]) -> None:
        self.prefixes = tuple(prefixes)
        self.refs = dict(refs)
        self.version = 0  # counts the changes since the listing: a reader's cache key

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
        """The refs under `prefix` (one of the listed prefixes, or inside one)."""
        return {name: sha for name, sha in self.refs.items() if name.startswith(prefix)}
