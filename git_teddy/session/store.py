"""Sessions kept in git: one orphan branch per conversation line, turns as commits with
trailers, project states as snapshot commits kept alive by one keep ref per session.

Layout for session `20261126-auth` with the default prefix `teddy/`:
- `refs/heads/teddy/20261126-auth/main`, `refs/heads/teddy/20261126-auth/02-branch-01`:
  conversation branches; their tree is the session folder (`session.md`, `session.context`,
  one folder per turn), cumulative;
- `refs/teddy/keep/20261126-auth`: keeps every snapshot the session refers to reachable
  (session.keep).
"""

import hashlib
import os
import random
import shlex
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any

from git_teddy.artifacts.folder import (
    SESSION_CONTEXT,
    SESSION_FILE_LIMIT,
    SESSION_LOG,
    TURN_RECORD,
)
from git_teddy.artifacts.names import (
    MAIN_BRANCH,
    branch_of_turn,
    is_turn_name,
    new_branch_name,
    new_session_id,
    next_turn_name,
    turn_depth,
    validate_slug,
)
from git_teddy.artifacts.session_state import as_read, session_state
from git_teddy.artifacts.trailers import format_message, parse_trailers
from git_teddy.errors import ConcurrentUpdateError, DamagedSessionError, TeddyError
from git_teddy.gitstore import CommitInfo, GitRepo, snapshot_worktree
from git_teddy.gitstore.changes import CutBlob
from git_teddy.gitstore.landing import commits_taking
from git_teddy.gitstore.reflisting import RefListing
from git_teddy.gitstore.repo import RefInTheWay
from git_teddy.gitstore.snapshot import base_of_session, session_root
from git_teddy.session import current, keep
from git_teddy.session.models import (
    LANDED_TRAILER,
    SessionSummary,
    TurnCommit,
    iso_time,
    landings_value,
    parse_landings,
    turn_commit_from_message,
)
from git_teddy.session.refnames import (
    branch_ref,
    branches_prefix,
    group_session_refs,
    keep_ref,
    keeps_prefix,
    namespace_patterns,
)
from git_teddy.settings import checked_channel

if TYPE_CHECKING:
    from git_teddy.artifacts.sessionlog.model import SessionLog
    from git_teddy.artifacts.turn_record import TurnRecord
    from git_teddy.redact import Finding

# The subject of every snapshot of the user's own files saved before teddy changes them
# (restore, branch, applying a turn): `delete` tells these apart from the model's states.
SAVED_STATE_SUBJECT = "teddy: your files before "
CREATE_ATTEMPTS = 20  # each lost race means another session was created: progress

# The files a session commit derives from the branch's new tree (`session.md`...), given the
# tree id and the frontmatter fields to set. The store writes them; it never renders a log.
LogStep = Callable[[str, Mapping[str, Any]], Mapping[str, bytes]]


def applying_subject(turn: str) -> str:
    """The subject of the saved state execute keeps of the user's files before it applies
    `turn`'s result onto edits of theirs (undo and `diff --applied` look for it)."""
    return f"{SAVED_STATE_SUBJECT}applying turn {turn}"


def is_saved_state(snapshot: CommitInfo) -> bool:
    """Whether a snapshot a session keeps is a saved state of the user's own files (their
    content is theirs), not a turn's base or result."""
    return snapshot.message.startswith(SAVED_STATE_SUBJECT)


@dataclass(frozen=True)
class TurnRef:
    session: str
    turn: str
    branch: str


