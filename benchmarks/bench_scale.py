"""Benchmark: a team remote with 10,000 sessions of 10 turns (issue 16, the scale picture).

Generates once, under benchmarks/.cache/ (git-ignored), two bare remotes of the same small
project: one with 10,000 sessions, one with 10 (the anchor). Each session is a copy of one
real 10-turn session made by git-teddy (its branch, its snapshots, its keep ref), the
session id and every snapshot id rewritten, written by one `git fast-import` (snapshots
first, their new ids read back with `get-mark`, then the session commits that name them).

The remotes hold sessions where `git teddy push` puts them: `refs/teddy/sessions/<id>/main`
and `refs/teddy/keep/<id>`, outside refs/heads (VERSION v2 on; v1 had them as branches, which
every plain fetch brought: more than two minutes on 10,000 sessions).

Measured in a fresh clone of the project (its branches only) for each remote:
- `git teddy fetch origin <one session>`, and the refs it adds;
- `git teddy list` right after (the index rebuilt from refs);
- a plain `git fetch origin` with git's default refspec, and how many session refs it
  brought (none: protocol v2 asks the server for refs/heads/ and refs/tags/ alone).
Each figure is printed as the 10,000-session time over the 10-session time (the goal: the
cost of one session, and of the project's own fetch, does not grow with the remote), with
ok/MISS. Run with git-teddy on
PATH, e.g. `PATH=.venv/bin:$PATH .venv/bin/python benchmarks/bench_scale.py`.
"""

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench_hooks import PLAN
from bench_snapshot import CACHE, git, sealed_env

SESSIONS, TURNS = 10_000, 10
ANCHOR_SESSIONS = 10
GOAL = 1.5  # the 10,000-session figure over the 10-session one
PLAIN_REPEATS = 7  # plain fetches timed in each clone
PLAIN_LIMIT = 120.0  # a plain fetch that pays for sessions again is stopped after this long
VERSION = "v3"  # of the remotes (v2 chained every session's root onto the last session)
TEMPLATE_VERSION = "v1"  # the template session is a local repository: its layout is unchanged
SLUG = "scale-00000"  # the template session's slug; copies are scale-00001, ...


def teddy(repo: Path, env: dict[str, str], *args: str) -> str:
    proc = subprocess.run(["git", "teddy", *args], cwd=repo, env=env, capture_output=True)
    if proc.returncode != 0:
        sys.exit(f"error: git teddy {' '.join(args)} failed:\n{proc.stderr.decode()}")
    return proc.stdout.decode()


def timed(action: "list[str]", repo: Path, env: dict[str, str], limit: float = 3600) -> float:
    """Seconds `action` took; `limit` when it had not ended by then (it is stopped)."""
    start = time.perf_counter()
    try:
        proc = subprocess.run(action, cwd=repo, env=env, capture_output=True, timeout=limit)
    except subprocess.TimeoutExpired:
        return limit
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"error: {' '.join(action)} failed:\n{proc.stderr.decode()}")
    return elapsed


# ---- the template session --------------------------------------------------------------


def make_template(root: Path, env: dict[str, str]) -> tuple[Path, str]:
    """A small project with one real session of TURNS turns; its id."""
    repo = root / "template"
    repo.mkdir()
    git(repo, env, "init", "-q")
    for i in range(20):
        (repo / f"file{i}.txt").write_text(f"line {i}\n")
    git(repo, env, "add", ".")
    git(repo, env, "commit", "-qm", "the project")
    session = teddy(repo, env, "new", SLUG).strip()
    plan = root / "plan.md"
    for n in range(1, TURNS + 1):
        (repo / "hand.txt").write_text(f"edited by hand before turn {n} of {session}\n")
        text = f"made by turn {n} of {session}"
        plan.write_text(PLAN.format(path=f"made{n}.txt", content=text))
        teddy(repo, env, "plan", "-m", f"turn {n}", "--from-file", str(plan))
        teddy(repo, env, "execute", "-y")
    return repo, session


def commit_fields(repo: Path, env: dict[str, str], sha: str) -> tuple[list[str], str, str, str]:
    """parents, author, committer, message of a commit."""
    raw = git(repo, env, "cat-file", "commit", sha)
    head, _, message = raw.partition("\n\n")
    parents, author, committer = [], "", ""
    for line in head.splitlines():
        key, _, value = line.partition(" ")
        if key == "parent":
            parents.append(value)
        elif key == "author":
            author = value
        elif key == "committer":
            committer = value
    return parents, author, committer, message


