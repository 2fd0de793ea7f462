"""Naming and listing sessions (issue 15): `-s PREFIX` wherever a session is named, subagent
turns counted by `list`, `stats` and the index, tokens and cost per turn in `log`, and a
session idle past teddy.idleTimeout read as paused at its resume point (spec 003)."""

import json
import re
from pathlib import Path

import yaml

from testing.commands import Teddy, git, run
from testing.llm_servers import OpenAIServer, model_reply
from testing.plans import CONCLUDE, INVOKE, create, execute, plan_text
from testing.sessions import queue

LATER = "2026-11-27T12:00:00+00:00"  # a day after testing.sealed.FIXED_DATE


def delegating_session(repo: Path, teddy: Teddy, replies: Path) -> str:
    """`loop`: pathfinder INVOKEs dev, whose first turn fails and second CONCLUDEs, then
    pathfinder concludes: four turns, two of them the subagent's (one failed)."""
    queue(
        replies,
        plan_text(INVOKE, agent="Pathfinder"),
        plan_text(execute("false")),
        plan_text(CONCLUDE),
        plan_text(CONCLUDE, agent="Pathfinder"),
    )
    session = teddy.ok(repo, "new", "loop").stdout.strip()
    teddy.ok(repo, "continue", "--yolo", "-a", "pathfinder", "-m", "delegate", "--max-turns", "4")
    return session


def agents_of(repo: Path, env: dict, session: str) -> list[str]:
    return [
        yaml.safe_load(git(repo, env, "show", f"teddy/{session}/main:{turn}/turn.yaml"))["agent"]
        for turn in ("01", "02", "03", "04")
    ]


# ---- -s PREFIX ---------------------------------------------------------------------------------


def test_restore_and_branch_take_a_session_prefix(
    repo: Path, teddy: Teddy, env: dict, replies: Path
) -> None:
    queue(replies, plan_text(create("one.txt", "1\n")), plan_text(create("two.txt", "2\n")))
    loop = teddy.ok(repo, "new", "loop").stdout.strip()
    teddy.ok(repo, "plan", "-m", "one")
    teddy.ok(repo, "execute", "-y")
    teddy.ok(repo, "new", "other")  # the latest session now: -s must pick `loop`

    restored = teddy.ok(repo, "restore", "-s", "loop", "01")
    assert f"restored turn 01 of {loop}" in restored.stdout
    assert (repo / "one.txt").read_text() == "1\n"

    branched = teddy.ok(repo, "branch", "-s", "lo", "01", "-m", "instead")
    assert f"branch 01-branch-01 of {loop}, an alternative to turn 01" in branched.stdout
    assert "01-branch-01" in git(repo, env, "branch", "--list", f"teddy/{loop}/*")
    assert teddy.ok(repo, "show", f"{loop[:12]}/01").stdout.startswith(f"turn {loop}/01")


def test_an_ambiguous_or_unknown_prefix_is_refused_with_the_candidates(
    repo: Path, teddy: Teddy, env: dict, replies: Path
) -> None:
    queue(replies, plan_text(create("one.txt", "1\n")))
    loop = teddy.ok(repo, "new", "loop").stdout.strip()
    teddy.ok(repo, "plan", "-m", "one")
    teddy.ok(repo, "execute", "-y")
    loophole = teddy.ok(repo, "new", "loophole").stdout.strip()
    refs_before, files_before = git(repo, env, "for-each-ref"), git(repo, env, "status", "-s")

    for args in (
        ["restore", "-s", "lo", "01"],
        ["branch", "-s", "lo", "01", "-m", "x"],
        ["show", "lo"],
        ["log", "lo"],
        ["pause", "-s", "lo"],
        ["diff", "lo/01"],
    ):
        refused = teddy(repo, *args)
        assert refused.returncode == 1, args
        assert (
            f"error: session 'lo' is ambiguous: it matches {loop}, {loophole}" in refused.stderr
        ), args
        assert f"hint: give more of the session id, or all of it (e.g. {loop})" in refused.stderr
        assert "Traceback" not in refused.stderr
    unknown = teddy(repo, "restore", "-s", "nope", "01")
    assert unknown.returncode == 1 and "error: no session matches 'nope'" in unknown.stderr
    assert git(repo, env, "for-each-ref") == refs_before  # refused before writing anything
    assert git(repo, env, "status", "-s") == files_before
    # `loop` is a whole slug: it names the session even though `loophole` starts with it.
    assert f"restored turn 01 of {loop}" in teddy.ok(repo, "restore", "-s", "loop", "01").stdout


