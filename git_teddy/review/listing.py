"""The list page `git teddy serve` shows at `/`: every session in the repository (fetched
ones included) with the filters `git teddy list` has (pure: rows in, HTML out)."""

from collections.abc import Sequence
from html import escape
from urllib.parse import quote

from git_teddy.index.rows import STATUSES, SessionRow
from git_teddy.review.html import CSS

FILTERS = ("status", "agent", "channel")


def render_list(rows: Sequence[SessionRow], filters: dict[str, str], total: int) -> str:
    """The sessions `rows` (chosen by `filters` among `total`) as a table linking each
    session's page, above a filter form that submits to the same page."""
    lines = "".join(_row(row) for row in rows)
    shown = f"{len(rows)} of {total} sessions" if filters else f"{total} sessions"
    empty = "" if rows else "<p>no session matches</p>"
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>git teddy sessions</title><style>{CSS}</style></head>\n<body><main>\n"
        f'<h1>Sessions</h1>{_form(filters)}<p class="figures">{shown}</p>'
        '<table class="actions sessions"><tr><th>session</th><th>title</th><th>author</th>'
        "<th>status</th><th>started</th><th>turns</th><th>participants</th><th>tokens</th>"
        "<th>cost</th></tr>"
        f"{lines}</table>{empty}\n</main></body></html>\n"
    )


def _row(row: SessionRow) -> str:
    link = f'<a href="/session/{quote(row.id)}">{escape(row.id)}</a>'
    agents = escape(row.participants.replace(" ", ", ") or "-")
    return (
        f"<tr><td>{link}</td><td>{escape(row.title or '-')}</td>"
        f"<td>{escape(row.author or '-')}</td>"
        f'<td class="status-{escape(row.status)}">{escape(row.status)}</td>'
        f"<td>{escape(row.started)}</td><td>{row.turns}</td><td>{agents}</td>"
        f"<td>{row.tokens:,}</td><td>{_cost(row.cost)}</td></tr>"
    )


def _cost(cost: float) -> str:
    return f"${cost:.4f}" if cost else "-"


def _form(filters: dict[str, str]) -> str:
    options = "".join(
        f"<option{' selected' if filters.get('status') == s else ''}>{s}</option>" for s in STATUSES
    )
    status = f'<select name="status"><option value="">any status</option>{options}</select>'
    fields = "".join(
        f'<input name="{name}" placeholder="{name}" value="{escape(filters.get(name, ""))}">'
        for name in ("agent", "channel")
    )
    return f'<form method="get">{status} {fields} <button type="submit">filter</button></form>'
