"""What each callout kind says (pure): every sentence build.py writes into a callout that a
reader (resume, codify, learn) reads back is made here by one function and read here by
its pair, side by side, so that rewording one rewords the other (tests/test_log_phrases.py
builds logs with build.py and reads every phrase back). The Markdown shape of a callout is
generic (model.Callout); these are its contents:

- `[!user]`: body `"<the user's words>" - <how they were acted on>`; inside the quotes `\\`
  and `"` are escaped with a backslash, newlines are kept. How: `planned by @agent as
  “title”` (the turn's message), `rejected `CALL`; it was not run` (a rejection's reason) or
  `answer to “question”; it became the next turn's message` (a reply the next turn was
  planned from; `; the next turn was planned from another message` when it was not, nothing
  after the question while there is no next turn) or `the user steered the session: <what
  it did>` (the words are then a command the user ran between turns: add, drop, undo,
  restore, branch);
- `[!error]`: title `Resolved in turn 03: <how>` or `Unresolved`; body: what failed, for a
  failed action `` `CALL` failed: <summary> `` then the last lines of its output;
- `[!decision]`: body: the decision; among them `The user rejected `CALL` without a reason;
  it was not run.` and `Memos approved|rejected by the user|proposed:` then one memo a line;
- `[!subagent]`: title `@agent@version (model)`; body `mode: <inline|link|embed>` then, by
  mode, the subagent's phases (inline), `[[session-id]]` and `Summary: ...` (link) or
  `![[session-id]]` (embed).
"""

import re
from collections.abc import Sequence
from typing import Literal

from git_teddy.artifacts.sessionlog.model import Callout
from git_teddy.artifacts.sessionlog.parse import split_code_span
from git_teddy.artifacts.sessionlog.render import inline_code

RESOLVED = re.compile(r"Resolved in turn (?P<turn>\S+?)(?:: (?P<how>.*))?")
UNRESOLVED = "Unresolved"

UserKind = Literal["message", "rejection", "reply", "steering"]
MemoDecision = Literal["approved", "rejected", "none"]  # the report's memos.decision

_REJECTED = ("rejected ", "; it was not run")
_ANSWER = ("answer to “", "”")
_STEERED = "the user steered the session: "
_ANSWER_USE = {  # whether the next turn was planned from the reply (None: no next turn yet)
    True: "; it became the next turn's message",
    False: "; the next turn was planned from another message",
    None: "",
}
_UNREASONED = ("The user rejected ", " without a reason; it was not run.")
_MEMO_VERBS: dict[MemoDecision, str] = {
    "approved": "approved",
    "rejected": "rejected by the user",
    "none": "proposed",
}
_FAILED = " failed: "
_INLINE = "mode: inline"


# ---- [!user] ---------------------------------------------------------------------------------


def user_callout(words: str, acted_on: str) -> Callout:
    escaped = words.replace("\\", "\\\\").replace('"', '\\"')
    return Callout(kind="user", body=f'"{escaped}" - {acted_on}')


def read_user(callout: Callout) -> tuple[str, str]:
    """The user's words and how they were acted on, from a `[!user]` callout's body."""
    body = callout.body
    if not body.startswith('"'):
        return body, ""
    words: list[str] = []
    i = 1
    while i < len(body) and body[i] != '"':
        if body[i] == "\\" and i + 1 < len(body):
            i += 1
        words.append(body[i])
        i += 1
    return "".join(words), body[i + 1 :].removeprefix(" - ")


def planned_as(agent: str, title: str) -> str:
    """How the turn's message was acted on."""
    return f"planned by @{agent} as “{title}”"


def rejected_as(call: str) -> str:
    """How a rejection's reason was acted on."""
    return f"{_REJECTED[0]}{inline_code(call)}{_REJECTED[1]}"


def answered(question: str, used: bool | None) -> str:
    """How a reply to CHAT_WITH_USER's `question` was acted on: `used` says whether the
    next turn's message was the reply (None while there is no next turn)."""
    return f"{_ANSWER[0]}{question}{_ANSWER[1]}{_ANSWER_USE[used]}"


def steered(did: str) -> str:
    """How a command of the user's between turns (add, drop, undo, restore, branch) acted:
    what it did (sessionlog/steering.py)."""
    return f"{_STEERED}{did}"


def read_acted_on(acted_on: str) -> tuple[UserKind, str | None]:
    """What the words were: the turn's message, a rejection's reason (with the rejected
    call, None when it cannot be read), a reply, or a command that steered the session."""
    if acted_on.startswith(_STEERED):
        return "steering", None
    if acted_on.startswith(_REJECTED[0] + "`"):
        return "rejection", _leading_call(acted_on.removeprefix(_REJECTED[0]))
    if acted_on.startswith(_ANSWER[0]):
        return "reply", None
    return "message", None


