"""`git teddy learn`: puzzles and correction examples from session logs (pure functions on
constructed logs), and the command on the story session (testing/session_story.py) and on
several sessions: jsonl, markdown and puzzle exports, --type, -o."""

import json
from functools import partial
from pathlib import Path

import pytest

from git_teddy.artifacts import frontmatter
from git_teddy.artifacts.sessionlog.callouts import error_callout, user_callout
from git_teddy.artifacts.sessionlog.model import (
    Callout,
    SessionLog,
    SessionMeta,
    ToolCall,
    ToolCalls,
)
from git_teddy.artifacts.sessionlog.parse import split_code_span
from git_teddy.artifacts.sessionlog.reading import (
    expand_subagents,
    inline_subagent_logs,
    intervention,
    turn_message,
)
from git_teddy.artifacts.sessionlog.render import render_phase
from git_teddy.learn.cases import Case, CaseMeta, dedupe, learn_cases
from git_teddy.learn.export import export_jsonl, export_markdown, export_puzzles
from testing.commands import Teddy
from testing.log_builders import phase as any_phase
from testing.plans import execute, plan_text
from testing.sealed import FIXED_DATE
from testing.session_story import (
    CHAT_REPLY,
    MEMO,
    MESSAGES,
    REJECTION_REASON,
    SESSION,
    Story,
)

# ---- readers -----------------------------------------------------------------------------------


def test_code_spans_as_commonmark_reads_them() -> None:
    assert split_code_span("`EDIT a.py` failed") == ("EDIT a.py", " failed")
    assert split_code_span("`` a `b` `` rest") == ("a `b`", " rest")
    assert split_code_span("``x`` `y`") == ("x", " `y`")
    for text in ("no span", "`open", ""):
        with pytest.raises(ValueError):
            split_code_span(text)


def test_what_a_user_callout_was() -> None:
    message = intervention(user_callout("Do it", "planned by @dev as “X”"))
    assert (message.kind, message.words, message.call) == ("message", "Do it", None)
    rejection = intervention(user_callout("no", "rejected `CREATE a b.txt`; it was not run"))
    assert (rejection.kind, rejection.words, rejection.call) == (
        "rejection",
        "no",
        "CREATE a b.txt",
    )
    reply = intervention(
        user_callout('say "hi"', "answer to “Q?”; it became the next turn's message")
    )
    assert (reply.kind, reply.words) == ("reply", 'say "hi"')


# ---- cases from constructed logs ---------------------------------------------------------------

phase = partial(any_phase, model="m-1")


def calls(*items: tuple[str, str, str]) -> ToolCalls:
    return ToolCalls(calls=[ToolCall(call=c, summary=m, status=s) for c, m, s in items])  # type: ignore[arg-type]


def decision(text: str) -> Callout:
    return Callout(kind="decision", body=text)


