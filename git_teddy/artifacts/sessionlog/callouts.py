"""What each callout kind says, written by build.py and read by resume, codify and learn
(pure). The Markdown shape of a callout is generic (model.Callout); these are its contents:

- `[!user]`: body `"<the user's words>" - <how they were acted on>`; inside the quotes `\\`
  and `"` are escaped with a backslash, newlines are kept;
- `[!error]`: title `Resolved in turn 03: <how>` or `Unresolved`; body: what failed;
- `[!decision]`: body: the decision;
- `[!subagent]`: title `@agent@version (model)`; body `mode: <inline|link|embed>` then, by
  mode, the subagent's phases (inline), `[[session-id]]` and `Summary: ...` (link) or
  `![[session-id]]` (embed).
"""

import re

from git_teddy.artifacts.sessionlog.model import Callout

RESOLVED = re.compile(r"Resolved in turn (?P<turn>\S+?)(?:: (?P<how>.*))?")
UNRESOLVED = "Unresolved"


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


def error_callout(failure: str, resolved_in: str | None, how: str | None = None) -> Callout:
    if resolved_in is None:
        return Callout(kind="error", title=UNRESOLVED, body=failure)
    title = f"Resolved in turn {resolved_in}" + (f": {how}" if how else "")
    return Callout(kind="error", title=title, body=failure)


def read_resolution(callout: Callout) -> tuple[str | None, str | None]:
    """(turn, how) of an `[!error]` callout's resolution; (None, None) when unresolved."""
    match = RESOLVED.fullmatch(callout.title)
    return (match["turn"], match["how"]) if match else (None, None)


def subagent_link(callout: Callout) -> str | None:
    """The session id a `[!subagent]` callout links or embeds, if any."""
    match = re.search(r"^!?\[\[(?P<id>[^\]]+)\]\]$", callout.body, re.MULTILINE)
    return match["id"] if match else None
