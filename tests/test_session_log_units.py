"""The session log's pure parts: the render/parse round trip (hypothesis), callout contents,
State Dashboard tasks, and the sliding window resume uses."""

import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

from git_teddy.artifacts.sessionlog.callouts import (
    error_callout,
    read_resolution,
    read_user,
    user_callout,
)
from git_teddy.artifacts.sessionlog.model import (
    Callout,
    Phase,
    SessionLog,
    SessionMeta,
    SubagentEntry,
    Task,
    Tasks,
    ToolCall,
    ToolCalls,
)
from git_teddy.artifacts.sessionlog.parse import parse_log
from git_teddy.artifacts.sessionlog.render import inline_code, render_log, render_phase
from git_teddy.artifacts.sessionlog.tasks import dashboard_tasks
from git_teddy.artifacts.sessionlog.window import decisions_only, resume_history
from git_teddy.errors import TeddyError

# Text as the builder makes it: one-line fields have no line breaks and no edge spaces;
# bodies may hold anything.
LINE_CHARS = st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp"))
one_line = st.text(LINE_CHARS, max_size=40).map(lambda s: " ".join(s.split()))
word = st.text(string.ascii_letters + string.digits + "._-", min_size=1, max_size=12)
body = st.text(
    st.characters(
        blacklist_categories=("Cs",), blacklist_characters="\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
    ),
    max_size=80,
)
times = st.datetimes().map(lambda d: d.isoformat())

tool_calls = st.builds(
    ToolCall,
    call=one_line.filter(bool),
    summary=one_line,
    status=st.sampled_from(["success", "failure", "skipped", "rejected"]),
)
blocks = st.one_of(
    st.builds(
        Callout,
        kind=st.sampled_from(["decision", "error", "user", "subagent"]),
        title=one_line,
        body=body,
    ),
    st.builds(ToolCalls, calls=st.lists(tool_calls, min_size=1, max_size=4)),
    st.builds(
        Tasks,
        tasks=st.lists(
            st.builds(
                Task,
                id=word,
                content=body,
                status=st.sampled_from(["pending", "in_progress", "completed"]),
                priority=st.sampled_from(["high", "medium", "low"]),
            ),
            min_size=1,
            max_size=3,
        ),
    ),
)
phases = st.builds(
    Phase,
    title=one_line,
    agent=word,
    channel=word,
    turn=word,
    time=times,
    status=word,
    model=st.none() | word,
    tokens=st.none() | st.integers(min_value=0, max_value=10**9),
    cost=st.none() | st.floats(min_value=0, max_value=1e6, allow_nan=False),
    blocks=st.lists(blocks, max_size=5),
)
metas = st.builds(
    SessionMeta,
    session_id=word,
    started=times,
    ended=st.none() | times,
    status=st.sampled_from(["active", "paused", "completed"]),
    channel=word,
    parent_session=st.none() | word,
    participants=st.lists(word, max_size=3),
    model=st.none() | word,
    tokens_used=st.integers(min_value=0, max_value=10**9),
    subagents=st.lists(
        st.builds(SubagentEntry, session=word, agent=word, model=st.none() | word), max_size=2
    ),
    resume_point=st.none() | word,
)
logs = st.builds(SessionLog, meta=metas, phases=st.lists(phases, max_size=4))


@given(logs)
def test_render_then_parse_gives_the_same_log(log: SessionLog) -> None:
    assert parse_log(render_log(log)) == log


@given(st.text(LINE_CHARS, min_size=1, max_size=30))
def test_inline_code_reads_back(text: str) -> None:
    log = SessionLog(
        meta=SessionMeta(session_id="s", started="t"),
        phases=[
            Phase(
                title="t",
                agent="a",
                channel="c",
                turn="01",
                time="t",
                status="s",
                blocks=[ToolCalls(calls=[ToolCall(call=text)])],
            )
        ],
    )
    assert parse_log(render_log(log)).phases[0].tool_calls()[0].call == text
    assert inline_code("a`b") == "``a`b``" and inline_code("`x") == "`` `x ``"


@given(body, one_line)
def test_user_callout_quotes_read_back(words: str, acted: str) -> None:
    assert read_user(user_callout(words, acted)) == (words, acted)


def test_error_resolution_reads_back() -> None:
    assert read_resolution(error_callout("boom", "03", "Fix it")) == ("03", "Fix it")
    assert read_resolution(error_callout("boom", None)) == (None, None)
    assert error_callout("boom", None).title == "Unresolved"


def test_dashboard_tasks_from_checklists_and_labelled_items() -> None:
    rationale = (
        "### 1. Synthesis\n- [x] not the dashboard\n### 4. State Dashboard\n"
        "- **Overall Goal:** Ship the thing.\n- **Phase A: Problem:** Approved\n"
        "- **Phase B: Solution:** In Progress\n- Phase C: Not Started\n- [x] write test\n"
        "- [ ] make it pass\n"
    )
    tasks = dashboard_tasks(rationale)
    assert tasks is not None
    assert [(t.content, t.status) for t in tasks.tasks] == [
        ("Phase A: Problem", "completed"),
        ("Phase B: Solution", "in_progress"),
        ("Phase C", "pending"),
        ("write test", "completed"),
        ("make it pass", "pending"),
    ]
    assert dashboard_tasks("### 4. State Dashboard\n- **Goal:** Ship the thing.\n") is None
    assert dashboard_tasks("no dashboard here") is None


def test_a_log_without_phases_reads_and_a_broken_one_is_a_clear_error() -> None:
    old = "---\ntype: session\nsession_id: x\nstarted: t\nstatus: active\nchannel: cli\n---\n"
    assert parse_log(old).phases == [] and parse_log(old).meta.session_id == "x"
    broken = old + "\n## A phase without agent\n"
    with pytest.raises(TeddyError, match=r"session\.md is not a session log"):
        parse_log(broken)


def _words(text: str) -> int:
    return len(text.split())


def test_resume_history_keeps_recent_phases_whole_and_every_decision() -> None:
    phases = [
        Phase(
            title=f"Step {n}",
            agent="dev",
            channel="cli",
            turn=f"0{n}",
            time="t",
            status="success",
            blocks=[
                Callout(kind="user", body=f'"do step {n}" - planned'),
                Callout(kind="decision", body=f"decision {n}"),
                ToolCalls(calls=[ToolCall(call=f"EDIT f{n}.py", summary="changed " * 20)]),
            ],
        )
        for n in range(1, 6)
    ]
    meta = SessionMeta(session_id="s", started="t", resume_point="04")
    log = SessionLog(meta=meta, phases=phases)

    everything = resume_history(log, 10**6, _words)
    assert all(f"EDIT f{n}.py" in everything for n in range(1, 5))
    assert "Step 5" not in everything and "shortened" not in everything

    shorts = sum(_words(render_phase(decisions_only(p))) for p in phases[:4])
    last_extra = _words(render_phase(phases[3])) - _words(render_phase(decisions_only(phases[3])))
    window = resume_history(log, shorts + last_extra, _words)
    assert "EDIT f4.py" in window and "EDIT f3.py" not in window
    assert all(f"decision {n}" in window for n in range(1, 5))
    assert "the 3 oldest phase(s) are shortened" in window

    nothing_fits = resume_history(log, 0, _words)
    assert (
        "EDIT" not in nothing_fits and "decision 1" in nothing_fits and "decision 4" in nothing_fits
    )
