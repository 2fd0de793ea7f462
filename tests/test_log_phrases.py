"""What build.py writes, the readers read back: logs built from turn files (every callout
kind and every phrase codify and learn rely on), rendered, parsed, and read through
git_teddy.artifacts.sessionlog.reading and callouts. Rewording a sentence on one side only
fails here."""

import string
from collections.abc import Sequence
from dataclasses import dataclass
from typing import get_args

import pytest
from hypothesis import given
from hypothesis import strategies as st

from git_teddy.artifacts.names import subagent_session_id
from git_teddy.artifacts.plan.models import Memo, Plan
from git_teddy.artifacts.report import ActionLog, ExecutionReport, MemoReport, RunSummary
from git_teddy.artifacts.sessionlog.build import TurnFiles, build_log, one_line
from git_teddy.artifacts.sessionlog.callouts import (
    MemoDecision,
    read_failed_call,
    read_memos_decision,
    read_resolution,
    subagent_agent,
    subagent_link,
)
from git_teddy.artifacts.sessionlog.model import (
    SessionLog,
    SessionMeta,
    SubagentMode,
    call_target,
    call_type,
)
from git_teddy.artifacts.sessionlog.parse import parse_log
from git_teddy.artifacts.sessionlog.reading import (
    expand_subagents,
    inline_subagent_logs,
    interventions,
    memo_decisions,
    turn_message,
    unreasoned_rejections,
)
from git_teddy.artifacts.sessionlog.render import inline_code, render_log
from git_teddy.artifacts.turn_record import TurnRecord
from git_teddy.learn.cases import learn_cases
from git_teddy.workflow.extract import extract_workflow

SESSION = "20261126-phrases"
DIRECTION = "Small steps keep the checks meaningful."
PROBLEMS = "line 1: the plan has no title"

# One-line text as the builder keeps it (calls, titles, questions), backticks and quotes
# included; bodies (the user's words, output) may span lines.
# The characters the phrases are made of come up often.
PHRASE_CHARS = st.sampled_from('`"\\“”;:-> [+]!ab ')
LINE_CHARS = PHRASE_CHARS | st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp"))
line = st.text(LINE_CHARS, min_size=1, max_size=30).map(one_line).filter(bool)
BODY_CHARS = st.characters(
    blacklist_categories=("Cs",), blacklist_characters="\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
)
words = st.text(PHRASE_CHARS | BODY_CHARS | st.just("\n"), min_size=1, max_size=60).filter(
    lambda text: text.strip() != ""
)
agent = st.text(string.ascii_lowercase, min_size=1, max_size=8)


@dataclass(frozen=True)
class Story:
    """What happened in the turns, as facts: what the readers must find in the log."""

    message: str
    title: str
    memos: list[str]
    memo_decision: MemoDecision
    command: str  # fails in turn 01, passes in turn 03
    rejected: str  # a path rejected with `reason`
    reason: str
    unreasoned: str  # a path rejected without a reason
    question: str
    reply: str
    agent: str
    subagent: str
    conclusion: str


stories = st.builds(
    Story,
    message=words,
    title=line,
    memos=st.lists(st.sampled_from("+-").flatmap(lambda op: line.map(f"[{op}] ".__add__))),
    memo_decision=st.sampled_from(["approved", "rejected", "none"]),
    command=line,
    rejected=line,
    reason=words,
    unreasoned=line,
    question=line,
    reply=words,
    agent=agent,
    subagent=agent.map("sub-".__add__),
    conclusion=line,
)


def action(
    index: int, kind: str, status: str, reason: str | None = None, **params: object
) -> ActionLog:
    details = params.pop("details", {})
    return ActionLog.model_validate(
        {
            "index": index,
            "action_type": kind,
            "params": params,
            "status": status,
            "reason": reason,
            "summary": status.lower(),
            "details": details,
        }
    )


def report(*logs: ActionLog, memos: MemoDecision = "none") -> ExecutionReport:
    summary = RunSummary(status="SUCCESS", start_time="t", end_time="t", base_snapshot="0")
    return ExecutionReport(run_summary=summary, memos=MemoReport(decision=memos), action_logs=logs)


def plan(title: str, memos: Sequence[str] = ()) -> Plan:
    rationale = f"### 1. Analysis\nAnalysed.\n### 2. Justification\n{DIRECTION}\n"
    memo_models = [Memo.model_validate({"op": m[1], "text": m[4:]}) for m in memos]
    return Plan(title=title, rationale=rationale, memos=memo_models)


def turn(name: str, agent: str, stack: list[str], **files: object) -> TurnFiles:
    record = TurnRecord(
        id=name,
        parent_id=None,
        session="s",
        turn=name,
        branch="main",
        agent=agent,
        agent_stack=stack,
        base_snapshot="0",
        planned_at="t",
        model="m",
    )
    prompt = f'<agent_prompt version="2.{len(stack)}">'
    return TurnFiles(name=name, record=record, system_prompt=prompt, **files)  # type: ignore[arg-type]


