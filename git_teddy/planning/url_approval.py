"""Which context URLs are fetched for a session: only those the user approved for it. A URL
in a committed `.teddy/global.context`, in a teammate's `session.context` or in a turn's
list is someone else's choice until then; approving it is adding it (`git teddy add`),
approving a READ of it at `execute`, answering yes when `plan` or `branch` asks (on a
terminal), or `git teddy context --allow-url URL`. Approvals are kept per session in the
derived state (gitstore/layout.py `approved_urls`), never in the session's branch: a pushed
session cannot carry approvals to a teammate."""

import shlex
from dataclasses import dataclass, field

from git_teddy.errors import TeddyError
from git_teddy.gitstore.layout import Layout
from git_teddy.printable import printable
from git_teddy.ui import UI

NOT_YET = "not fetched yet"


def allow_command(session: str, url: str) -> str:
    return f"git teddy context -s {shlex.quote(session)} --allow-url {shlex.quote(url)}"


def check_url(url: str) -> str:
    """`url` as given to --allow-url, refused unless an http(s) URL on one line."""
    if not url.startswith(("http://", "https://")) or any(c.isspace() for c in url):
        raise TeddyError(
            f"not an http(s) URL: {printable(url, one_line=True)}",
            "give the URL as the context lists it, e.g. --allow-url https://example.com/docs",
        )
    return url


@dataclass
class UrlGate:
    """Answers whether a URL of the context may be fetched; asks through `ui` (None: never
    asks, as `git teddy context`)."""

    layout: Layout
    session: str
    ui: UI | None
    approved: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, layout: Layout, session: str, ui: UI | None) -> "UrlGate":
        return cls(layout, session, ui, layout.approved_urls(session))

    def refusal(self, url: str, source: str) -> str | None:
        """None when `url` may be fetched; else the note the resource gets instead."""
        if url in self.approved:
            return None
        answer = None if self.ui is None else self.ui.approve_url(url, source)
        if answer:
            self.approved.add(url)
            self.layout.approve_urls(self.session, [url])
            return None
        allow = allow_command(self.session, url)
        if answer is False:
            return f"not fetched: you declined it (to allow it later: `{allow}`)"
        if self.ui is not None:
            shown = printable(url, one_line=True)
            self.ui.progress(f"note: {shown} ({source}) was not fetched; to allow it: {allow}")
        return f"{NOT_YET}: not approved for this session (to allow it: `{allow}`)"