FAILURE = "`EXECUTE pytest -q` failed: exit code 1\nE   assert 1 == 2"
LOG = SessionLog(
    meta=SessionMeta(session_id="20261126-login", started=FIXED_DATE, channel="web"),
    phases=[
        phase(
            "01",
            "Build login",
            user_callout("Add a login\nwith tests", "planned by @dev@1.0 as “Build login”"),
            error_callout("Reply 1 was not a valid plan:\nline 1: no title", "01", "retried"),
            decision("Use sessions, not JWT."),
            calls(
                ("CREATE src/login.py", "created", "success"),
                ("EXECUTE pytest -q", "exit code 1", "failure"),
            ),
            error_callout(FAILURE, "02", "Fix login"),
            decision("A decision after the failure."),
        ),
        phase(
            "02",
            "Fix login",
            user_callout("Fix it", "planned by @dev@1.0 as “Fix login”"),
            calls(
                ("CREATE src/extra.py", "rejected: no extra files", "rejected"),
                ("EDIT src/login.py", "edited", "success"),
                ("EXECUTE pytest -q", "exit code 0", "success"),
            ),
            user_callout("no extra files", "rejected `CREATE src/extra.py`; it was not run"),
        ),
        phase(
            "03",
            "Ask about deploying",
            user_callout("Next?", "planned by @dev@1.0 as “Ask about deploying”"),
            calls(
                ("CHAT_WITH_USER Deploy now?", "replied", "success"),
                ("EDIT a.py", "rejected: not that file", "rejected"),
            ),
            user_callout("not today", "answer to “Deploy now?”; it became the next turn's message"),
            user_callout("not that file", "rejected `EDIT a.py`; it was not run"),
        ),
        phase(
            "04",
            "Wait",
            user_callout("not today", "planned by @pm as “Wait”"),
            calls(("EXECUTE deploy", "exit code 2", "failure")),
            error_callout("`EXECUTE deploy` failed: exit code 2", None),
            calls(("CHAT_WITH_USER Anything else?", "replied", "success")),
            user_callout("no", "answer to “Anything else?”; it became the next turn's message"),
            agent="pm",
        ),
    ],
)
FIX_RAN = (
    "Turn 02 (Fix login) ran:\n- `EDIT src/login.py` → edited\n- `EXECUTE pytest -q` → exit code 0"
)


def meta(kind: str, turn: str, agent: str = "dev@1.0") -> CaseMeta:
    return CaseMeta.model_validate(
        {
            "type": kind,
            "session": "20261126-login",
            "turn": turn,
            "agent": agent,
            "model": "m-1",
            "channel": "web",
        }
    )


def test_puzzles_from_errors_with_context_failure_and_expected_behaviour() -> None:
    retry, failure, unresolved = learn_cases(LOG, ("puzzle",))
    assert retry == Case(
        metadata=meta("puzzle", "01"),
        title="Build login",
        request="Add a login\nwith tests",
        decisions=[],
        behaviour="Reply 1 was not a valid plan:\nline 1: no title",
        expected="Resolved in turn 01: retried.\n\nThe valid plan “Build login” had the actions:\n"
        "- `CREATE src/login.py`\n- `EXECUTE pytest -q`",
        resolved_in="01",
    )
    assert failure == Case(
        metadata=meta("puzzle", "01"),
        title="Build login",
        request="Add a login\nwith tests",
        decisions=["Use sessions, not JWT."],  # not the decision written after the failure
        behaviour=FAILURE,
        expected=f"Resolved in turn 02: Fix login.\n\n{FIX_RAN}",
        resolved_in="02",
    )
    assert unresolved.metadata == meta("puzzle", "04", agent="pm")
    assert (unresolved.expected, unresolved.resolved_in) == (None, None)
    assert unresolved.decisions == ["Use sessions, not JWT.", "A decision after the failure."]


def test_corrections_from_rejections_with_reasons_and_replies() -> None:
    cases = learn_cases(LOG, ("correction",))
    assert [(c.metadata.turn, c.behaviour, c.correction) for c in cases] == [
        ("02", "Planned `CREATE src/extra.py`", "no extra files"),
        ("03", "Asked the user: Deploy now?", "not today"),
        ("03", "Planned `EDIT a.py`", "not that file"),
        ("04", "Asked the user: Anything else?", "no"),
    ]
    rejection, reply, lone_rejection, last_reply = cases
    assert rejection.request == "Fix it"
    assert rejection.expected == FIX_RAN  # the rest of the turn, which the user let run
    assert reply.expected == (
        "Turn 04 (Wait) ran:\n"
        "- ❌ `EXECUTE deploy` → exit code 2\n"
        "- `CHAT_WITH_USER Anything else?` → replied"
    )
    assert lone_rejection.expected == (
        "Turn 03 (Ask about deploying) ran:\n- `CHAT_WITH_USER Deploy now?` → replied"
    )
    assert last_reply.expected is None  # the session ends there
    assert all(c.metadata.type == "correction" for c in cases)


