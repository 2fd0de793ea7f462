"""Benchmark: `git teddy list` and `git teddy stats --group-by agent` over 10,000 sessions with
a warm session index, beside the same questions answered by reading every session's
`session.md` (one `git cat-file --batch` pass, then parsing each log). Goals: each query under
0.3 s, and at least 20x faster than the scan.

Generates, in a sealed temporary repository, one branch per session whose `session.md` is
rendered by git_teddy.artifacts.sessionlog.render from a seeded random log (statuses,
channels, agents, models, tokens, costs, failures, tool calls and callouts vary), written
with `git fast-import`
(about 10 s). Then prints the cold index build, median warm timings with the session refs
loose (as fast-import leaves them) and packed (as `git gc` leaves them), the scan, and an
update after one session moved. Asserts nothing. Run with `make bench` (git-teddy must be on
PATH).
"""

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench_context import teddy
from bench_snapshot import git, sealed_env

from git_teddy.artifacts.sessionlog.model import (
    Callout,
    Phase,
    SessionLog,
    SessionMeta,
    SubagentEntry,
    ToolCall,
    ToolCalls,
)
from git_teddy.artifacts.sessionlog.render import render_log
from git_teddy.index.build import BranchLog, SessionFacts, build_rows
from git_teddy.index.query import as_of, grouped, select, totals
from git_teddy.index.rows import SessionIndex
from git_teddy.index.views import list_table
from git_teddy.session.refnames import group_session_refs
from git_teddy.settings import IDLE_TIMEOUT

TIME_GOAL = 0.3  # seconds, per warm query
RATIO_GOAL = 20.0  # warm query vs the scan
AGENTS = ["pathfinder@1.0", "dev@1.0", "dev@1.1", "architect@2.0", "debugger@1.0", "tester@0.9"]
CHANNELS = ["cli", "dev", "ops", "review", "slack"]
MODELS = ["gpt-4o", "claude-sonnet-4", "llama3:70b"]
TOOLS = ["EDIT src/app.py", "CREATE docs/notes.md", "EXECUTE pytest -q", "READ README.md"]


# ---- generating sessions -----------------------------------------------------------------------


def random_log(rng: random.Random, number: int) -> SessionLog:
    start = datetime(2026, 1, 1, tzinfo=UTC) + timedelta(minutes=17 * number)
    session = f"{start:%Y%m%d}-bench-{number:05d}"
    channel = rng.choice(CHANNELS)
    team = rng.sample(AGENTS, rng.randint(1, 3))
    phases = [
        random_phase(rng, turn, rng.choice(team), channel, start + timedelta(minutes=4 * turn))
        for turn in range(1, rng.choice([0, 1, 2, 3, 5, 8, 12]) + 1)
    ]
    status = rng.choices(["active", "paused", "completed"], [3, 2, 5])[0]
    ended = start + timedelta(minutes=4 * len(phases) + 3) if status == "completed" else None
    subagents = (
        [SubagentEntry(session=f"{session}.02-dev", agent="dev@1.1", tokens=rng.randint(1, 9999))]
        if rng.random() < 0.1 and phases
        else []
    )
    meta = SessionMeta(
        session_id=session,
        started=start.isoformat(),
        ended=ended.isoformat() if ended else None,
        status=status,  # type: ignore[arg-type]
        channel=channel,
        participants=list(dict.fromkeys(p.agent for p in phases)),
        model=rng.choice(MODELS) if phases else None,
        tokens_used=sum(p.tokens or 0 for p in phases) + sum(s.tokens for s in subagents),
        subagents=subagents,
        resume_point=phases[-1].turn if status == "paused" and phases else None,
    )
    return SessionLog(meta=meta, phases=phases)


def random_phase(rng: random.Random, turn: int, agent: str, channel: str, when: datetime) -> Phase:
    status = rng.choices(["success", "failure", "aborted", "planned"], [75, 15, 3, 7])[0]
    calls = [
        ToolCall(
            call=rng.choice(TOOLS),
            summary=f"done in {rng.randint(1, 900)} ms",
            status="failure" if status == "failure" and i == 0 else "success",
        )
        for i in range(rng.randint(1, 4))
    ]
    blocks: list[Any] = [
        Callout(kind="user", body=f'"Please do step {turn}" - planned by @{agent}'),
        Callout(kind="decision", body="Keep the public API; add a test first."),
        ToolCalls(calls=calls),
    ]
    if status == "failure":
        blocks.append(Callout(kind="error", title="Unresolved", body="`EXECUTE pytest -q` failed"))
    return Phase(
        title=f"Step {turn}: change the code",
        agent=agent,
        channel=channel,
        turn=f"{turn:02d}",
        time=when.isoformat(),
        status=status,
        model=rng.choice(MODELS),
        tokens=rng.randint(500, 40_000),
        cost=round(rng.uniform(0.0001, 0.4), 4),
        blocks=blocks,
    )