class SessionStore:
    """Reads and writes the sessions of one repository."""

    def __init__(self, repo: GitRepo, prefix: str, write_log: LogStep) -> None:
        self.repo = repo
        self.prefix = prefix  # e.g. "teddy/"
        self.write_log = write_log  # the session log step of every commit (session.logfiles)
        # The sessions grouped from the refs listing, and the listing's state they come from.
        self._grouped: tuple[RefListing, int, dict[str, dict[str, str]]] | None = None
        # Session files read by this command, by (commit, path): a commit never changes.
        self._session_files: dict[tuple[str, str], str | None] = {}

    # ---- refs ------------------------------------------------------------------------------

    def branch_ref(self, session: str, branch: str) -> str:
        return branch_ref(self.prefix, session, branch)

    def keep_ref(self, session: str) -> str:
        return keep_ref(self.prefix, session)

    def refs(self) -> RefListing:
        """Every ref of teddy's namespaces as this command found them: local and fetched
        session branches, keep refs (session.refnames), listed by one `git for-each-ref` at
        the first question and kept current with the refs this command writes (GitRepo)."""
        return self.repo.listing(namespace_patterns(self.prefix, self.repo.remotes()))

    def reread(self) -> None:
        """Forget the refs as found: the next question lists them again (`serve` answers
        each request from the repository as it is then)."""
        self.repo.forget_refs()
        self._session_files.clear()  # kept per command: a server's would only grow

    def _all_branches(self) -> dict[str, dict[str, str]]:
        """session id -> branch name -> tip commit, local and fetched (session.refnames),
        grouped again only when the listing changed."""
        listing = self.refs()
        grouped = self._grouped
        if grouped is None or grouped[0] is not listing or grouped[1] != listing.version:
            sessions = group_session_refs(listing.refs, self.prefix, self.repo.remotes())
            grouped = self._grouped = (listing, listing.version, sessions)
        return grouped[2]

    def local_session_ids(self) -> list[str]:
        base = branches_prefix(self.prefix)
        local = self.refs().under(base)
        return sorted({n.removeprefix(base).split("/")[0] for n in local})

    def session_ids(self) -> list[str]:
        return sorted(self._all_branches())

    def branches(self, session: str) -> dict[str, str]:
        branches = self._all_branches().get(session)
        if not branches:
            raise _unknown_session(session)
        return dict(branches)

    def snapshots(self, session: str) -> list[str]:
        tip = self.repo.read_ref(self.keep_ref(session))
        return keep.snapshots(self.repo, tip)

    # ---- sessions --------------------------------------------------------------------------

    def create_session(self, name: str, channel: str) -> str:
        """A new session: base snapshot, orphan root commit, branch `<prefix><id>/main`.
        Two processes creating the same name at once get distinct ids (the loser retries)."""
        validate_slug(name)
        channel = checked_channel(channel)
        now = self.now()
        for _attempt in range(CREATE_ATTEMPTS - 1):
            try:
                return self._create_session_once(name, channel, now)
            except ConcurrentUpdateError:
                time.sleep(random.uniform(0, 0.05))  # jitter, so racers spread out
                continue
        return self._create_session_once(name, channel, now)

    def _create_session_once(self, name: str, channel: str, now: datetime) -> str:
        session = new_session_id(now.date(), name, set(self.session_ids()))
        branch = self.branch_ref(session, MAIN_BRANCH)
        # Refuse a clash (a branch `teddy` where teddy/ must be a folder) before any object.
        # The snapshot's id is not known yet; only the folders above it can clash.
        for ref in (branch, self.keep_ref(session)):
            if blocking := self.repo.ref_in_the_way(ref):
                raise _ref_clash(self.prefix, blocking)
        self.repo.check_signing()  # the snapshot's ref is written before the signed root
        message = f"teddy: base snapshot of session {session}"
        base = snapshot_worktree(self.repo, message)
        files = {SESSION_CONTEXT: b""}
        meta = {"session_id": session, "started": now.isoformat(), "channel": channel}
        files.update(self.write_log(self.repo.write_tree(None, files), meta))
        trailers = {
            "Teddy-Session": session,
            "Teddy-Phase": "new",
            "Teddy-Status": "active",
            "Teddy-Snapshot": base,
        }
        tree = self.repo.write_tree(None, files)
        message = format_message(f"teddy: new session {session}", trailers)
        root = self.repo.write_session_commit(tree, [], message)
        # The branch first, so a lost race leaves nothing of ours; then the keep ref,
        # and if that fails (or is interrupted) the branch goes again: never half a session.
        self._update_ref(branch, root, None, "new session")
        try:
            self.keep_snapshot(session, base)
        except BaseException:
            self.repo.delete_ref(branch, root)
            raise
        return session

    def _update_ref(self, name: str, new: str, expected: str | None, reason: str) -> None:
        """GitRepo.update_ref, a ref clash worded with the way out (another prefix)."""
        try:
            self.repo.update_ref(name, new, expected, reason)
        except RefInTheWay as clash:
            raise _ref_clash(self.prefix, clash.blocking) from None

    def now(self) -> datetime:
        """The time git would record for a commit now: this second in the local zone, or
        GIT_COMMITTER_DATE (fixed in tests) as git reads it, which takes a git process (a
        read-only command such as `show` asks the time without starting one)."""
        if "GIT_COMMITTER_DATE" in os.environ:
            ident = self.repo.committer()
            stamp, offset = ident.timestamp, timedelta(seconds=ident.tz_offset)
        else:
            stamp = int(time.time())
            offset = datetime.fromtimestamp(stamp).astimezone().utcoffset() or timedelta(0)
        return datetime.fromtimestamp(stamp, timezone(offset) if offset else UTC)

    def resolve_session(self, spec: str | None) -> str:
        """A session id from an id, a unique prefix of one (or of its slug), or None for this
        worktree's current session (session.current)."""
        all_branches = self._all_branches()
        if not all_branches:
            raise TeddyError(
                "there are no sessions in this repository yet",
                "start one with `git teddy new <name>`",
            )
        if spec is None:
            return self._worktree_session(all_branches)
        exact = [s for s in all_branches if s == spec or s[9:] == spec]
        if len(exact) == 1:
            return exact[0]
        matches = sorted(s for s in all_branches if s.startswith(spec) or s[9:].startswith(spec))
        if len(matches) == 1:
            return matches[0]
        if not matches:
            raise _unknown_session(spec)
        raise TeddyError(
            f"session {spec!r} is ambiguous: it matches {', '.join(matches)}",
            f"give more of the session id, or all of it (e.g. {matches[0]})",
        )

    def _worktree_session(self, all_branches: Mapping[str, Mapping[str, str]]) -> str:
        """The session this worktree recorded as current, else (none recorded) the most
        recent local one no other worktree works in (session.current)."""
        chosen = current.recorded(self.repo)
        if chosen is not None:
            if chosen not in all_branches:
                raise current.gone(chosen)
            return chosen
        local = [s for s in self.local_session_ids() if s in all_branches]
        return current.fallback(self.repo, {s: self._last_active(all_branches[s]) for s in local})

    def last_active(self, session: str) -> int:
        """When the session last had a commit, in seconds since the epoch."""
        return self._last_active(self.branches(session))

    def _last_active(self, branches: Mapping[str, str]) -> int:
        return max(self.repo.read_commit(tip).timestamp for tip in branches.values())

    def summary(self, session: str, idle_timeout: int = 0) -> SessionSummary:
        """The session's figures; idle past `idle_timeout` seconds (0: never), an active
        session reads as paused at its last turn (spec 003: it timed out)."""
        branches = self.branches(session)
        log = self.session_log(session)
        current = self.current_branch(session)
        root = self._root_commit(branches[current])
        last = max((self.repo.read_commit(t) for t in branches.values()), key=lambda c: c.timestamp)
        last_active = iso_time(last.timestamp, last.tz_offset)
        root_time = iso_time(root.timestamp, root.tz_offset)
        state = session_state(log, root_time, self._turn_folders(branches), current)
        now = int(self.now().timestamp())
        read = as_read(state.status, state.resume_point, last_active, now, idle_timeout)
        return SessionSummary(
            id=session,
            status=read.status,
            started=state.started,
            channel=state.channel,
            turns=state.turns,
            branches=sorted(branches, key=lambda b: (b != MAIN_BRANCH, b)),
            base_snapshot=base_of_session(root),
            last_active=last_active,
            resume_point=read.resume_point,
            timed_out=read.timed_out,
        )

    def session_log(self, session: str) -> dict[str, Any]:
        """The frontmatter of `session.md` on the branch the session continues on."""
        from git_teddy.artifacts import frontmatter  # yaml and pydantic: not for `log`
        from git_teddy.artifacts.yamlio import Unreadable

        branch = self.current_branch(session)
        tip = self.branches(session)[branch]
        try:
            log, _ = frontmatter.parse(self.read_session_file(tip, SESSION_LOG) or "")
        except Unreadable as problem:  # aliases: never expanded
            raise self.damaged(session, branch, SESSION_LOG, str(problem)) from None
        return log

    def read_log(self, session: str) -> "SessionLog":
        """The parsed `session.md` of the branch the session continues on."""
        from git_teddy.artifacts.sessionlog.parse import parse_log

        tip = self.branches(session)[self.current_branch(session)]
        return parse_log(self.read_session_file(tip, SESSION_LOG) or "", f"{session}'s session.md")

    def set_status(self, session: str, status: str, resume_point: str | None = None) -> str:
        """Record the session's status (active, paused, completed) in its log, as a commit;
        the resume point is kept only where given (an active session has none)."""
        updates: dict[str, Any] = {"status": status, "resume_point": resume_point}
        updates["ended"] = self.now().isoformat() if status == "completed" else None
        trailers = {"Teddy-Session": session, "Teddy-Phase": "status", "Teddy-Status": status}
        branch = self.current_branch(session)
        subject = f"teddy: session {status}"
        return self.commit_files(session, branch, {}, subject, trailers, log_updates=updates)

    def _root_commit(self, tip: str) -> CommitInfo:
        return session_root(self.repo, tip)

    # ---- turns -----------------------------------------------------------------------------

    def turn_commits(self, session: str) -> list[TurnCommit]:
        """Every plan and report commit of the session, across branches, oldest first."""
        seen: set[str] = set()
        commits: list[TurnCommit] = []
        branches = self.branches(session)
        for branch in sorted(branches, key=lambda b: (b != MAIN_BRANCH, b)):
            for info in self.repo.first_parent_history(branches[branch]):
                if info.sha in seen:
                    break  # the rest is history shared with a branch already walked
                seen.add(info.sha)
                turn = turn_commit_from_message(
                    info.message, info.sha, iso_time(info.timestamp, info.tz_offset)
                )
                if turn and turn.session == session:
                    commits.append(turn)
        return sorted(
            commits, key=lambda c: (c.time, turn_depth(c.turn), c.turn, c.phase != "plan")
        )

    def turn_result(self, ref: TurnRef) -> str | None:
        """The project state a turn ended with (its latest report's snapshot), None before
        it was executed."""
        for commit in reversed(self.turn_commits(ref.session)):
            if commit.turn == ref.turn and commit.phase == "report" and commit.snapshot:
                return commit.snapshot
        return None

    def turns(self, session: str, commits: list[TurnCommit] | None = None) -> list[TurnCommit]:
        """One entry per turn: its latest commit (the report once executed, else the plan).
        `commits`: the session's turn_commits when the caller has them already."""
        latest: dict[str, TurnCommit] = {}
        for commit in self.turn_commits(session) if commits is None else commits:
            latest[commit.turn] = commit
        for turn, taken in self.landings(session).items():
            if turn in latest:
                latest[turn] = replace(latest[turn], landed_in=taken)
        return sorted(
            latest.values(),
            key=lambda c: (turn_depth(c.turn), c.branch != MAIN_BRANCH, c.turn),
        )

    def turn_names(self, session: str) -> set[str]:
        return set().union(*self._turn_folders(self.branches(session)).values())

    def _turn_folders(self, branches: Mapping[str, str]) -> dict[str, set[str]]:
        """Each branch's turn folders (subagents' turns too), at its tip."""
        folders: dict[str, set[str]] = {}
        for branch, tip in branches.items():
            listed = self.repo.list_dir(self.repo.read_commit(tip).tree)
            folders[branch] = {n for n, is_dir in listed.items() if is_dir and is_turn_name(n)}
        return folders

    def resolve_turn(self, spec: str, session: str | None = None) -> TurnRef:
        """`02`, `02-branch-01` or `<session>/02` (the session part may be a prefix)."""
        if "/" in spec:
            session, _, spec = spec.partition("/")
        # Every way of naming the session (`-s`, `SESSION/TURN`) goes through the one
        # resolver: an id, a unique prefix of it or of its slug, or the latest session.
        session = self.resolve_session(session)
        if spec.isdigit() and len(spec) == 1:
            spec = f"0{spec}"
        if spec not in self.turn_names(session):
            known = ", ".join(sorted(self.turn_names(session), key=lambda n: (turn_depth(n), n)))
            raise TeddyError(
                f"session {session} has no turn {spec!r}",
                f"its turns are: {known}" if known else "it has no turns yet",
            )
        return TurnRef(session, spec, branch_of_turn(spec))

    def turn_file(self, ref: TurnRef, name: str, limit: int) -> bytes | None:
        """One file of a turn's folder (turn_files' way), the others not read."""
        return self.repo.read_bounded(self._turn_tree(ref), f"{ref.turn}/{name}", limit)

    def _turn_tree(self, ref: TurnRef) -> str:
        tip = self.branches(ref.session).get(ref.branch)
        if tip is None:
            raise TeddyError(
                f"the branch of turn {ref.turn} ({ref.branch}) no longer exists",
                f"list the session's branches with `git teddy show {shlex.quote(ref.session)}`",
            )
        return self.repo.read_commit(tip).tree

    def turn_files(self, ref: TurnRef, limit: int | None = None) -> dict[str, bytes]:
        """The files of a turn's folder, as the tip of its branch has them; with `limit`,
        one larger is read cut (gitstore's CutBlob), for showing."""
        tree = self._turn_tree(ref)
        if limit is not None:
            return self.repo.read_folders([(tree, ref.turn)], limit)[0]
        files: dict[str, bytes] = {}
        for name, is_dir in self.repo.list_dir(tree, ref.turn).items():
            data = None if is_dir else self.repo.read_file(tree, f"{ref.turn}/{name}")
            if data is not None:
                files[name] = data
        return files

    def read_session_file(self, commit: str, path: str) -> str | None:
        """A session file's text; a TeddyError naming it when it is larger than any teddy
        writes (a teammate's commit may hold anything): it is not read whole. Read once per
        command (`show` asks for session.md's frontmatter, then for the whole log)."""
        key = (commit, path)
        if key not in self._session_files:
            self._session_files[key] = self._read_session_file(commit, path)
        return self._session_files[key]

    def _read_session_file(self, commit: str, path: str) -> str | None:
        data = self.repo.read_bounded(self.repo.read_commit(commit).tree, path, SESSION_FILE_LIMIT)
        if isinstance(data, CutBlob):
            raise TeddyError(
                f"{path} in session commit {commit[:12]} holds {data.size} bytes, more than "
                f"git-teddy reads of a session file ({SESSION_FILE_LIMIT})",
                "a commit not made by git-teddy (fetched from a teammate?): find it with "
                f"`git log --format='%h %an %s' {commit[:12]} -- {path}`",
            )
        return data.decode("utf-8", "replace") if data is not None else None

    def turn_id(self, session: str, turn: str) -> str:
        """A stable, unique id: derived from the session's root commit and the turn's name."""
        main_tip = self.branches(session).get(MAIN_BRANCH) or next(
            iter(self.branches(session).values())
        )
        root = self._root_commit(main_tip).sha
        return hashlib.sha1(f"{root}:{turn}".encode()).hexdigest()[:16]

    def last_turn_trailers(self, session: str, branch: str) -> dict[str, str]:
        """Trailers of the newest turn commit on `branch` ({} before the first turn). Commits
        a user made on the branch by hand (say, editing session.context) are passed over."""
        for info in self.repo.first_parent_history(self.branches(session)[branch]):
            trailers = parse_trailers(info.message)
            if "Teddy-Turn" in trailers or not info.parents:
                return trailers if "Teddy-Turn" in trailers else {}
        return {}

    def next_turn(self, session: str, branch: str) -> str:
        """The name the next turn planned on `branch` gets."""
        tip = self.branches(session).get(branch)
        if tip is None:
            raise TeddyError(
                f"session {session} has no branch {branch!r}",
                f"see its branches with `git teddy show {shlex.quote(session)}`",
            )
        last = self.last_turn_trailers(session, branch).get("Teddy-Turn")
        depth = turn_depth(last) + 1 if last else 1
        started = branch != MAIN_BRANCH and branch in self.turn_names(session)
        return next_turn_name(branch, depth, started)

    def commit_files(
        self,
        session: str,
        branch: str,
        files: Mapping[str, bytes],
        subject: str,
        trailers: dict[str, str],
        log_updates: Mapping[str, Any] | None = None,
        since: str | None = None,
    ) -> str:
        """Write `files` (paths in the session folder) as a new commit on `branch`, with
        `session.md` regenerated from the turns (`log_updates` set its status fields). A
        branch known only from a remote gets its local branch here, at the fetched tip.
        Nothing reaches a session unredacted: secrets left in `files` become [REDACTED:kind]
        (callers redact first, to report where) and the commit says how many. With `since`,
        ConcurrentUpdateError unless the branch is still at that commit."""
        files, findings = redact_files(files)
        ref = self.branch_ref(session, branch)
        local = self.repo.read_ref(ref)
        tip = local or self.branches(session).get(branch)
        if tip is None:
            raise TeddyError(
                f"session {session} has no branch {branch!r}",
                f"see its branches with `git teddy show {shlex.quote(session)}`",
            )
        if since is not None and tip != since:
            raise ConcurrentUpdateError(
                f"another commit reached {ref} first", "run your command again"
            )
        landings = self._new_landings(session)
        if landings:
            trailers = {**trailers, LANDED_TRAILER: landings_value(landings)}
        tree = self.repo.write_tree(self.repo.read_commit(tip).tree, files)
        log_files, log_findings = redact_files(self.write_log(tree, log_updates or {}))
        tree = self.repo.write_tree(tree, log_files)
        count = sum(len(found) for found in [*findings.values(), *log_findings.values()])
        if count:
            trailers = {**trailers, "Teddy-Redacted": str(count)}
        commit = self.repo.write_session_commit(tree, [tip], format_message(subject, trailers))
        self._update_ref(ref, commit, local, subject)
        return commit

    def landings(self, session: str) -> dict[str, list[str]]:
        """turn -> the user's commits that took its result, as the session's commits record
        them (`Teddy-Landed`, on whichever commit came next: a plan, a report, a status)."""
        landed: dict[str, list[str]] = {}
        seen: set[str] = set()
        for tip in self.branches(session).values():
            for info in self.repo.first_parent_history(tip):
                if info.sha in seen:
                    break
                seen.add(info.sha)
                value = parse_trailers(info.message).get(LANDED_TRAILER)
                for turn, taken in parse_landings(value).items():
                    known = landed.setdefault(turn, [])
                    known.extend(c for c in taken if c not in known)
        return landed

    def _new_landings(self, session: str) -> dict[str, list[str]]:
        """turn -> the user's commits that took its result (their `Teddy-Snapshot` trailer,
        added by the commit hook), for the turns no commit of the session records yet:
        recorded by the session's next commit, never by rewriting the user's (issue 26)."""
        commits = self.turn_commits(session)
        landed = self.landings(session)
        waiting = {
            c.snapshot: c
            for c in commits
            if c.phase == "report" and c.snapshot and c.turn not in landed
        }
        if not waiting:
            return {}
        since = min(c.time for c in waiting.values())
        found = commits_taking(waiting, since, self.prefix, self.repo.cwd)
        return {waiting[snapshot].turn: taken for snapshot, taken in found.items()}

    def create_branch(self, ref: TurnRef) -> str:
        """A conversation branch that is an alternative to `ref`'s turn: it starts where that
        turn started (its parent turn), and its first turn will be named after the branch."""
        plan = next((c for c in self.turn_commits(ref.session) if c.turn == ref.turn), None)
        if plan is None:
            raise TeddyError(f"turn {ref.turn} has no commits", "pick another turn")
        start = self.repo.read_commit(plan.commit).parents[0]
        return self._new_branch(ref.session, turn_depth(ref.turn), start)

    def continue_after(self, ref: TurnRef) -> str | None:
        """Make `ref`'s turn the one the session continues from: its own branch when it is
        the latest turn there (returned), else None: the next plan forks a new branch right
        after it (`branch_to_plan_on`), so a restore alone makes no empty branch."""
        commits = [c for c in self.turn_commits(ref.session) if c.turn == ref.turn]
        last_on_branch = self.last_turn_trailers(ref.session, ref.branch).get("Teddy-Turn")
        if not commits or last_on_branch == ref.turn:
            self.set_current_branch(ref.session, ref.branch)
            return ref.branch
        self.repo.layout.write_fork(ref.session, ref.turn, commits[-1].commit)
        return None

    @contextmanager
    def branch_to_plan_on(self, session: str) -> Iterator[str]:
        """The branch the next plan goes on: the current one, or the branch a restore chose
        to fork, made now. Should the plan not be recorded, that branch goes again."""
        fork = self.repo.layout.read_fork(session)
        if fork is None or not is_turn_name(fork[0]) or not self.repo.object_exists(fork[1]):
            self.repo.layout.clear_fork(session)
            yield self.current_branch(session)
            return
        turn, start = fork
        before = self.repo.layout.read_marker(session)
        name = self._new_branch(session, turn_depth(turn) + 1, start)
        try:
            yield name
        except BaseException:
            ref = self.branch_ref(session, name)
            if self.repo.read_ref(ref) == start:  # no plan on it: as if never made
                self.repo.delete_ref(ref, start)
                if before is not None:
                    self.set_current_branch(session, before.strip())
                self.repo.layout.write_fork(session, turn, start)
            raise

    def _new_branch(self, session: str, depth: int, start: str) -> str:
        taken = self.turn_names(session) | set(self.branches(session))
        name = new_branch_name(depth, taken)
        self._update_ref(self.branch_ref(session, name), start, None, f"branch {name}")
        self.set_current_branch(session, name)
        return name

    def set_current_branch(self, session: str, branch: str) -> None:
        """New turns go on `branch` (a fork a restore chose is dropped: this choice is newer)."""
        self.repo.layout.write_marker(session, branch)
        self.repo.layout.clear_fork(session)

    def current_branch(self, session: str) -> str:
        """The conversation branch new turns go on: the last one made here, else main
        (Layout.current_branch decides, for the session index too)."""
        return self.repo.layout.current_branch(session, self.branches(session))

    # ---- damaged session content --------------------------------------------------------

    def read_record(self, session: str, branch: str, commit: str, turn: str) -> "TurnRecord | None":
        """`turn`'s turn.yaml in `commit` of `branch` (None when it has none); a damaged one
        is a DamagedSessionError naming the commit that wrote it."""
        from git_teddy.artifacts.turn_record import read_record
        from git_teddy.artifacts.yamlio import YAML_LIMIT, Unreadable

        path = f"{turn}/{TURN_RECORD}"
        tree = self.repo.read_commit(commit).tree
        data = self.repo.read_bounded(tree, path, YAML_LIMIT + 1)  # more is refused unread
        try:
            return read_record(data)
        except Unreadable as problem:
            raise self.damaged(session, branch, path, str(problem), commit) from None

    def damaged(
        self, session: str, branch: str, path: str, problem: str, tip: str | None = None
    ) -> DamagedSessionError:
        """The error for `path` on `branch` (at `tip`, else the branch's tip) that teddy
        cannot use: it names the commit that last wrote it, and the ways out, exactly."""
        ref = self.branch_ref(session, branch)
        tip = tip or self.branches(session)[branch]
        culprit = self._commit_that_wrote(tip, path)
        short = culprit.sha[:12]
        drop = (
            f"drop that commit and those after it: `git update-ref {ref} {culprit.parents[0]}`"
            if culprit.parents
            else "that is the session's first commit"
        )
        return DamagedSessionError(
            f"session {session} is damaged: {path} in commit {short} ({branch}) "
            f"is not what git-teddy wrote: {problem}",
            f"fix {path} in a new commit on {ref}, or {drop}, "
            f"or delete the session: `git teddy delete {shlex.quote(session)}`",
        )

    def _commit_that_wrote(self, tip: str, path: str) -> CommitInfo:
        """The oldest commit along first parents from `tip` holding `path` as `tip` does; `tip`
        itself when it lacks the file (the commit naming a turn whose file is missing)."""
        found: CommitInfo | None = None
        wanted: dict[str, str] | None = None
        for info in self.repo.first_parent_history(tip):
            here = self.repo.blob_ids(info.tree, [path])
            if wanted is not None and here != wanted:
                break
            wanted, found = here, info
            if not here:
                break
        assert found is not None  # the history has at least `tip`
        return found

    # ---- snapshots -------------------------------------------------------------------------

    def take_snapshot(self, session: str, message: str, parent: str | None = None) -> str:
        """Snapshot the user's working tree (index and files untouched) and keep it."""
        sha = snapshot_worktree(self.repo, message, parent)
        self.keep_snapshot(session, sha)
        return sha

    def saved_before_applying(self, session: str, turn: str) -> str | None:
        """The saved state execute kept of the user's files before applying `turn` (None:
        it kept none, as their files were the turn's base or it was never applied)."""
        subject = applying_subject(turn)
        for sha in self.snapshots(session):
            if self.repo.read_commit(sha).message.splitlines()[0] == subject:
                return sha
        return None

    def keep_snapshot(self, session: str, sha: str) -> None:
        self.keep_snapshots(session, [sha])

    def keep_snapshots(self, session: str, shas: list[str]) -> None:
        """Keep `shas` alive through the session's keep ref (session.keep)."""
        try:
            keep.keep(self.repo, self.prefix, session, shas)
        except RefInTheWay as clash:
            raise _ref_clash(self.prefix, clash.blocking) from None


