"""Read-only commands read what they print, once (issue 31 item 5): `show`, `log` and
`diff 01` start the same git processes whatever the number of turns, none twice (session.md
read once, git's config once, the time without asking git). Counted with GIT_TRACE2_EVENT,
never timed (benchmarks/bench_startup.py times them)."""

import json
from collections import Counter
from pathlib import Path

from testing.commands import Teddy
from testing.plans import create, edit, plan_text

COMMANDS = (["show"], ["log"], ["diff", "01"], ["show", "--json"])


def play(repo: Path, teddy: Teddy, turns: range) -> None:
    """Turns that each create a file and change README.md."""
    for n in turns:
        plan = repo.parent / f"plan-{n}.md"
        before = "# demo" if n == 1 else f"# demo {n - 1}"
        plan.write_text(
            plan_text(create(f"f{n}.txt", f"{n}\n"), edit("README.md", before, f"# demo {n}"))
        )
        teddy.ok(repo, "plan", "-m", f"turn {n}", "--from-file", str(plan))
        teddy.ok(repo, "execute", "-y")


def git_processes(teddy: Teddy, repo: Path, *args: str) -> list[str]:
    """Run `git teddy ARGS` at the real time (the sealed date is git's to read: `git var`);
    the command line of each git process it started."""
    trace = repo.parent / "trace2.json"
    trace.unlink(missing_ok=True)
    env = {k: v for k, v in teddy.env.items() if k != "GIT_COMMITTER_DATE"}
    Teddy({**env, "GIT_TRACE2_EVENT": str(trace)}).ok(repo, *args)
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    argvs = [e["argv"][1:] for e in events if e["event"] == "start"]
    return [" ".join(argv) for argv in argvs if argv[:1] != ["teddy"]]


def kind(line: str) -> str:
    """A git command line's command and first argument: `cat-file --batch-check`."""
    return " ".join(line.split(" ")[:2])


def test_read_only_commands_start_the_same_git_processes_at_any_length(
    repo: Path, teddy: Teddy
) -> None:
    teddy.ok(repo, "new", "long")
    play(repo, teddy, range(1, 3))
    short = {" ".join(args): git_processes(teddy, repo, *args) for args in COMMANDS}
    play(repo, teddy, range(3, 9))
    for args in COMMANDS:
        started = git_processes(teddy, repo, *args)
        kinds = Counter(kind(line) for line in started)
        assert kinds == Counter(kind(line) for line in short[" ".join(args)]), args
        assert [k for k, n in kinds.items() if n > 1] == [], (args, started)  # nothing twice
        assert "var GIT_COMMITTER_IDENT" not in kinds, args  # the time: this process's own


def test_diff_reads_the_turn_record_alone(repo: Path, teddy: Teddy) -> None:
    """`diff` needs a turn's base (its turn.yaml) and its result (a trailer), not the other
    files of its folder (the context the model got can be large): no `cat-file --batch`."""
    teddy.ok(repo, "new", "one")
    play(repo, teddy, range(1, 2))
    kinds = [kind(line) for line in git_processes(teddy, repo, "diff", "01")]
    assert kinds[-1].startswith("diff ") and "cat-file --batch" not in kinds, kinds