def fast_import_stream(logs: list[SessionLog], snapshot: str) -> Iterator[bytes]:
    """One orphan commit per session on `teddy/<id>/main`, its tree the session folder."""
    yield b"blob\nmark :1\ndata 0\n\n"
    for number, log in enumerate(logs):
        data = render_log(log).encode()
        mark = number + 2
        yield b"blob\nmark :%d\ndata %d\n%s\n" % (mark, len(data), data)
    for number, log in enumerate(logs):
        session = log.meta.session_id
        when = int(datetime.fromisoformat(log.meta.started).timestamp())
        message = (
            f"teddy: new session {session}\n\nTeddy-Session: {session}\nTeddy-Phase: new\n"
            f"Teddy-Status: {log.meta.status}\nTeddy-Snapshot: {snapshot}\n"
        ).encode()
        yield f"commit refs/heads/teddy/{session}/main\n".encode()
        yield f"committer Bench <bench@example.com> {when} +0000\n".encode()
        yield b"data %d\n%s\n" % (len(message), message)
        yield f"M 100644 :{number + 2} session.md\nM 100644 :1 session.context\n\n".encode()


def generate(repo: Path, env: dict[str, str], sessions: int, seed: int) -> float:
    """The repository, as `git fast-import` leaves it: every session ref loose."""
    started = time.perf_counter()
    repo.mkdir(parents=True)
    git(repo, env, "init", "-q", "-b", "main")
    (repo / "app.py").write_text("print('hello')\n")
    git(repo, env, "add", ".")
    git(repo, env, "commit", "-qm", "initial")
    snapshot = git(repo, env, "rev-parse", "HEAD").strip()
    rng = random.Random(seed)
    logs = [random_log(rng, number) for number in range(sessions)]
    git(repo, env, "fast-import", "--quiet", stdin=b"".join(fast_import_stream(logs, snapshot)))
    return time.perf_counter() - started


# ---- the scan: the same questions without the index ---------------------------------------------


def scan(repo: Path, env: dict[str, str]) -> tuple[float, SessionIndex]:
    """Every session's `session.md` read (one `git cat-file --batch` pass) and parsed, then
    the same rows built: what list and stats would cost without an index."""
    from git_teddy.artifacts.sessionlog.parse import parse_log

    started = time.perf_counter()
    refs = git(
        repo,
        env,
        "for-each-ref",
        "--format=%(objectname) %(refname) %(authorname) %(authoremail)",
        "refs/heads/teddy",
    )
    fields = [line.split(" ", 2) for line in refs.splitlines()]
    # `list` shows who started a session (its first commit's author): each generated session
    # is one commit on refs/heads/teddy/<id>/main, so its tip's author is that author
    authors = {name.split("/")[3]: author for _, name, author in fields}
    tips = group_session_refs(
        {name: sha for sha, name, _ in fields},
        "teddy/",
        (),  # local branches only: the benchmark's repository has no remotes
    )
    ids = sorted(tips)
    request = "".join(f"{tips[s]['main']}:session.md\n" for s in ids).encode()
    proc = subprocess.run(
        ["git", "cat-file", "--batch"], cwd=repo, env=env, input=request, capture_output=True
    )
    index = SessionIndex("teddy/")
    for session, text in zip(ids, batch_contents(proc.stdout), strict=True):
        log = parse_log(text)
        meta = log.meta.model_dump(mode="json")
        facts = SessionFacts(
            id=session,
            tips=tips[session],
            current="main",
            logs={"main": BranchLog(meta, log.phases)},
            base_snapshot=None,
            root_time=log.meta.started,
            last_active=log.meta.started,
            author=authors.get(session, ""),
        )
        row, shares = build_rows(facts, 1)
        index.sessions[session], index.agents[session] = row, shares
    # as `list` reads it: an active session idle past teddy.idleTimeout reads as paused
    index = as_of(index, int(time.time()), IDLE_TIMEOUT.default)
    return time.perf_counter() - started, index


def batch_contents(output: bytes) -> Iterator[str]:
    pos = 0
    while pos < len(output):
        header_end = output.index(b"\n", pos)
        size = int(output[pos:header_end].split()[2])
        yield output[header_end + 1 : header_end + 1 + size].decode()
        pos = header_end + 1 + size + 1


def scan_answers(index: SessionIndex) -> tuple[str, dict[str, Any]]:
    rows = select(index)
    overall = totals(rows)
    groups = grouped(index, rows, "agent")
    stats = {
        "overall": overall.as_json(),
        "group_by": "agent",
        "groups": [{"agent": k, **t.as_json()} for k, t in groups.items()],
    }
    return list_table(rows), stats


# ---- timing ------------------------------------------------------------------------------------


