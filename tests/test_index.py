"""The session index behind `git teddy list`, `stats` and `index`: filters and aggregations
checked against figures the test computes itself from the sessions' own files (turn.yaml,
system_prompt.xml, session.md frontmatter, read with `git show`), incremental updates seen in
the index file (read with toon-format, not with the index's own reader), rebuilds, and the
reader checked against toon-format on awkward values."""

import json
import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
import toon_format
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from git_teddy.artifacts.sessionlog.model import Phase, SessionLog, SessionMeta, SubagentEntry
from git_teddy.artifacts.sessionlog.render import render_log
from git_teddy.errors import EXIT_TURN_FAILED
from git_teddy.index.build import BranchLog, SessionFacts, build_rows
from git_teddy.index.query import agent_matches
from git_teddy.index.read import parse_log_leniently
from git_teddy.index.rows import AgentRow, SessionIndex, SessionRow
from git_teddy.index.toonfile import decode_index, encode_index
from testing.commands import Teddy, git, imported_modules
from testing.llm_servers import OpenAIServer, model_reply
from testing.plans import create, execute, plan_text
from testing.repos import make_repo
from testing.sealed import sealed_env

CONCLUDE = "### `CONCLUDE`\nAll done.\n"


def at(env: dict, clock: str) -> None:
    """Every commit (and so every recorded time) from now on happens at `clock` that day."""
    env["GIT_COMMITTER_DATE"] = env["GIT_AUTHOR_DATE"] = f"2026-11-26T{clock}:00+00:00"


def write_plan(repo: Path, text: str) -> str:
    path = repo.parent / "plan.md"
    path.write_text(text)
    return str(path)


# ---- what the sessions say, read independently of the index -----------------------------------


@dataclass
class Turn:
    agent: str  # name@version
    status: str
    tokens: int
    cost: float
    planned_at: str


@dataclass
class Session:
    id: str
    status: str
    channel: str
    started: str
    ended: str | None
    turns: list[Turn]

    @property
    def duration(self) -> float | None:
        end = self.ended or (max(t.planned_at for t in self.turns) if self.turns else None)
        if end is None:
            return None
        return (datetime.fromisoformat(end) - datetime.fromisoformat(self.started)).total_seconds()


def read_session(repo: Path, env: dict, teddy: Teddy, session: str) -> Session:
    branch = f"teddy/{session}/main"
    shown = json.loads(teddy.ok(repo, "show", session, "--json").stdout)
    log = git(repo, env, "show", f"{branch}:session.md")
    frontmatter = yaml.safe_load(log.split("---\n")[1])
    names = git(repo, env, "ls-tree", "--name-only", "-d", branch).split()
    turns = []
    for name in sorted(n for n in names if re.fullmatch(r"\d\d", n)):
        record = yaml.safe_load(git(repo, env, "show", f"{branch}:{name}/turn.yaml"))
        prompt = git(repo, env, "show", f"{branch}:{name}/system_prompt.xml")
        version = re.search(r'<agent_prompt[^>]*version="([^"]+)"', prompt)
        assert version, f"{name}/system_prompt.xml names no version"
        tokens = (record.get("tokens_in") or 0) + (record.get("tokens_out") or 0)
        agent = f"{record['agent']}@{version[1]}"
        turns.append(
            Turn(agent, record["status"], tokens, record.get("cost") or 0.0, record["planned_at"])
        )
    return Session(
        shown["id"],
        shown["status"],
        shown["channel"],
        shown["started"],
        frontmatter.get("ended"),
        turns,
    )


def expected_figures(sessions: list[Session]) -> dict[str, Any]:
    turns = [t for s in sessions for t in s.turns]
    executed = [t for t in turns if t.status != "planned"]
    failed = [t for t in turns if t.status == "failure"]
    durations = [s.duration for s in sessions if s.duration is not None]
    return {
        "sessions": len(sessions),
        "turns": len(turns),
        "executed": len(executed),
        "failures": len(failed),
        "failure_rate": len(failed) / len(executed) if executed else None,
        "tokens": sum(t.tokens for t in turns),
        "cost": pytest.approx(sum(t.cost for t in turns)),
        "average_duration": sum(durations) / len(durations) if durations else None,
    }


