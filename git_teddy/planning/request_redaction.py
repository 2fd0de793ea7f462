"""Request redaction: what the model is sent of a turn's request, and what redacting it took
out (recorded in turn.yaml as for every file of the commit)."""

from git_teddy.planning.context import render_context_log
from git_teddy.redact import Finding, redact


def as_sent(text: str, redacting: bool) -> str:
    """What the model is sent of `text`: redacted unless teddy.redactRequests is false, so
    that `_context.log`, which the commit redacts, is exactly the request."""
    return redact(text)[0] if redacting else text


def request_findings(system: str, payload: str, sent_payload: str, sent_user: str) -> list[Finding]:
    """What redacting the request took out, on the lines of `_context.log` as it would read
    unredacted: turn.yaml says where secrets were, as for every file of the commit. The
    sent user message (`sent_user`) starts with the payload (a pipeline's step adds to it)."""
    user = sent_user.replace(sent_payload.rstrip("\n"), payload.rstrip("\n"), 1)
    return redact(render_context_log(system, user))[1]