def median_teddy(repo: Path, env: dict[str, str], runs: int, *args: str) -> tuple[float, str]:
    teddy(repo, env, *args)  # warm-up: the index is current, the OS caches are warm
    times, out = [], ""
    for _ in range(runs):
        elapsed, out = teddy(repo, env, *args)
        times.append(elapsed)
    return statistics.median(times), out


def touch_one_session(repo: Path, env: dict[str, str]) -> None:
    """A new commit on one session's branch (same tree), as a status change would make."""
    ref = git(repo, env, "for-each-ref", "--count=1", "--format=%(refname)", "refs/heads/teddy")
    ref = ref.strip()
    tree = git(repo, env, "rev-parse", f"{ref}^{{tree}}").strip()
    commit = git(repo, env, "commit-tree", tree, "-p", ref, "-m", "teddy: touched").strip()
    git(repo, env, "update-ref", ref, commit)


def verdict(seconds: float, ratio: float) -> str:
    ok = seconds < TIME_GOAL and ratio >= RATIO_GOAL
    return "ok" if ok else "MISS"


QUERIES = (
    ("git teddy list", ["list"]),
    ("git teddy stats --group-by agent", ["stats", "--group-by", "agent"]),
    ("  ... --json", ["stats", "--group-by", "agent", "--json"]),
)


def warm_queries(repo: Path, env: dict[str, str], runs: int) -> tuple[list[float], list[str]]:
    timed = [median_teddy(repo, env, runs, *args) for _, args in QUERIES]
    return [seconds for seconds, _ in timed], [out for _, out in timed]


def report(
    sessions: int, runs: int, setup: dict[str, float], scanned: float, warm: dict[str, list[float]]
) -> None:
    print(f"\n{sessions} sessions; medians of {runs} runs; the scan runs once, in this process")
    print("(no interpreter start-up counted for it)\n")
    for title, seconds in setup.items():
        print(f"{title:44}{seconds:>8.3f}s")
    print(f"{'scan: cat-file + parse every session.md':44}{scanned:>8.3f}s")
    print(f"\nwarm index; goal < {TIME_GOAL} s and >= {RATIO_GOAL:.0f}x faster than the scan")
    print(f"{'':44}{'packed refs':>12}{'ratio':>8}{'':12}{'loose refs':>12}{'ratio':>8}")
    for number, (title, _) in enumerate(QUERIES):
        packed, loose = warm["packed"][number], warm["loose"][number]
        ratio = scanned / packed
        line = f"{title:44}{packed:>11.3f}s{ratio:>7.1f}x   {verdict(packed, ratio):9}"
        print(line + f"{loose:>11.3f}s{scanned / loose:>7.1f}x")
    print("\npacked refs: as `git gc` (or `git pack-refs`) leaves them; loose refs: one file per")
    print("session branch, as right after `git fast-import` (listing them is git's own cost)\n")
    for number, (_, args) in enumerate(QUERIES):  # the goal lines, the verdict last
        packed = warm["packed"][number]
        ratio = scanned / packed
        label = f"git teddy {' '.join(args)} (packed refs)"
        print(
            f"{label:44}{packed:>8.3f}s {ratio:>6.1f}x   goal < {TIME_GOAL} s and >= "
            f"{RATIO_GOAL:.0f}x the scan: {verdict(packed, ratio)}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5, help="timed runs per warm figure")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    if shutil.which("git-teddy") is None:
        sys.exit("error: git-teddy is not on PATH\nhint: run `make bench`")
    with tempfile.TemporaryDirectory(prefix="teddy-bench-") as home:
        env, repo = sealed_env(Path(home)), Path(home) / "repo"
        print(f"generating {args.sessions} sessions ...", flush=True)
        setup = {
            "generating the sessions (fast-import)": generate(repo, env, args.sessions, args.seed)
        }
        setup["cold build (git teddy index --rebuild)"], built = teddy(
            repo, env, "index", "--rebuild"
        )
        warm = {"loose": warm_queries(repo, env, args.runs)[0]}
        git(repo, env, "pack-refs", "--all")
        warm["packed"], outputs = warm_queries(repo, env, args.runs)
        scanned, index = scan(repo, env)
        touch_one_session(repo, env)
        setup["list after one session moved (1 re-read)"], _ = teddy(repo, env, "list")
        setup["start-up (git teddy --version)"], _ = median_teddy(repo, env, args.runs, "--version")
    scan_list, scan_stats = scan_answers(index)
    # `list` marks the worktree's current session with `*`, which the scan does not know
    listed = "\n".join(
        f"  {line[2:]}" if line.startswith("* ") else line
        for line in outputs[0].rstrip("\n").splitlines()
    )
    same = listed == scan_list and json.loads(outputs[2]) == scan_stats
    print(built.strip())
    report(args.sessions, args.runs, setup, scanned, warm)
    answer = f"same answers from the index and from the scan: {'yes' if same else 'NO'}"
    print(f"{answer:60}goal: the same: {'ok' if same else 'MISS'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