def expected_by_agent(sessions: list[Session]) -> dict[str, dict[str, Any]]:
    groups: dict[str, dict[str, Any]] = {}
    agents = sorted({t.agent for s in sessions for t in s.turns})
    for agent in agents:
        mine = [s for s in sessions if any(t.agent == agent for t in s.turns)]
        own = [
            Session(
                s.id,
                s.status,
                s.channel,
                s.started,
                s.ended,
                [t for t in s.turns if t.agent == agent],
            )
            for s in mine
        ]
        figures = expected_figures(own)
        durations = [s.duration for s in mine if s.duration is not None]  # whole sessions
        figures["average_duration"] = sum(durations) / len(durations) if durations else None
        groups[agent] = figures
    idle = [s for s in sessions if not s.turns]
    if idle:
        groups["(none)"] = expected_figures(idle)
    return groups


# ---- four sessions: two channels of work, a paused one, a concluded one, an idle one -----------


@dataclass
class World:
    repo: Path
    teddy: Teddy
    sessions: list[Session]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    """The four sessions, played once for the module (the tests below only read them)."""
    root = tmp_path_factory.mktemp("index")
    (root / "home").mkdir()
    env = sealed_env(root / "home")
    repo = make_repo(root / "repo", env, {"README.md": "# demo\n", "app.py": "print('hello')\n"})
    teddy = Teddy(env)
    with OpenAIServer() as server:
        sessions = play_sessions(repo, teddy, env, server, root)
    return World(repo, teddy, sessions)


def play_sessions(
    repo: Path, teddy: Teddy, env: dict, openai_server: OpenAIServer, tmp_path: Path
) -> list[Session]:
    model = openai_server.env(model="gpt-4o")
    at(env, "12:00")
    alpha = teddy.ok(repo, "new", "alpha", "--channel", "dev").stdout.strip()
    env.update(model)
    at(env, "12:10")
    first = plan_text(create("a.txt", "a\n"), agent="Pathfinder")
    openai_server.push(model_reply(first, 1000, 200))
    teddy.ok(repo, "plan", "-m", "add a.txt", "-a", "pathfinder")
    teddy.ok(repo, "execute", "-y")
    at(env, "12:30")
    openai_server.push(model_reply(plan_text(execute("false")), 300, 100))
    teddy.ok(repo, "plan", "-m", "run false", "-a", "dev")
    teddy.exits(EXIT_TURN_FAILED, repo, "execute", "-y")
    for key in model:
        env.pop(key)

    at(env, "13:00")
    beta = teddy.ok(repo, "new", "beta").stdout.strip()
    at(env, "13:05")
    plan = write_plan(repo, plan_text(create("b.txt", "b\n"), agent="Architect"))
    teddy.ok(repo, "plan", "-m", "add b.txt", "-a", "architect", "--from-file", plan)
    at(env, "13:20")
    teddy.ok(repo, "pause", "-s", beta)

    at(env, "14:00")
    gamma = teddy.ok(repo, "new", "gamma", "--channel", "ops").stdout.strip()
    replies = tmp_path / "replies"
    replies.mkdir()
    (replies / "01.md").write_text(plan_text(CONCLUDE, agent="Pathfinder"))
    env.update(TEDDY_PROVIDER="replay", TEDDY_REPLAY_DIR=str(replies))
    at(env, "14:10")
    teddy.ok(repo, "continue", "--yolo", "-m", "finish", "-s", gamma, "-a", "pathfinder")

    at(env, "15:00")
    delta = teddy.ok(repo, "new", "delta", "--channel", "ops").stdout.strip()
    return [read_session(repo, env, teddy, s) for s in (alpha, beta, gamma, delta)]


def listed(repo: Path, teddy: Teddy, *args: str) -> list[dict[str, Any]]:
    return list(json.loads(teddy.ok(repo, "list", "--json", *args).stdout))