def test_a_rejection_with_nothing_else_run_is_followed_by_the_next_turn() -> None:
    log = SessionLog(
        meta=LOG.meta,
        phases=[
            phase(
                "01",
                "Try",
                calls(("EDIT a.py", "rejected: use b.py", "rejected")),
                user_callout("use b.py", "rejected `EDIT a.py`; it was not run"),
            ),
            phase("02", "Again", calls(("EDIT b.py", "edited", "success"))),
        ],
    )
    (case,) = learn_cases(log)
    assert case.expected == "Turn 02 (Again) ran:\n- `EDIT b.py` → edited"
    (alone,) = learn_cases(SessionLog(meta=LOG.meta, phases=log.phases[:1]))
    assert alone.expected is None


def test_both_types_in_the_order_they_happened() -> None:
    cases = learn_cases(LOG)
    assert [(c.metadata.type, c.metadata.turn) for c in cases] == [
        ("puzzle", "01"),
        ("puzzle", "01"),
        ("correction", "02"),
        ("correction", "03"),
        ("correction", "03"),
        ("puzzle", "04"),
        ("correction", "04"),
    ]
    assert learn_cases(LOG, ()) == []


def test_jsonl_is_chat_fine_tuning_data_with_metadata() -> None:
    cases = learn_cases(LOG)
    lines = export_jsonl(cases).splitlines()
    known = [c for c in cases if c.expected is not None]
    assert len(lines) == len(known) == 5
    for line, case in zip(lines, known, strict=True):
        record = json.loads(line)
        assert set(record) == {"messages", "metadata"}
        system, user, assistant = record["messages"]
        assert [system["role"], user["role"], assistant["role"]] == ["system", "user", "assistant"]
        assert system["content"].startswith(f"You are {case.metadata.agent.split('@')[0]},")
        assert user["content"].startswith(f"Task: {case.title}\n\n")
        assert case.behaviour in user["content"]
        assert assistant["content"] == case.expected
        assert record["metadata"] == case.metadata.model_dump()
    failure = json.loads(lines[1])
    assert failure["messages"][1]["content"] == (
        "Task: Build login\n\nThe user's request:\n> Add a login\n> with tests\n\n"
        f"Decisions so far:\n- Use sessions, not JWT.\n\nThis failed:\n{FAILURE}\n\n"
        "What do you do next?"
    )
    rejection = json.loads(lines[2])
    assert rejection["messages"][1]["content"].endswith(
        "You did this:\nPlanned `CREATE src/extra.py`\n\n"
        "The user answered:\n> no extra files\n\nWhat do you do now?"
    )


def test_markdown_and_puzzle_files() -> None:
    cases = learn_cases(LOG)
    text = export_markdown(cases)
    assert text.startswith("# Learning cases\n\n7 case(s) from git-teddy session logs.\n")
    assert text.count("\n## Puzzle: ") == 3 and text.count("\n## Correction: ") == 4
    assert "*session 20261126-login · turn 04 · @pm · #web · model m-1*" in text
    assert f"### Failure\n\n```text\n{FAILURE}\n```" in text
    assert "### Expected behaviour\n\nUnresolved: not known yet." in text
    assert "### User correction\n\n> no extra files\n\n### Correct behaviour\n\n" + FIX_RAN in text

    files = export_puzzles(cases)
    assert list(files) == [
        "20261126-login-01-puzzle-1.md",
        "20261126-login-01-puzzle-2.md",
        "20261126-login-02-correction-1.md",
        "20261126-login-03-correction-1.md",
        "20261126-login-03-correction-2.md",
        "20261126-login-04-puzzle-1.md",
        "20261126-login-04-correction-1.md",
    ]
    data, body = frontmatter.parse(files["20261126-login-01-puzzle-2.md"])
    assert data == {**meta("puzzle", "01").model_dump(), "resolved_in": "02"}
    assert body.startswith("\n# Puzzle: Build login\n\n## Context\n\nTask: Build login\n")
    assert body.endswith(f"## Expected behaviour\n\nResolved in turn 02: Fix login.\n\n{FIX_RAN}\n")