def _leading_call(text: str) -> str | None:
    try:
        return split_code_span(text)[0]
    except ValueError:
        return None


# ---- [!error] --------------------------------------------------------------------------------


def resolution(turn: str, how: str | None) -> str:
    """`Resolved in turn 03: how`: an `[!error]`'s title once a turn repaired it."""
    return f"Resolved in turn {turn}" + (f": {how}" if how else "")


def error_callout(failure: str, resolved_in: str | None, how: str | None = None) -> Callout:
    title = UNRESOLVED if resolved_in is None else resolution(resolved_in, how)
    return Callout(kind="error", title=title, body=failure)


def read_resolution(callout: Callout) -> tuple[str | None, str | None]:
    """(turn, how) of an `[!error]` callout's resolution; (None, None) when unresolved."""
    match = RESOLVED.fullmatch(callout.title)
    return (match["turn"], match["how"]) if match else (None, None)


def failure(call: str, summary: str, output: Sequence[str] = ()) -> str:
    """An `[!error]` body for an action that failed: the call, why, lines of its output."""
    return "\n".join([f"{inline_code(call)}{_FAILED}{summary}", *output])


def read_failed_call(callout: Callout) -> str | None:
    """The call an `[!error]` body names as failed (None for other failures, such as an
    invalid reply)."""
    try:
        call, rest = split_code_span(callout.body)
    except ValueError:
        return None
    return call if rest.startswith(_FAILED.rstrip()) else None


# ---- [!decision] -----------------------------------------------------------------------------


def unreasoned_rejection(call: str) -> Callout:
    """The user rejected `call` and gave no reason (with one, it is a `[!user]` callout)."""
    return Callout(kind="decision", body=f"{_UNREASONED[0]}{inline_code(call)}{_UNREASONED[1]}")


def read_unreasoned_rejection(callout: Callout) -> str | None:
    """The call of an `unreasoned_rejection` callout; None for any other decision."""
    if not callout.body.startswith(_UNREASONED[0] + "`"):
        return None
    return _leading_call(callout.body.removeprefix(_UNREASONED[0]))


def memos_decision(decision: MemoDecision, memos: Sequence[str]) -> Callout:
    """The plan's memo changes (`[+] text`, `[-] text`) and what the user decided."""
    return Callout(kind="decision", body=f"Memos {_MEMO_VERBS[decision]}:\n" + "\n".join(memos))


def read_memos_decision(callout: Callout) -> tuple[MemoDecision, list[str]] | None:
    """(decision, memos) of a `memos_decision` callout; None for any other decision."""
    head, _, rest = callout.body.partition("\n")
    for decision, verb in _MEMO_VERBS.items():
        if head == f"Memos {verb}:":
            return decision, [line for line in rest.split("\n") if line.strip()]
    return None


# ---- [!subagent] -----------------------------------------------------------------------------


def _subagent(agent: str, model: str | None, body: str) -> Callout:
    title = f"@{agent}" + (f" ({model})" if model else "")
    return Callout(kind="subagent", title=title, body=body)


def inline_subagent(agent: str, model: str | None, work: str) -> Callout:
    """A subagent's phases (`work`, rendered at level 3) inside the callout."""
    return _subagent(agent, model, f"{_INLINE}\n{work}")


def embedded_subagent(agent: str, model: str | None, session_id: str) -> Callout:
    return _subagent(agent, model, f"mode: embed\n![[{session_id}]]")


def linked_subagent(agent: str, model: str | None, session_id: str, summary: str) -> Callout:
    return _subagent(agent, model, f"mode: link\n[[{session_id}]]\nSummary: {summary}")


def subagent_agent(callout: Callout) -> str:
    """`architect@1.0` of a `[!subagent]` callout's title `@architect@1.0 (gpt-4o)`."""
    return callout.title.split(" ")[0].removeprefix("@")


def inline_work(callout: Callout) -> list[str] | None:
    """The lines of an inline subagent's phases; None when it is linked or embedded."""
    lines = callout.body.split("\n")
    return lines[1:] if lines[0] == _INLINE else None


def subagent_link(callout: Callout) -> str | None:
    """The session id a `[!subagent]` callout links or embeds, if any."""
    match = re.search(r"^!?\[\[(?P<id>[^\]]+)\]\]$", callout.body, re.MULTILINE)
    return match["id"] if match else None