# ---- subagent turns in list, stats and the index ---------------------------------------------


def test_list_and_stats_count_a_subagents_turns_and_failures(
    repo: Path, teddy: Teddy, env: dict, replies: Path
) -> None:
    session = delegating_session(repo, teddy, replies)
    assert agents_of(repo, env, session) == ["pathfinder", "dev", "dev", "pathfinder"]
    assert "turns     4" in teddy.ok(repo, "show", session).stdout

    (row,) = json.loads(teddy.ok(repo, "list", "--json").stdout)
    assert (row["turns"], row["executed"], row["failures"]) == (4, 4, 1)
    assert (row["title"], row["author"]) == ("A plan", "Test Author")  # turn 01's plan title
    lines = teddy.ok(repo, "list").stdout.splitlines()
    assert lines[1].split()[:7] == [
        "*",
        session,
        "completed",
        "2026-11-26T12:00:00+00:00",
        "Test",
        "Author",
        "4",
    ]

    stats = json.loads(teddy.ok(repo, "stats", "--group-by", "agent", "--json").stdout)
    assert (stats["overall"]["turns"], stats["overall"]["failures"]) == (4, 1)
    groups = {g["agent"]: g for g in stats["groups"]}
    assert (groups["dev@1.0"]["turns"], groups["dev@1.0"]["failures"]) == (2, 1)
    assert groups["dev@1.0"]["executed"] == 2
    assert (groups["pathfinder@1.0"]["turns"], groups["pathfinder@1.0"]["failures"]) == (2, 0)

    log = git(repo, env, "show", f"teddy/{session}/main:session.md").split("---")[1]
    (entry,) = yaml.safe_load(log)["subagents"]
    assert (entry["agent"], entry["turns"], entry["executed"], entry["failures"]) == (
        "dev@1.0",
        2,
        2,
        1,
    )
    # The same figures from a rebuilt index as from the updated one.
    teddy.ok(repo, "index", "--rebuild")
    assert json.loads(teddy.ok(repo, "list", "--json").stdout) == [row]


# ---- tokens and cost per turn in `log` -------------------------------------------------------


def test_log_shows_tokens_and_cost_per_turn_and_unknown_cost_as_unknown(
    repo: Path, teddy: Teddy, env: dict, openai_server: OpenAIServer
) -> None:
    session = teddy.ok(repo, "new", "priced").stdout.strip()
    env.update(openai_server.env(model="gpt-4o"))
    openai_server.push(model_reply(plan_text(create("a.txt", "a\n")), 1000, 200))
    teddy.ok(repo, "plan", "-m", "priced")
    teddy.ok(repo, "execute", "-y")
    env["TEDDY_MODEL"] = "no-price-model"  # no price known: its cost is unknown
    openai_server.push(model_reply(plan_text(create("b.txt", "b\n")), 300, 100))
    teddy.ok(repo, "plan", "-m", "unpriced")

    lines = teddy.ok(repo, "log", session).stdout.splitlines()
    assert lines[1].split() == [
        "TURN",
        "BRANCH",
        "PHASE",
        "STATUS",
        "AGENT",
        "TOKENS",
        "COST",
        "SNAPSHOT",
    ]
    assert re.search(r"  1,000 in / 200 out +\$0\.0045  ", lines[2]), lines[2]
    assert re.search(r"  300 in / 100 out +unknown +-$", lines[3]), lines[3]  # not executed
    assert "$0.0000" not in "\n".join(lines)


# ---- an idle session reads as paused -----------------------------------------------------------