def test_dedupe_keeps_the_first_of_equal_cases() -> None:
    cases = learn_cases(LOG)
    assert dedupe(cases + cases[:3]) == cases


def test_inline_subagents_are_logs_of_their_own() -> None:
    sub_phase = phase(
        "03",
        "Design",
        user_callout("Go", "planned by @architect as “Design”"),
        error_callout("`EXECUTE make` failed: boom", None),
        agent="architect@1.0",
    )
    body = "mode: inline\n" + render_phase(sub_phase, level=3)
    parent = SessionLog(
        meta=SessionMeta(session_id="20261126-p", started=FIXED_DATE),
        phases=[
            phase("02", "Hand over", Callout(kind="subagent", title="@architect@1.0", body=body)),
            phase("04", "Go on"),
        ],
    )
    (sub,) = inline_subagent_logs(parent)
    assert sub.meta.session_id == "20261126-p.03-architect"
    assert sub.meta.parent_session == "20261126-p"
    assert sub.phases == [sub_phase]
    assert turn_message(sub.phases[0]) == "Go"
    assert [p.turn for p in expand_subagents(parent, {})] == ["02", "03", "04"]
    (case,) = learn_cases(sub)
    assert case.metadata.session == "20261126-p.03-architect"


# ---- the command on the story session -----------------------------------------------------------


STORY_META = {"session": SESSION, "agent": "pathfinder@1.0", "model": "gpt-4o", "channel": "cli"}
STORY_DECISIONS = ["A check script makes the goal testable.", f"Memos approved: {MEMO}"]


def records(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines()]


def test_story_jsonl(story: Story) -> None:
    result = story.teddy.ok(story.repo, "learn", "story")
    assert result.stderr == "2 puzzle(s), 2 correction(s) from 1 session(s)\n"
    found = records(result.stdout)
    assert [r["metadata"] for r in found] == [
        {"type": kind, "turn": turn, **STORY_META}
        for kind, turn in [
            ("puzzle", "01"),
            ("puzzle", "01"),
            ("correction", "02"),
            ("correction", "03"),
        ]
    ]
    retry, failure, rejection, reply = [r["messages"] for r in found]
    assert "This failed:\nReply 1 was not a valid plan:\n" in retry[1]["content"]
    assert retry[2]["content"].startswith(
        "Resolved in turn 01: reply 2 was re-prompted with these problems and validated.\n\n"
        "The valid plan “Add a checker” had the actions:\n"
        "- `CREATE check.py`\n- `EXECUTE python check.py`"
    )
    assert failure[1]["content"] == (
        f"Task: Add a checker\n\nThe user's request:\n> {MESSAGES['01']}\n\n"
        "Decisions so far:\n" + "".join(f"- {d}\n" for d in STORY_DECISIONS) + "\n"
        "This failed:\n`EXECUTE python check.py` failed: exit code 1: check failed: VALUE is 1\n\n"
        "What do you do next?"
    )
    fixed = (
        "Turn 02 (Fix the checker) ran:\n"
        "- `EDIT check.py` → edited check.py (1 change(s))\n"
        "- `EXECUTE python check.py` → exit code 0"
    )
    assert failure[2]["content"] == f"Resolved in turn 02: Fix the checker.\n\n{fixed}"
    assert "You did this:\nPlanned `CREATE extra.txt`" in rejection[1]["content"]
    assert f"The user answered:\n> {REJECTION_REASON}\n" in rejection[1]["content"]
    assert rejection[2]["content"] == fixed
    assert "You did this:\nAsked the user: Should I prepare a release?" in reply[1]["content"]
    assert f"The user answered:\n> {CHAT_REPLY}\n" in reply[1]["content"]
    assert reply[2]["content"] == (
        "Turn 04 (Hand the design to the architect) ran:\n"
        "- `INVOKE Architect` → next turn handed to Architect"
    )