def turns_of(story: Story) -> list[TurnFiles]:
    first = report(
        action(1, "EXECUTE", "FAILURE", command=story.command, details={"stderr": "E  boom"}),
        action(2, "CREATE", "REJECTED", story.reason, path=story.rejected),
        action(3, "EDIT", "REJECTED", path=story.unreasoned),
        action(
            4, "CHAT_WITH_USER", "SUCCESS", message=story.question, details={"reply": story.reply}
        ),
        action(5, "INVOKE", "SUCCESS", agent=story.subagent),
        memos=story.memo_decision,
    )
    concluded = report(action(1, "CONCLUDE", "SUCCESS", message=story.conclusion))
    fixed = report(action(1, "EXECUTE", "SUCCESS", command=story.command))
    return [
        turn(
            "01",
            story.agent,
            [],
            plan=plan(story.title, story.memos),
            report=first,
            user_prompt=story.message,
            problems=[PROBLEMS],
        ),
        turn("02", story.subagent, [story.agent], plan=plan("Design"), report=concluded),
        turn("03", story.agent, [], plan=plan("Fix"), report=fixed, user_prompt=story.reply),
    ]


def read_back(story: Story, mode: SubagentMode) -> tuple[SessionLog, dict[str, SessionLog]]:
    """The log (and the subagents' own logs) as codify and learn get them: parsed text."""
    built = build_log(SessionMeta(session_id=SESSION, started="t"), turns_of(story), mode)
    subs = {name: parse_log(render_log(sub)) for name, sub in built.subagents.items()}
    return parse_log(render_log(built.log)), subs


@pytest.mark.parametrize("mode", get_args(SubagentMode))
@given(story=stories)
def test_every_phrase_reads_back(mode: SubagentMode, story: Story) -> None:
    log, subs = read_back(story, mode)
    first, last = log.phases
    assert [(i.kind, i.words, i.call) for i in interventions(first)] == [
        ("message", story.message.strip("\n"), None),
        ("rejection", story.reason, f"CREATE {story.rejected}"),
        ("reply", story.reply, None),
    ]
    assert turn_message(first) == story.message.strip("\n")
    assert unreasoned_rejections(first) == [f"EDIT {story.unreasoned}"]
    memos = [
        read_memos_decision(c) for c in first.callouts("decision")
    ]  # direction, memos, rejection
    assert memos == (
        [None, (story.memo_decision, story.memos), None] if story.memos else [None, None]
    )
    assert memo_decisions(first) == (story.memos if story.memo_decision == "approved" else [])
    errors = first.callouts("error")
    assert [read_resolution(e)[0] for e in errors] == ["01", "03"]
    assert [read_failed_call(e) for e in errors] == [None, f"EXECUTE {story.command}"]
    assert [(call_type(c), call_target(c)) for c in first.tool_calls()] == [
        ("EXECUTE", story.command),
        ("CREATE", story.rejected),
        ("EDIT", story.unreasoned),
        ("CHAT_WITH_USER", story.question),
        ("INVOKE", story.subagent),
    ]
    assert [c.call for c in last.tool_calls()] == [f"EXECUTE {story.command}"]
    check_subagent(log, subs, story, mode)


def check_subagent(
    log: SessionLog, subs: dict[str, SessionLog], story: Story, mode: SubagentMode
) -> None:
    (callout,) = log.phases[0].callouts("subagent")
    assert subagent_agent(callout) == f"{story.subagent}@2.1"
    session_id = subagent_session_id(SESSION, "02", story.subagent)
    own = inline_subagent_logs(log)
    if mode == "inline":
        assert subagent_link(callout) is None and [s.meta.session_id for s in own] == [session_id]
    else:
        assert subagent_link(callout) == session_id and list(subs) == [session_id] and own == []
    assert [p.turn for p in expand_subagents(log, subs)] == ["01", "02", "03"]


@given(story=stories)
def test_codify_and_learn_find_every_fact(story: Story) -> None:
    """The readers' users end to end: a workflow's gates and conditions, learning cases."""
    log, subs = read_back(story, "link")
    first, _sub, fixer = extract_workflow(log, None, subs).steps
    assert first.gates[:2] == [
        f"approve {inline_code('CREATE ' + story.rejected)}; the user rejected it in the "
        f'session: "{one_line(story.reason)}"',
        f"approve {inline_code('EDIT ' + story.unreasoned)}; the user rejected it in the session",
    ]
    assert first.on_failure == fixer.title
    assert fixer.when == f'{inline_code("EXECUTE " + story.command)} failed in step "{first.title}"'
    cases = learn_cases(log)
    assert [(c.metadata.type, c.resolved_in, c.correction) for c in cases] == [
        ("puzzle", "01", None),
        ("puzzle", "03", None),
        ("correction", None, story.reason),
        ("correction", None, story.reply),
    ]
    assert cases[2].behaviour == f"Planned {inline_code('CREATE ' + story.rejected)}"