def changes(repo: Path, env: dict[str, str], parent: str | None, sha: str) -> list[tuple[str, ...]]:
    """(status, mode, blob, path) of each file `sha` changes from `parent` (all, for a root)."""
    if parent is None:
        found = []
        for line in git(repo, env, "ls-tree", "-r", sha).splitlines():
            meta, _, path = line.partition("\t")
            mode, _, blob = meta.split()
            found.append(("M", mode, blob, path))
        return found
    out = git(repo, env, "diff-tree", "-r", "--no-renames", parent, sha)
    found = []
    for line in out.splitlines():
        meta, _, path = line.partition("\t")
        _, mode, _, blob, status = meta.split()
        found.append(("D" if status == "D" else "M", mode, blob, path))
    return found


def template_commits(repo: Path, env: dict[str, str], session: str) -> tuple[list[str], list[str]]:
    """The template's snapshot commits and its other commits (session branch, keep chain),
    each oldest first."""
    keep = f"refs/teddy/keep/{session}"
    ours = git(repo, env, "rev-list", "--topo-order", "--reverse", f"teddy/{session}/main", keep,
               "--not", "main").split()  # fmt: skip
    snapshots = set(git(repo, env, "show", f"{keep}:snapshots").split())
    return [c for c in ours if c in snapshots], [c for c in ours if c not in snapshots]


# ---- the remote --------------------------------------------------------------------------


class Importer:
    """A `git fast-import` process fed commit by commit (`options`: e.g. its marks files)."""

    def __init__(self, remote: Path, env: dict[str, str], options: list[str], mark: int) -> None:
        self.proc = subprocess.Popen(
            ["git", "fast-import", "--quiet", "--done", "--force", *options],
            cwd=remote,
            env=env,
            stdin=subprocess.PIPE,
        )
        self.mark = mark

    def send(self, data: bytes) -> None:
        assert self.proc.stdin
        self.proc.stdin.write(data)

    def next_mark(self) -> int:
        self.mark += 1
        return self.mark

    def blob(self, content: bytes) -> int:
        mark = self.next_mark()
        self.send(b"blob\nmark :%d\ndata %d\n%s\n" % (mark, len(content), content))
        return mark

    def finish(self) -> None:
        assert self.proc.stdin
        self.send(b"done\n")
        self.proc.stdin.close()
        if self.proc.wait() != 0:
            sys.exit("error: git fast-import failed")


@dataclass
class Commits:
    """The template's commits as fast-import needs them: fields, changes, blob contents."""

    fields: dict[str, tuple[list[str], str, str, str]]
    diffs: dict[str, list[tuple[str, ...]]]
    contents: dict[str, bytes]


def read_commits(template: Path, env: dict[str, str], commits: list[str]) -> Commits:
    fields = {c: commit_fields(template, env, c) for c in commits}
    diffs = {c: changes(template, env, (fields[c][0] or [None])[0], c) for c in fields}
    blobs = {b for d in diffs.values() for _, _, b, _ in d if b != "0" * 40}
    contents = {b: git(template, env, "cat-file", "blob", b).encode() for b in blobs}
    return Commits(fields, diffs, contents)


def import_sessions(remote: Path, template: Path, session: str, count: int, env: dict) -> None:
    """`count` copies of the template session into `remote` (which has the project)."""
    snapshots, others = template_commits(template, env, session)
    commits = read_commits(template, env, snapshots + others)
    branch = git(template, env, "rev-parse", f"teddy/{session}/main").strip()
    keep = git(template, env, "rev-parse", f"refs/teddy/keep/{session}").strip()
    # Two runs: every session's snapshots first, their ids exported with the marks; then the
    # session and keep commits, whose text names those ids.
    marks_file = remote / "bench-marks"
    importer = Importer(remote, env, [f"--export-marks={marks_file}"], 0)
    all_marks: list[dict[str, int]] = []
    for number in range(count):
        rename = {session.encode(): session_id(session, number).encode()}
        marks: dict[str, int] = {}
        for commit in snapshots:
            marks[commit] = write_commit(importer, commits, commit, marks, rename)
        all_marks.append(marks)
    importer.finish()
    ids = dict(line.split() for line in marks_file.read_text().splitlines())
    importer = Importer(remote, env, [f"--import-marks={marks_file}"], importer.mark)
    for number, marks in enumerate(all_marks):
        sid = session_id(session, number)
        rename = {session.encode(): sid.encode()}
        rename |= {c.encode(): ids[f":{marks[c]}"].encode() for c in snapshots}
        for commit in others:
            marks[commit] = write_commit(importer, commits, commit, marks, rename)
        where = f"refs/teddy/sessions/{sid}/main"  # as `git teddy push` puts it
        importer.send(f"reset {where}\nfrom :{marks[branch]}\n\n".encode())
        importer.send(f"reset refs/teddy/keep/{sid}\nfrom :{marks[keep]}\n\n".encode())
    importer.finish()
    marks_file.unlink()
    git(remote, env, "update-ref", "-d", "refs/bench/tmp")
    git(remote, env, "pack-refs", "--all")