def test_type_filters(story: Story) -> None:
    puzzles = records(story.teddy.ok(story.repo, "learn", "--type", "puzzle").stdout)
    corrections = records(story.teddy.ok(story.repo, "learn", "--type", "correction").stdout)
    assert [r["metadata"]["type"] for r in puzzles] == ["puzzle", "puzzle"]
    assert [(r["metadata"]["type"], r["metadata"]["turn"]) for r in corrections] == [
        ("correction", "02"),
        ("correction", "03"),
    ]


def test_markdown_and_puzzle_exports_into_a_folder(story: Story, tmp_path: Path) -> None:
    out = tmp_path / "cases"
    result = story.teddy.ok(story.repo, "learn", "--export", "markdown", "-o", str(out))
    assert result.stdout == "" and f"wrote 1 file(s) to {out}" in result.stderr
    text = (out / "cases.md").read_text()
    assert text.count("\n## Puzzle: Add a checker\n") == 2
    assert "\n## Correction: Fix the checker\n" in text
    assert "\n## Correction: Ask about the release\n" in text
    assert f"### User correction\n\n> {CHAT_REPLY}\n" in text

    folder = tmp_path / "puzzles"
    story.teddy.ok(
        story.repo, "learn", SESSION, "--export", "puzzle", "--type", "puzzle", "-o", str(folder)
    )
    names = sorted(p.name for p in folder.iterdir())
    assert names == [f"{SESSION}-01-puzzle-1.md", f"{SESSION}-01-puzzle-2.md"]
    data, body = frontmatter.parse((folder / names[1]).read_text())
    assert data == {"type": "puzzle", "turn": "01", "resolved_in": "02", **STORY_META}
    assert "## Failure\n\n```text\n`EXECUTE python check.py` failed: exit code 1: check" in body


def test_puzzle_export_needs_a_folder(story: Story) -> None:
    result = story.teddy(story.repo, "learn", "--export", "puzzle")
    assert result.returncode == 1 and result.stdout == ""
    assert "error: --export puzzle writes one file per case" in result.stderr
    assert "hint: name a folder with -o DIR" in result.stderr


# ---- several sessions ---------------------------------------------------------------------------


def failing_session(repo: Path, teddy: Teddy, name: str, command: str) -> str:
    session = teddy.ok(repo, "new", name).stdout.strip()
    plan_file = repo.parent / f"{name}.md"
    plan_file.write_text(plan_text(execute(command)))
    teddy.ok(repo, "plan", "-s", session, "-m", f"run {command}", "--from-file", str(plan_file))
    result = teddy(repo, "execute", "-y")
    assert result.returncode != 0 or "FAILURE" in result.stdout + result.stderr
    return session


def test_no_session_means_every_session(repo: Path, teddy: Teddy) -> None:
    alpha = failing_session(repo, teddy, "alpha", "exit 3")
    beta = failing_session(repo, teddy, "beta", "exit 4")
    teddy.ok(repo, "new", "empty")
    every = teddy.ok(repo, "learn", "--export", "markdown")
    assert "2 puzzle(s), 0 correction(s) from 3 session(s)" in every.stderr
    assert (
        f"*session {alpha} · turn 01" in every.stdout
        and f"*session {beta} · turn 01" in every.stdout
    )
    assert "`EXECUTE exit 3` failed" in every.stdout and "`EXECUTE exit 4` failed" in every.stdout
    one = teddy.ok(repo, "learn", "beta", "--export", "markdown")
    assert alpha not in one.stdout and "`EXECUTE exit 4` failed" in one.stdout
    # Unresolved failures teach no correct behaviour: left out of the training data, and said so.
    jsonl = teddy.ok(repo, "learn")
    assert jsonl.stdout == ""
    assert "2 case(s) with no known correct behaviour left out of the jsonl" in jsonl.stderr
    missing = teddy(repo, "learn", "gamma")
    assert missing.returncode == 1 and "gamma" in missing.stderr
