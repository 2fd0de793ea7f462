"""Where sessions live among git's refs (pure): the names of their branch and keep refs
under a ref prefix, and a ref listing grouped into sessions. With the prefix `teddy/`:

- `refs/heads/teddy/<id>/<branch>`: a conversation branch (`main`, `02-branch-01`...);
- `refs/remotes/<remote>/teddy/<id>/<branch>`: one brought by `git teddy fetch`;
- `refs/teddy/keep/<id>`: the one ref that keeps every snapshot of the session alive (its
  commit has them among its ancestors; session.keep);
- `refs/teddy/incoming/<remote>/<id>`: a remote's keep ref as `git teddy fetch` last saw it
  (a remote-tracking ref of sorts: merged into ours, and kept, so a fetch of nothing new
  writes nothing).

On a remote, `git teddy push` puts session branches outside refs/heads:
`refs/teddy/sessions/<id>/<branch>`, next to `refs/teddy/keep/<id>`. A plain `git fetch` or
`git clone` asks only for refs/heads/ and refs/tags/ (protocol v2 filters the ref listing on
the server), so it never pays for sessions; `teddy.pushAsBranches` keeps them as branches
(`refs/heads/teddy/...`, the layout before, which `git teddy fetch` reads as well, into
`refs/teddy/arriving/<remote>/heads/<id>/<branch>`, kept like the incoming keep refs; the
remote-tracking branch takes it when it has the other layout's turns).

The store, the session index, the cached `context` answer and the hooks all read refs
through these names.
"""

from collections.abc import Mapping, Sequence

REMOTES = "refs/remotes/"


def branches_prefix(prefix: str) -> str:
    """Where local session branches are: `refs/heads/<prefix>`."""
    return f"refs/heads/{prefix}"


def branch_ref(prefix: str, session: str, branch: str) -> str:
    return f"{branches_prefix(prefix)}{session}/{branch}"


def fetched_prefix(remote: str, prefix: str) -> str:
    """Where `git teddy fetch` puts a remote's session branches."""
    return f"{REMOTES}{remote}/{prefix}"


def remote_sessions_prefix(prefix: str) -> str:
    """Where a remote holds pushed session branches: `refs/<prefix>sessions/`."""
    return f"refs/{prefix}sessions/"


def arriving_prefix(prefix: str, remote: str, layout: str) -> str:
    """Where `git teddy fetch` keeps a remote's session branches of one layout (`heads`:
    branches_prefix, the layout before) as it last saw them."""
    return f"refs/{prefix}arriving/{remote}/{layout}/"


def keeps_prefix(prefix: str) -> str:
    """Where keep refs are: `refs/<prefix>keep/`."""
    return f"refs/{prefix}keep/"


def keep_ref(prefix: str, session: str) -> str:
    return f"{keeps_prefix(prefix)}{session}"


def incoming_prefix(prefix: str, remote: str) -> str:
    """Where `git teddy fetch` keeps a remote's keep refs as it last saw them (merged into
    ours)."""
    return f"refs/{prefix}incoming/{remote}/"


def session_ref_patterns(prefix: str, remotes: Sequence[str]) -> list[str]:
    """Ref prefixes (for `git for-each-ref`) holding every session branch: the local ones and
    those fetched from each of `remotes`. Never all of refs/remotes/: a monorepo has tens of
    thousands of remote-tracking branches there, and a listing of them costs every command
    (issue 24); one prefix per remote reads only teddy's, packed or loose."""
    return [branches_prefix(prefix), *(fetched_prefix(remote, prefix) for remote in remotes)]


def namespace_patterns(prefix: str, remotes: Sequence[str]) -> list[str]:
    """session_ref_patterns, and `refs/<prefix>` (keep refs, and what a fetch leaves on its
    way): every ref of teddy's, for one listing per command."""
    return [*session_ref_patterns(prefix, remotes), f"refs/{prefix}"]


def group_session_refs(
    refs: Mapping[str, str], prefix: str, remotes: Sequence[str]
) -> dict[str, dict[str, str]]:
    """session id -> branch -> tip. Sessions fetched from one of `remotes` count too; a local
    branch wins over a fetched one (and among remotes, the first by name)."""
    sessions: dict[str, dict[str, str]] = {}
    for remote in sorted(remotes, reverse=True):
        fetched = fetched_prefix(remote, prefix)
        for name, tip in refs.items():
            if name.startswith(fetched):
                _add_branch(sessions, name.removeprefix(fetched), tip)
    local = branches_prefix(prefix)
    for name, tip in refs.items():
        if name.startswith(local):
            _add_branch(sessions, name.removeprefix(local), tip)
    return sessions


def _add_branch(sessions: dict[str, dict[str, str]], path: str, tip: str) -> None:
    session, _, branch = path.partition("/")
    if branch and "/" not in branch:
        sessions.setdefault(session, {})[branch] = tip