def session_id(template: str, number: int) -> str:
    return template.replace(SLUG, f"scale-{number:05d}")


def write_commit(
    importer: Importer,
    commits: Commits,
    commit: str,
    marks: dict[str, int],
    rename: dict[bytes, bytes],
) -> int:
    """A copy of template commit `commit` on a scratch ref, its text renamed; its mark."""

    def renamed(data: bytes) -> bytes:
        for old, new in rename.items():
            data = data.replace(old, new)
        return data

    parents, author, committer, message = commits.fields[commit]
    files = []
    for status, mode, blob, path in commits.diffs[commit]:
        if status == "D":
            files.append(f"D {path}\n".encode())
        else:
            mark = importer.blob(renamed(commits.contents[blob]))
            files.append(b"M %s :%d %s\n" % (mode.encode(), mark, path.encode()))
    mark = importer.next_mark()
    text = renamed(message.encode())
    # A commit without `from` continues the scratch ref's tip: a root commit (a session's
    # first, a base snapshot) starts the ref anew, so sessions share no history.
    lines = [b"reset refs/bench/tmp\n\n"] if not parents else []
    lines.append(b"commit refs/bench/tmp\nmark :%d\n" % mark)
    lines.append(f"author {author}\ncommitter {committer}\n".encode())
    lines.append(b"data %d\n%s\n" % (len(text), text))
    for index, parent in enumerate(parents):
        where = f":{marks[parent]}" if parent in marks else parent
        lines.append(f"{'from' if index == 0 else 'merge'} {where}\n".encode())
    if not parents:
        lines.append(b"deleteall\n")
    importer.send(b"".join(lines) + b"".join(files) + b"\n")
    return mark


def cached_template(env: dict[str, str]) -> tuple[Path, str]:
    """The template session's repository, made once for every remote size."""
    root = CACHE / f"scale-{TEMPLATE_VERSION}-template"
    ready = root / "ready"
    if not ready.exists():
        shutil.rmtree(root, ignore_errors=True)
        root.mkdir(parents=True)
        ready.write_text(make_template(root, env)[1])
    return root / "template", ready.read_text()


def make_remote(root: Path, template: Path, session: str, count: int, env: dict) -> Path:
    remote = root / f"remote-{count}.git"
    git(root, env, "init", "-q", "--bare", str(remote))
    git(template, env, "push", "-q", str(remote), "main")
    import_sessions(remote, template, session, count, env)
    return remote


def cached_remotes(env: dict[str, str], sessions: int) -> tuple[Path, Path, str]:
    """The `sessions`-session and 10-session remotes, generated once; the template session."""
    root = CACHE / f"scale-{VERSION}-{sessions}"
    ready = root / "ready"
    if not ready.exists():
        shutil.rmtree(root, ignore_errors=True)
        root.mkdir(parents=True)
        start = time.perf_counter()
        template, session = cached_template(env)
        for count in (ANCHOR_SESSIONS, sessions):
            make_remote(root, template, session, count, env)
        ready.write_text(session)
        print(f"generated the remotes in {time.perf_counter() - start:.0f} s (cached in {root})")
    session = ready.read_text()
    return root / f"remote-{sessions}.git", root / f"remote-{ANCHOR_SESSIONS}.git", session


# ---- measuring ---------------------------------------------------------------------------


def project_clone(remote: Path, where: Path, env: dict[str, str]) -> Path:
    """A clone of the project made before it had sessions: git's default refspec, main
    fetched and checked out, no session refs."""
    git(where.parent, env, "init", "-q", str(where))
    git(where, env, "remote", "add", "origin", str(remote))
    git(where, env, "fetch", "-q", "origin", "refs/heads/main:refs/remotes/origin/main")
    git(where, env, "checkout", "-q", "-b", "main", "origin/main")
    return where


def ref_count(repo: Path, env: dict[str, str], pattern: str = "") -> int:
    return len(
        git(repo, env, "for-each-ref", "--format=x", *([pattern] if pattern else [])).split()
    )