def test_an_idle_session_reads_as_paused_at_its_last_turn(
    repo: Path, teddy: Teddy, env: dict, replies: Path
) -> None:
    session = delegating_session(repo, teddy, replies)  # completed: never idle
    queue(replies, plan_text(create("c.txt", "c\n")))
    idle = teddy.ok(repo, "new", "idle").stdout.strip()
    teddy.ok(repo, "plan", "-m", "one", "-s", "idle")  # same dates: name it
    teddy.ok(repo, "execute", "-y", "-s", "idle")

    def listed() -> dict[str, dict]:
        return {row["id"]: row for row in json.loads(teddy.ok(repo, "list", "--json").stdout)}

    assert listed()[idle]["status"] == "active"  # same moment: not idle
    tip = git(repo, env, "rev-parse", f"teddy/{idle}/main")
    env["GIT_COMMITTER_DATE"] = LATER  # "now" for git and git-teddy: a day later
    rows = listed()
    assert (rows[idle]["status"], rows[idle]["resume_point"], rows[idle]["timed_out"]) == (
        "paused",
        "01",
        True,
    )
    assert rows[session]["status"] == "completed"
    table = teddy.ok(repo, "list").stdout
    assert f"{idle}  paused at 01 (idle)  " in table
    paused = json.loads(teddy.ok(repo, "list", "--status", "paused", "--json").stdout)
    assert [row["id"] for row in paused] == [idle]
    by_status = json.loads(teddy.ok(repo, "stats", "--group-by", "status", "--json").stdout)
    assert {g["status"] for g in by_status["groups"]} == {"completed", "paused"}
    shown = teddy.ok(repo, "show", idle).stdout
    assert (
        "status    paused at turn 01 (idle since 2026-11-26T12:00:00+00:00; "
        f"resume with: git teddy resume {idle})"
    ) in shown
    assert git(repo, env, "rev-parse", f"teddy/{idle}/main") == tip  # derived: nothing written

    git(repo, env, "config", "teddy.idleTimeout", "2d")  # not idle long enough now
    assert listed()[idle]["status"] == "active"
    git(repo, env, "config", "teddy.idleTimeout", "0")  # never
    assert listed()[idle]["status"] == "active"
    assert "status    active" in teddy.ok(repo, "show", idle).stdout
    git(repo, env, "config", "teddy.idleTimeout", "20h")
    assert listed()[idle]["status"] == "paused"

    git(repo, env, "config", "teddy.idleTimeout", "soon")
    refused = teddy(repo, "list")
    assert refused.returncode == 1
    assert "error: teddy.idleTimeout must be a duration such as 30m, 8h or 2d" in refused.stderr
    assert "hint: " in refused.stderr and "Traceback" not in refused.stderr


# ---- one summary: `show` and `list` read a session by the same rules ---------------------------

SUMMARY_FIELDS = ("status", "resume_point", "timed_out", "started", "channel", "turns")


def commit_session_log(repo: Path, env: dict, branch: str, edit: dict[str, str | None]) -> None:
    """A commit made by hand on a session branch: its session.md with the frontmatter keys
    of `edit` set (a value) or taken out (None), as a user editing the log would."""
    text = git(repo, env, "show", f"{branch}:session.md")
    head, _, body = text.removeprefix("---\n").partition("\n---\n")
    lines = [line for line in head.splitlines() if line.partition(":")[0] not in edit]
    lines += [f"{key}: {value}" for key, value in edit.items() if value is not None]
    log = "---\n" + "\n".join(lines) + "\n---\n" + body
    blob = run(["git", "hash-object", "-w", "--stdin"], repo, env, log, check=True).stdout.strip()
    index = {**env, "GIT_INDEX_FILE": str(repo.parent / "hand-index")}
    run(["git", "read-tree", branch], repo, index, check=True)
    cacheinfo = f"100644,{blob},session.md"
    run(["git", "update-index", "--cacheinfo", cacheinfo], repo, index, check=True)
    tree = run(["git", "write-tree"], repo, index, check=True).stdout.strip()
    commit = git(repo, env, "commit-tree", tree, "-p", branch, "-m", "edit the log").strip()
    git(repo, env, "update-ref", f"refs/heads/{branch}", commit)


def test_show_and_list_read_a_hand_edited_log_alike(
    repo: Path, teddy: Teddy, env: dict, replies: Path
) -> None:
    """A log paused by hand without a resume point, its start and channel emptied: `show`
    reads it as `list` does (it resumes at its last turn; the start is the first commit's)."""
    queue(replies, plan_text(create("one.txt", "1\n")))
    session = teddy.ok(repo, "new", "edited").stdout.strip()
    teddy.ok(repo, "plan", "-m", "one")
    teddy.ok(repo, "execute", "-y")
    started = json.loads(teddy.ok(repo, "show", session, "--json").stdout)["started"]
    edit = {"status": "paused", "resume_point": None, "started": "''", "channel": "null"}
    commit_session_log(repo, env, f"teddy/{session}/main", edit)

    shown = json.loads(teddy.ok(repo, "show", session, "--json").stdout)
    (listed,) = [
        r for r in json.loads(teddy.ok(repo, "list", "--json").stdout) if r["id"] == session
    ]
    assert {k: shown[k] for k in SUMMARY_FIELDS} == {k: listed[k] for k in SUMMARY_FIELDS}
    assert (shown["status"], shown["resume_point"], shown["started"], shown["channel"]) == (
        "paused",
        "01",
        started,
        "",
    )
    assert "status    paused at turn 01 (resume with: " in teddy.ok(repo, "show", session).stdout
    assert f"{session}  paused at 01  " in teddy.ok(repo, "list").stdout