def redact_files(
    files: Mapping[str, bytes],
) -> tuple[dict[str, bytes], dict[str, list["Finding"]]]:
    """Text files with their secrets redacted, and what was found where (binary files pass)."""
    from git_teddy.redact import redact  # compiles its patterns: not for commands writing none

    clean: dict[str, bytes] = {}
    findings: dict[str, list[Finding]] = {}
    for path, data in files.items():
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            clean[path] = data
            continue
        redacted, found = redact(text)
        clean[path] = redacted.encode() if found else data
        if found:
            findings[path] = found
    return clean, findings


def _ref_clash(prefix: str, blocking: str) -> TeddyError:
    """A ref of the user's holds a name git-teddy's refs need as a folder (or the reverse);
    git cannot have both, so the user renames theirs or moves git-teddy's."""
    other = "teddy-ai/" if prefix == "ai/" else "ai/"
    where = f"{branches_prefix(prefix)} and {keeps_prefix(prefix)}"
    if blocking.startswith("refs/heads/"):
        short = blocking.removeprefix("refs/heads/")
        what, rename = f"your branch {short!r} ({blocking})", f"`git branch -m {short} <new-name>`"
    else:
        moved = f"`git update-ref <new-name> {blocking} && git update-ref -d {blocking}`"
        what, rename = f"the ref {blocking}", moved
    return TeddyError(
        f"{what} is in the way: git-teddy keeps its refs in {where}, "
        "and git cannot have a ref and a folder of refs of the same name",
        f"rename it ({rename}), or give git-teddy another ref prefix: "
        f"`git config teddy.refPrefix {other}`",
    )


def _unknown_session(spec: str) -> TeddyError:
    return TeddyError(f"no session matches {spec!r}", "list sessions with `git teddy list`")