def measure(remote: Path, session: str, env: dict[str, str], runs: int) -> dict[str, float]:
    """Medians over `runs` fresh clones; ref counts from the last."""
    figures: dict[str, list[float]] = {}
    counts: dict[str, float] = {}
    one = session.replace(SLUG, "scale-00003")
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as tmp:
            clone = project_clone(remote, Path(tmp) / "clone", env)
            counts["refs before"] = ref_count(clone, env)
            took = timed(["git", "teddy", "fetch", "origin", one], clone, env)
            figures.setdefault("fetch one", []).append(took)
            counts["refs after fetch one"] = ref_count(clone, env)
            took = timed(["git", "teddy", "list"], clone, env)
            figures.setdefault("list", []).append(took)
            plain = project_clone(remote, Path(tmp) / "plain", env)
            # A few tens of milliseconds, process start-up most of it: the median of several.
            took = statistics.median(
                timed(["git", "fetch", "-q", "origin"], plain, env, PLAIN_LIMIT)
                for _ in range(PLAIN_REPEATS)
            )
            figures.setdefault("plain fetch", []).append(took)
            counts["refs after plain fetch"] = ref_count(plain, env)
            sessions = ref_count(plain, env, "refs/remotes/origin/teddy/")
            counts["session refs after plain fetch"] = sessions
            counts["keep refs after plain fetch"] = ref_count(plain, env, "refs/teddy/")
    return {**{k: statistics.median(v) for k, v in figures.items()}, **counts}


def remote_figures(remote: Path, env: dict[str, str]) -> dict[str, int]:
    refs = git(remote, env, "for-each-ref", "--format=%(refname)").split()
    objects = git(remote, env, "count-objects", "-v")
    counted = dict(line.split(": ") for line in objects.splitlines())
    return {
        "refs": len(refs),
        "session branches": sum(r.startswith("refs/teddy/sessions/") for r in refs),
        "branches": sum(r.startswith("refs/heads/") for r in refs),
        "keep refs": sum(r.startswith("refs/teddy/keep/") for r in refs),
        "objects": int(counted["count"]) + int(counted["in-pack"]),
        "size KiB": int(counted["size"]) + int(counted["size-pack"]),
    }


def line(name: str, big: float, small: float, goal: float = GOAL) -> None:
    ratio = big / small if small else float("inf")
    verdict = "ok" if ratio <= goal else "MISS"
    print(f"{name:<34} {big * 1000:9.0f} ms vs {small * 1000:7.0f} ms  {ratio:5.2f}x"
          f"  goal <= {goal}x  {verdict}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sessions", type=int, default=SESSIONS)
    args = parser.parse_args()
    sessions = args.sessions
    with tempfile.TemporaryDirectory() as home_dir:
        env = sealed_env(Path(home_dir))
        big, small, session = cached_remotes(env, sessions)
        template, _ = cached_template(env)
        snapshots = len(git(template, env, "show", f"refs/teddy/keep/{session}:snapshots").split())
        remote = remote_figures(big, env)
        print(f"remote: {sessions} sessions of {TURNS} turns: {remote['refs']} refs"
              f" ({remote['session branches']} session branches under refs/teddy/sessions/,"
              f" {remote['keep refs']} keep refs, {remote['branches']} in refs/heads),"
              f" {remote['objects']} objects, {remote['size KiB'] / 1024:.0f} MiB")  # fmt: skip
        old_layout = remote["refs"] - remote["keep refs"] + sessions * snapshots
        print(f"refs per session: 2 (the old layout: 1 + {snapshots} snapshots = {1 + snapshots};"
              f" {old_layout} refs on this remote);"
              f" objects per turn: {remote['objects'] / (sessions * TURNS):.1f}")  # fmt: skip
        at_scale = measure(big, session, env, args.runs)
        anchor = measure(small, session, env, args.runs)
        for key in ("refs before", "refs after fetch one", "refs after plain fetch",
                    "session refs after plain fetch", "keep refs after plain fetch"):  # fmt: skip
            print(f"{key:<34} {int(at_scale[key]):7d} (with {ANCHOR_SESSIONS} sessions:"
                  f" {int(anchor[key])})")  # fmt: skip
        line("teddy fetch of one session", at_scale["fetch one"], anchor["fetch one"])
        line("teddy list after the fetch", at_scale["list"], anchor["list"])
        line("plain git fetch (default refspec)", at_scale["plain fetch"], anchor["plain fetch"])
        if at_scale["plain fetch"] >= PLAIN_LIMIT:
            print(f"  (stopped after {PLAIN_LIMIT:.0f} s: the ref counts after it are partial)")


if __name__ == "__main__":
    main()