def test_the_sessions_are_what_the_test_expects(world: World) -> None:
    """The scenario itself, so that the comparisons below cannot pass vacuously."""
    sessions = world.sessions
    alpha, beta, gamma, delta = sessions
    assert [t.status for t in alpha.turns] == ["success", "failure"]
    assert [t.status for t in beta.turns] == ["planned"] and beta.status == "paused"
    assert gamma.status == "completed" and gamma.ended and gamma.turns[0].status == "success"
    assert delta.turns == [] and delta.channel == "ops"
    assert [t.tokens for t in alpha.turns] == [1200, 400] and alpha.turns[0].cost > 0
    assert len({t.agent for s in sessions for t in s.turns}) == 3
    assert [s.duration for s in sessions] == [1800, 300, 600, None]


def test_list_rows_match_each_session(world: World) -> None:
    repo, teddy, sessions = world.repo, world.teddy, world.sessions
    rows = {row["id"]: row for row in listed(repo, teddy)}
    assert list(rows) == sorted(s.id for s in sessions)
    for session in sessions:
        row = rows[session.id]
        assert (row["status"], row["channel"], row["started"], row["ended"]) == (
            session.status,
            session.channel,
            session.started,
            session.ended,
        )
        assert row["turns"] == len(session.turns)
        assert row["tokens_used"] == sum(t.tokens for t in session.turns)
        assert row["cost"] == pytest.approx(sum(t.cost for t in session.turns))
        assert row["failures"] == sum(t.status == "failure" for t in session.turns)
        assert row["executed"] == sum(t.status != "planned" for t in session.turns)
        assert row["duration"] == session.duration
        assert set(row["participants"]) == {t.agent for t in session.turns}
        assert row["branches"] == ["main"]

    lines = teddy.ok(repo, "list").stdout.splitlines()
    header = ["SESSION", "STATUS", "STARTED", "AUTHOR", "TURNS", "COST", "PARTICIPANTS"]
    assert lines[0].split() == [*header, "TITLE"]
    alpha, _beta, _gamma, delta = sessions
    assert lines[1].split()[:6] == [alpha.id, "active", alpha.started, "Test", "Author", "2"]
    agents = ", ".join(dict.fromkeys(t.agent for t in alpha.turns))
    assert f"  {agents}  " in lines[1]
    # ids sort; delta, made last, is this worktree's current session (`*`)
    started = ["*", delta.id, "active", delta.started, "Test", "Author", "0", "$0.0000", "-"]
    assert lines[3].split() == [*started, "-"]


def test_list_filters(world: World) -> None:
    repo, teddy, sessions = world.repo, world.teddy, world.sessions

    def ids(*args: str) -> list[str]:
        return [row["id"] for row in listed(repo, teddy, *args)]

    def expect(keep: Any) -> list[str]:
        return sorted(s.id for s in sessions if keep(s))

    for status in ("active", "paused", "completed"):
        assert ids("--status", status) == expect(lambda s, v=status: s.status == v)
    for channel in ("dev", "cli", "ops", "nowhere"):
        assert ids("--channel", channel) == expect(lambda s, v=channel: s.channel == v)
    for agent in sorted({t.agent for s in sessions for t in s.turns}):
        name = agent.partition("@")[0]
        assert ids("--agent", agent) == expect(
            lambda s, a=agent: any(t.agent == a for t in s.turns)
        )
        assert ids("--agent", name) == ids("--agent", agent)  # every version of the name
        assert ids("--agent", f"{name}@0.0-none") == []
    assert ids("--channel", "ops", "--status", "completed") == [sessions[2].id]
    assert len(ids("--agent", "pathfinder")) == 2  # alpha's first turn, gamma's only one

    text = teddy.ok(repo, "list", "--status", "paused").stdout.splitlines()
    assert [line.split()[0] for line in text] == ["SESSION", sessions[1].id]
    nothing = teddy.ok(repo, "list", "--agent", "nobody").stdout
    assert nothing.startswith("no session matches (there are 4")


