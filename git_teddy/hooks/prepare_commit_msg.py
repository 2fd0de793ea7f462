"""prepare-commit-msg: `Teddy-Session` and `Teddy-Turn` trailers on a commit whose staged
changes contain content applied from a turn.

A staged path counts when its staged blob differs from HEAD's, equals the path's blob in a
turn's result snapshot (the `Teddy-Snapshot` of the turn's report commit) and differs from
the path's blob in the snapshot the turn started from (the result's parent): the turn wrote
it. The most recent such turn is named; `--if-exists addIfDifferent` keeps it idempotent.
Merges and squashes are skipped. An amend (`--amend`, `--amend --no-edit`) is counted against
HEAD's parent, so its trailers stay; `--amend -m MSG` cannot be told apart from a plain
`-m` (git passes no sign of the amend), so a new message written that way has none.
Runs as `python -m git_teddy.hooks.prepare_commit_msg MSG_FILE [SOURCE [SHA]]`; any failure
is a warning, never a failed commit.
"""

import sys
from dataclasses import dataclass

from git_teddy.hooks._git import git, is_object_id, ref_prefix

SKIPPED_SOURCES = {"merge", "squash"}  # git wrote the message from other commits
TRAILER_KEYS = ("Teddy-Session", "Teddy-Turn", "Teddy-Snapshot")
FIELD, RECORD = "\x1f", "\x1e"


@dataclass(frozen=True)
class Turn:
    session: str
    turn: str
    snapshot: str  # the project state the turn's execution produced
    time: int


def _commit(rev: str) -> str:
    return str(git("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}", check=False).strip())


def base_commit(source: str, sha: str) -> str:
    """What the commit's changes are counted against: HEAD, or HEAD's parent when HEAD is
    being amended (source `commit` with HEAD's id; `-c HEAD` looks the same and is counted
    so too). Empty for a first commit."""
    head = _commit("HEAD")
    if source == "commit" and sha and head and _commit(sha) == head:
        return _commit("HEAD^")
    return head


def staged_blobs(base: str) -> dict[str, str]:
    """path -> staged blob, for paths whose staged content differs from `base`'s."""
    if not base:  # the first commit: everything staged is new
        entries = git("ls-files", "--stage", "-z").split("\0")
        return {e.split("\t", 1)[1]: e.split()[1] for e in entries if "\t" in e}
    fields = git("diff-index", "--cached", "--no-renames", "-z", base).split("\0")
    blobs: dict[str, str] = {}
    for meta, path in zip(fields[0::2], fields[1::2], strict=False):
        parts = meta.split()
        if len(parts) == 5 and parts[4] != "D":
            blobs[path] = parts[3]
    return blobs


def is_session_branch(ref: str, prefix: str) -> bool:
    """`refs/heads/<prefix>...`, or a fetched one: `refs/remotes/<remote>/<prefix>...`."""
    if ref.startswith(f"refs/heads/{prefix}"):
        return True
    parts = ref.split("/", 3)
    return len(parts) == 4 and parts[1] == "remotes" and parts[3].startswith(prefix)


def session_tips(prefix: str) -> list[str]:
    refs = git("for-each-ref", "--format=%(objectname) %(refname)", "refs/heads/", "refs/remotes/")
    tips = []
    for line in refs.splitlines():
        sha, _, ref = line.partition(" ")
        if is_session_branch(ref, prefix):
            tips.append(sha)
    return tips


def executed_turns(tips: list[str]) -> list[Turn]:
    """Every turn with a result snapshot, newest first."""
    if not tips:
        return []
    fmt = f"%ct{FIELD}%(trailers:only,unfold,separator=%x1f){RECORD}"
    out = git("log", "--first-parent", "--stdin", f"--format={fmt}", input="\n".join(tips) + "\n")
    turns: dict[str, Turn] = {}
    for record in out.split(RECORD):
        time, *trailers = record.strip().split(FIELD)
        values = dict(_trailer(t) for t in trailers)
        if all(values.get(k) for k in TRAILER_KEYS) and time.isdigit():
            snapshot = values["Teddy-Snapshot"]
            turns[snapshot] = Turn(
                values["Teddy-Session"], values["Teddy-Turn"], snapshot, int(time)
            )
    return sorted(turns.values(), key=lambda t: (t.time, t.turn), reverse=True)


def _trailer(text: str) -> tuple[str, str]:
    key, _, value = text.partition(":")
    return key.strip(), value.strip()


def applied_turn(staged: dict[str, str], turns: list[Turn]) -> Turn | None:
    """The most recent turn that wrote one of the staged blobs."""
    paths = [p for p in staged if "\n" not in p]
    if not paths or not turns:
        return None
    queries = [f"{t.snapshot}{rev}:{p}" for t in turns for p in paths for rev in ("", "^")]
    answers = git("cat-file", "--batch-check=%(objectname)", input="\n".join(queries) + "\n")
    found = [a if is_object_id(a) else None for a in answers.splitlines()]
    pairs = iter(zip(found[0::2], found[1::2], strict=True))
    for turn in turns:
        for path in paths:
            result, before = next(pairs)
            if result == staged[path] and before != staged[path]:
                return turn
    return None


def add_trailers(message_file: str, turn: Turn) -> None:
    git(
        "interpret-trailers",
        "--in-place",
        "--if-exists",
        "addIfDifferent",
        "--trailer",
        f"Teddy-Session: {turn.session}",
        "--trailer",
        f"Teddy-Turn: {turn.turn}",
        message_file,
    )


def run(args: list[str]) -> None:
    message_file, source, sha = (*args, "", "")[:3]
    if source in SKIPPED_SOURCES:
        return
    staged = staged_blobs(base_commit(source, sha))
    turn = applied_turn(staged, executed_turns(session_tips(ref_prefix())))
    if turn is not None:
        add_trailers(message_file, turn)


def main(args: list[str]) -> int:
    try:
        run(args)
    except Exception as exc:  # a commit is never failed by this hook
        print(f"warning: git-teddy prepare-commit-msg hook failed: {exc}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