def test_stats_overall_and_grouped(world: World) -> None:
    repo, teddy, sessions = world.repo, world.teddy, world.sessions
    stats = json.loads(teddy.ok(repo, "stats", "--json").stdout)
    assert stats == {"overall": expected_figures(sessions)}
    assert stats["overall"]["failure_rate"] == pytest.approx(1 / 3)  # the scenario's own sums
    assert stats["overall"]["average_duration"] == 900

    by_agent = json.loads(teddy.ok(repo, "stats", "--group-by", "agent", "--json").stdout)
    assert by_agent["overall"] == stats["overall"]
    assert {g.pop("agent"): g for g in by_agent["groups"]} == expected_by_agent(sessions)

    for key in ("channel", "status"):
        grouped = json.loads(teddy.ok(repo, "stats", "--group-by", key, "--json").stdout)
        expected = {
            value: expected_figures([s for s in sessions if getattr(s, key) == value])
            for value in sorted({getattr(s, key) for s in sessions})
        }
        assert [g[key] for g in grouped["groups"]] == list(expected)
        assert {g.pop(key): g for g in grouped["groups"]} == expected

    text = teddy.ok(repo, "stats", "--group-by", "agent").stdout
    assert "failure rate  33.3% (1 of 3 executed turns)" in text
    assert "avg duration  15m 00s (over 3 sessions)" in text
    dev = next(line for line in text.splitlines() if line.startswith("dev@"))
    assert dev.split()[1:5] == ["1", "1", "1", "100.0%"]


# ---- incremental updates, rebuilds, bad input ------------------------------------------------


def index_file(repo: Path) -> Path:
    return repo / ".git" / "teddy" / "index.toon"


def index_rows(repo: Path) -> tuple[int, dict[str, dict[str, Any]]]:
    """(generation, rows by session id), decoded by toon-format itself."""
    data = toon_format.decode(index_file(repo).read_text(encoding="utf-8"))
    return data["generation"], {row["id"]: row for row in data["sessions"]}


def test_only_sessions_that_changed_are_read_again(repo: Path, teddy: Teddy, env: dict) -> None:
    one = teddy.ok(repo, "new", "one").stdout.strip()
    two = teddy.ok(repo, "new", "two").stdout.strip()
    assert [r["turns"] for r in listed(repo, teddy)] == [0, 0]
    first, rows = index_rows(repo)
    assert {rows[one]["gen"], rows[two]["gen"]} == {first}

    written = index_file(repo).read_bytes()
    teddy.ok(repo, "stats")
    assert index_file(repo).read_bytes() == written  # nothing moved: nothing rewritten

    plan = write_plan(repo, plan_text(create("x.txt", "x\n")))
    teddy.ok(repo, "plan", "-m", "add x", "-s", one, "--from-file", plan)
    assert {r["id"]: r["turns"] for r in listed(repo, teddy)} == {one: 1, two: 0}
    second, rows = index_rows(repo)
    assert second == first + 1
    assert (rows[one]["gen"], rows[two]["gen"]) == (second, first)
    tip = git(repo, env, "rev-parse", f"teddy/{one}/main").strip()
    assert rows[one]["tips"] == f"main={tip}"

    three = teddy.ok(repo, "new", "three").stdout.strip()
    assert "read again" in teddy.ok(repo, "index").stdout
    third, rows = index_rows(repo)
    assert (rows[one]["gen"], rows[two]["gen"], rows[three]["gen"]) == (second, first, third)

    git(repo, env, "branch", "-D", f"teddy/{two}/main")
    assert [r["id"] for r in listed(repo, teddy)] == [one, three]
    fourth, rows = index_rows(repo)
    assert set(rows) == {one, three} and rows[one]["gen"] == second and fourth == third + 1
    assert teddy.ok(repo, "index").stdout.startswith("index up to date: 2 session(s), 0 read")


@pytest.mark.parametrize(
    "damage",
    [
        b"",
        b"\xff\xfe not text",
        b"format: teddy-index/0\nprefix: teddy/\ngeneration: 3\n",
        b"format: teddy-index/1\nprefix: teddy/\ngeneration: 3\nsessions[2]{id,status}:\n  a,b\n",
        "truncated",
    ],
)
def test_a_damaged_index_is_rebuilt(repo: Path, teddy: Teddy, damage: bytes | str) -> None:
    session = teddy.ok(repo, "new", "sturdy").stdout.strip()
    teddy.ok(repo, "plan", "-m", "x", "--from-file", write_plan(repo, plan_text(CONCLUDE)))
    before = listed(repo, teddy)
    text = index_file(repo).read_bytes()
    index_file(repo).write_bytes(text[: len(text) // 2] if damage == "truncated" else damage)
    assert listed(repo, teddy) == before
    _, rows = index_rows(repo)
    assert list(rows) == [session] and rows[session]["turns"] == 1


def test_index_rebuild(repo: Path, teddy: Teddy) -> None:
    assert teddy.ok(repo, "index", "--rebuild").stdout.startswith("indexed 0 session(s) into ")
    for name in ("a", "b", "c"):
        teddy.ok(repo, "new", name)
    result = teddy.ok(repo, "index", "--rebuild").stdout
    assert result == f"indexed 3 session(s) into {index_file(repo).resolve()}\n"
    generation, rows = index_rows(repo)
    assert len(rows) == 3 and {row["gen"] for row in rows.values()} == {generation}


def test_a_conversation_branch_adds_its_turns_once(repo: Path, teddy: Teddy, env: dict) -> None:
    session = teddy.ok(repo, "new", "forked").stdout.strip()
    for message in ("first", "second"):
        plan = write_plan(repo, plan_text(create(f"{message}.txt", "x\n")))
        teddy.ok(repo, "plan", "-m", message, "--from-file", plan)
        teddy.ok(repo, "execute", "-y")
    replies = repo.parent / "replies"
    replies.mkdir()
    (replies / "01.md").write_text(plan_text(create("other.txt", "y\n")))
    env.update(TEDDY_PROVIDER="replay", TEDDY_REPLAY_DIR=str(replies))
    teddy.ok(repo, "branch", "02", "-m", "another way")
    branches = git(
        repo, env, "for-each-ref", "--format=%(refname:lstrip=4)", f"refs/heads/teddy/{session}"
    )
    names = set()
    for branch in branches.split():
        tree = git(repo, env, "ls-tree", "--name-only", "-d", f"teddy/{session}/{branch}").split()
        names |= {n for n in tree if re.fullmatch(r"\d\d(-branch-\d\d)?", n)}
    (row,) = listed(repo, teddy)
    assert row["turns"] == len(names) == 3
    assert row["branches"] == ["main", "02-branch-01"] and row["current_branch"] == "02-branch-01"


def test_bad_option_values(repo: Path, teddy: Teddy) -> None:
    for args, message in (
        (
            ["list", "--status", "done"],
            "error: --status 'done' is not one of active, paused, completed",
        ),
        (
            ["stats", "--group-by", "model"],
            "error: --group-by 'model' is not one of agent, channel, status",
        ),
        (["list", "--agent", " "], "error: --agent needs a value"),
    ):
        result = teddy(repo, *args)
        assert result.returncode == 2, args
        lines = result.stderr.splitlines()
        assert lines[0] == message and lines[1].startswith("hint: ") and len(lines) == 2


# ---- the pure core -------------------------------------------------------------------------


def test_agent_names_match_with_or_without_a_version() -> None:
    matches = agent_matches
    assert matches("dev", "dev@1.0") and matches("dev", "dev") and matches("dev@1.0", "dev@1.0")
    assert not matches("dev@1.0", "dev@1.1") and not matches("dev", "developer@1.0")
    assert not matches("dev@1.0", "dev")


def test_subagent_tokens_count_for_the_subagent() -> None:
    meta = SessionMeta(
        session_id="20261126-parent",
        started="2026-11-26T12:00:00+00:00",
        tokens_used=1500,
        subagents=[SubagentEntry(session="20261126-parent.02-dev", agent="dev@1.0", tokens=500)],
    )
    phase = Phase(
        title="Plan",
        agent="pathfinder@1.0",
        channel="cli",
        turn="01",
        time="2026-11-26T12:30:00+00:00",
        status="failure",
        tokens=1000,
        cost=0.25,
    )
    text = render_log(SessionLog(meta=meta, phases=[phase]))
    meta_data, phases = parse_log_leniently(text)
    facts = SessionFacts(
        id="20261126-parent",
        tips={"main": "0" * 40},
        current="main",
        logs={"main": BranchLog(meta_data, phases)},
        base_snapshot=None,
        root_time="2026-11-26T12:00:00+00:00",
        last_active="2026-11-26T12:30:00+00:00",
    )
    row, shares = build_rows(facts, 4)
    assert (row.tokens, row.turns, row.failures, row.duration, row.gen) == (1500, 1, 1, 1800, 4)
    assert {s.agent: (s.turns, s.failures, s.tokens) for s in shares} == {
        "pathfinder@1.0": (1, 1, 1000),
        "dev@1.0": (0, 0, 500),
    }
    assert row.participants == "pathfinder@1.0 dev@1.0"


def test_a_log_without_phases_counts_its_turn_folders() -> None:
    meta, phases = parse_log_leniently(
        "---\ntype: session\nsession_id: 20261126-old\nstarted: '2026-11-26T12:00:00+00:00'\n"
        "status: active\nchannel: cli\n---\n\n# Session 20261126-old\n"
    )
    assert phases == [] and meta["channel"] == "cli"
    logs = {"main": BranchLog(meta, [], frozenset({"01", "02"}))}
    facts = SessionFacts("20261126-old", {"main": "1" * 40}, "main", logs, None, "x", "y")
    row, shares = build_rows(facts, 1)
    assert (row.turns, row.tokens, row.status, shares) == (2, 0, "active", [])
    garbage, nothing = parse_log_leniently("---\n: [\n---\n")
    assert (garbage, nothing) == ({}, [])


awkward_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12) | st.sampled_from(
    ["", "null", "true", "12", "-3.5", "a,b", 'say "hi"', "back\\slash", " x ", "-", "a:b"]
)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            awkward_text,
            awkward_text,
            st.none() | awkward_text,
            st.integers(0, 10**12),
            st.floats(0, 1e6, allow_nan=False).map(lambda f: round(f, 6)),
        ),
        max_size=5,
        unique_by=lambda row: row[0],
    )
)
def test_the_reader_agrees_with_toon_format(values: list[tuple[Any, ...]]) -> None:
    index = SessionIndex("teddy/", 9)
    for number, (text, channel, model, tokens, cost) in enumerate(values):
        index.sessions[text] = SessionRow(
            id=text,
            status="active",
            started=channel,
            ended=model,
            channel=channel,
            participants=text,
            model=model,
            tokens=tokens,
            cost=cost,
            turns=number,
            executed=0,
            failures=0,
            duration=None if number % 2 else tokens,
            branch="main",
            base_snapshot=model,
            last_active=text,
            parent_session=None,
            resume_point=model,  # an optional text column, as written and read back
            tips=f"main={number}",
            gen=9,
        )
        index.agents[text] = [AgentRow(text, channel, 1, 1, 0, tokens, cost)]
    encoded = encode_index(index)
    decoded = decode_index(encoded)
    assert decoded.sessions == index.sessions
    assert decoded.agents == {k: v for k, v in index.agents.items() if v}
    assert (decoded.prefix, decoded.generation) == ("teddy/", 9)
    reference = toon_format.decode(encoded)
    assert reference["sessions"] == [index.sessions[k]._asdict() for k in sorted(index.sessions)]


def test_a_warm_list_loads_no_heavy_module(repo: Path, teddy: Teddy, env: dict) -> None:
    """The speed of list/stats over many sessions rests on this: with a warm index they read
    one file and one ref listing, without pydantic, dulwich, yaml or the session store."""
    teddy.ok(repo, "new", "light")
    teddy.ok(repo, "list")  # builds the index
    heavy = {"pydantic", "dulwich", "yaml", "toon_format", "git_teddy.session.store"}
    for args in (["list"], ["stats", "--group-by", "agent"]):
        _output, imported = imported_modules(repo, env, *args)
        assert "git_teddy.index.toonfile" in imported
        assert not heavy & imported, heavy & imported
