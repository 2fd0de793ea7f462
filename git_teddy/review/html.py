"""A session as one static, self-contained HTML page for reviewers (pure: data in, text out).

Everything the page needs is inline (CSS and a few lines of JS): it opens from a file with
no server and makes no network request, so no `src` or `href` ever names another host.
Every text from the session is escaped; secrets were redacted before the session was
committed, and the page shows only what the session holds.
"""

import re
from dataclasses import dataclass, field
from html import escape

from git_teddy.artifacts.report import ActionLog, ExecutionReport
from git_teddy.artifacts.sessionlog.model import Block, Callout, Phase, SessionLog, Tasks, ToolCalls
from git_teddy.review.contexts import FILL_SCRIPT, contexts_block
from git_teddy.review.highlight import highlight, language_of
from git_teddy.review.markdown import markdown_html


@dataclass(frozen=True)
class TurnPage:
    """One turn as the page shows it."""

    name: str
    branch: str
    parent: str | None  # the turn it follows (None: the first)
    agent: str
    model: str | None
    status: str
    message: str
    plan: str
    context: str  # exactly what the model received (_context.log)
    report: ExecutionReport | None
    report_note: str | None = None  # why the report is not shown (too large to read)
    tokens_in: int | None = None
    tokens_out: int | None = None
    cost: float | None = None
    diff: str | None = None  # the patch from the turn's base to its result
    diff_note: str | None = None  # why there is no patch
    author: str | None = None  # who planned the turn (its plan commit's author, by name)
    landed_in: tuple[str, ...] = ()  # the user's commits that took its result


@dataclass(frozen=True)
class SessionPage:
    session: str
    log: SessionLog | None
    turns: list[TurnPage] = field(default_factory=list)
    branches: list[str] = field(default_factory=list)
    log_problem: str | None = None  # why the session log could not be read
    files_changed: str | None = None  # the patch from the first turn's base to the last result


CSS = """
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1f2328;background:#f6f8fa}
main{max-width:1100px;margin:0 auto;padding:1.5em}
h1{font-size:1.6em;margin:.2em 0}h2{margin-top:1.6em;border-bottom:1px solid #d0d7de}
section.turn{background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:1em 1.2em;
margin:1.2em 0}
pre{background:#f6f8fa;border:1px solid #d0d7de;border-radius:6px;padding:.7em;overflow:auto;
white-space:pre-wrap;word-break:break-word;font:13px/1.45 ui-monospace,monospace}
table.meta td{padding:0 1em 0 0;vertical-align:top}
.figures{color:#59636e}
.callout{border-left:4px solid;border-radius:4px;padding:.4em .8em;margin:.5em 0}
.callout-decision{border-color:#bf8700;background:#fff8c5}
.callout-error{border-color:#cf222e;background:#ffebe9}
.callout-user{border-color:#0969da;background:#ddf4ff}
.callout-subagent{border-color:#8250df;background:#fbefff}
.callout .kind{font-weight:bold;text-transform:uppercase;font-size:.8em}
.call-success{color:#1a7f37}.call-failure{color:#cf222e}.call-rejected{color:#bf8700}
.call-skipped{color:#59636e}
.approval-rejected{background:#fff8c5}
table.actions{border-collapse:collapse;width:100%}
table.actions td,table.actions th{border:1px solid #d0d7de;padding:.3em .5em;text-align:left;
vertical-align:top}
.diff{border:1px solid #d0d7de;border-radius:6px;overflow:auto;
font:13px/1.45 ui-monospace,monospace}
.diff div{white-space:pre;padding:0 .6em}
.diff .file{background:#eaeef2;font-weight:bold;padding:.3em .6em;color:#1f2328}
.diff .ln{display:inline-block;min-width:3em;padding-right:.6em;text-align:right;
color:#6e7781;user-select:none}
.markdown code{background:#eff1f3;border-radius:4px;padding:0 .2em}
.markdown pre code{background:none}.markdown .target{color:#59636e;font-size:.85em}
.diff .hunk{background:#ddf4ff;color:#0550ae}
.diff .add{background:#dafbe1}.diff .del{background:#ffebe9}.diff .meta{color:#59636e}
.diff .k{color:#cf222e}.diff .s{color:#0a3069}.diff .c{color:#6e7781;font-style:italic}
.diff .n{color:#0550ae}
details>summary{cursor:pointer;color:#0969da}
ul.tree{list-style:none;padding-left:1.2em;border-left:1px dashed #d0d7de}
.status-SUCCESS{color:#1a7f37}.status-FAILURE{color:#cf222e}.status-ABORTED{color:#bf8700}
"""

SCRIPT = """
function setAll(open){document.querySelectorAll('details').forEach(function(d){d.open=open;});}
"""


def render_page(page: SessionPage) -> str:
    """The whole page, as one string."""
    body = [
        f"<h1>Session {escape(page.session)}</h1>",
        '<p><button type="button" onclick="setAll(true)">Expand all</button> '
        '<button type="button" onclick="setAll(false)">Collapse all</button></p>',
        _meta(page.log) if page.log else f"<p>(the session log could not be read{_why(page)})</p>",
        '<h2 id="files-changed">Files changed</h2>',
        diff_html(page.files_changed)
        if page.files_changed
        else "<p>no changes to the project yet</p>",
        "<h2>Conversation branches</h2>",
        _tree(page.turns, page.branches),
        "<h2>Session log</h2>",
        *(_phase(phase) for phase in (page.log.phases if page.log else [])),
        "<h2>Turns</h2>",
        *(_turn(turn) for turn in page.turns),
        contexts_block({turn.name: turn.context for turn in page.turns}),
    ]
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>git teddy session {escape(page.session)}</title>"
        f"<style>{CSS}</style><script>{SCRIPT}{FILL_SCRIPT}</script></head>\n"
        "<body><main>\n" + "\n".join(body) + "\n</main></body></html>\n"
    )


def _meta(log: SessionLog) -> str:
    cells = "".join(
        f"<tr><td>{escape(key)}</td><td>{escape(value)}</td></tr>"
        for key, value in log.meta.summary_rows()
    )
    return f'<table class="meta frontmatter">{cells}</table>'


def _tree(turns: list[TurnPage], branches: list[str]) -> str:
    """The turns as a tree: each turn under the one it follows; a conversation branch starts
    where two turns follow the same one."""
    children: dict[str | None, list[TurnPage]] = {}
    names = {turn.name for turn in turns}
    for turn in turns:
        parent = turn.parent if turn.parent in names else None
        children.setdefault(parent, []).append(turn)

    def level(parent: str | None) -> str:
        items = []
        for turn in children.get(parent, []):
            label = (
                f'<a href="#turn-{escape(turn.name)}">{escape(turn.name)}</a> '
                f'<span class="figures">{escape(turn.branch)} · {escape(turn.status)} · '
                f"{escape(_first_line(turn.message))}</span>"
            )
            items.append(f"<li>{label}{level(turn.name)}</li>")
        return f'<ul class="tree">{"".join(items)}</ul>' if items else ""

    listed = ", ".join(escape(b) for b in branches)
    return f'<div class="branches"><p>branches: {listed}</p>{level(None)}</div>'


def _plan_title(plan: str) -> str:
    """The plan's title, its heading's marks left out."""
    return _first_line(plan).lstrip("#").strip() or "(empty)"


def _first_line(text: str) -> str:
    line = text.strip().split("\n", 1)[0]
    return line if len(line) <= 80 else line[:79] + "…"


def _phase(phase: Phase) -> str:
    figures = phase.figures()
    head = (
        f"<h3>{escape(phase.turn)} · {escape(phase.title)} "
        f'<span class="figures">@{escape(phase.agent)} #{escape(phase.channel)}</span></h3>'
    )
    blocks = "".join(_block(block) for block in phase.blocks)
    figure_line = f'<p class="figures">{escape(" · ".join(figures))}</p>'
    return f'<div class="phase">{head}{figure_line}{blocks}</div>'


def _block(block: Block) -> str:
    if isinstance(block, Callout):
        return callout_html(block)
    if isinstance(block, ToolCalls):
        rows = "".join(
            f'<li class="call-{call.status}">{escape(call.call)}'
            + (f" → {escape(call.summary)}" if call.summary else "")
            + "</li>"
            for call in block.calls
        )
        return f'<div class="tool-calls"><b>Tool calls:</b><ul>{rows}</ul></div>'
    assert isinstance(block, Tasks)
    rows = "".join(f"<li>[{escape(t.status)}] {escape(t.content)}</li>" for t in block.tasks)
    return f'<div class="tasks"><b>Tasks:</b><ul>{rows}</ul></div>'


def callout_html(callout: Callout) -> str:
    title = f" {escape(callout.title)}" if callout.title else ""
    body = f"<pre>{escape(callout.body)}</pre>" if callout.body else ""
    return (
        f'<div class="callout callout-{callout.kind}">'
        f'<span class="kind">{callout.kind}</span>{title}{body}</div>'
    )


def _turn(turn: TurnPage) -> str:
    figures = [f"agent {turn.agent}", f"branch {turn.branch}"]
    if turn.author:
        figures.insert(0, f"by {turn.author}")
    if turn.model:
        figures.append(turn.model)
    if turn.tokens_in is not None or turn.tokens_out is not None:
        figures.append(f"tokens in {turn.tokens_in or 0:,} / out {turn.tokens_out or 0:,}")
    if turn.cost is not None:
        figures.append(f"cost ${turn.cost:.4f}")
    figures += [f"landed in {commit[:10]}" for commit in turn.landed_in]
    parts = [
        f'<section class="turn" id="turn-{escape(turn.name)}">',
        f'<h3>Turn {escape(turn.name)} <span class="status-{escape(turn.status)}">'
        f"{escape(turn.status)}</span></h3>",
        f'<p class="figures">{escape(" · ".join(figures))}</p>',
        "<h4>Message</h4>",
        f'<pre class="message">{escape(turn.message)}</pre>',
        f'<details class="plan"><summary>Plan: {escape(_plan_title(turn.plan))}</summary>'
        f"{markdown_html(turn.plan)}</details>",
        _report(turn.report, turn.report_note),
        # filled from the page's contexts block when opened (review/contexts.py)
        f'<details class="context" data-turn="{escape(turn.name)}">'
        "<summary>Context the model saw</summary><pre></pre></details>",
        "<h4>Changes</h4>",
        diff_html(turn.diff) if turn.diff else f"<p>{escape(turn.diff_note or 'no changes')}</p>",
        "</section>",
    ]
    return "\n".join(parts)


def _why(page: SessionPage) -> str:
    return f": {escape(page.log_problem)}" if page.log_problem else ""


def _report(report: ExecutionReport | None, note: str | None = None) -> str:
    if report is None:
        return f"<h4>Report</h4><p>{escape(note or 'not executed yet')}</p>"
    summary = report.run_summary
    memos = ""
    if report.memos.proposed:
        items = "".join(f"<li>{escape(m)}</li>" for m in report.memos.proposed)
        memos = f"<p>memos ({escape(report.memos.decision)}):</p><ul>{items}</ul>"
    rows = []
    for log in report.action_logs:
        approval = log.approval or ""
        reason = f": {log.reason}" if log.reason else ""
        what = log.description or log.summary or ""
        rows.append(
            f'<tr class="approval-{escape(approval)}"><td>{log.index}</td>'
            f"<td>{escape(log.action_type)}</td><td>{escape(what)}</td>"
            f'<td class="approval">{escape(approval + reason)}</td>'
            f'<td class="call-{escape(log.status.lower())}">{escape(log.status)}</td>'
            f"<td>{escape(_outcome(log))}</td></tr>"
        )
    table = (
        '<table class="actions"><tr><th>#</th><th>action</th><th>description</th>'
        "<th>approval</th><th>status</th><th>outcome</th></tr>" + "".join(rows) + "</table>"
    )
    notes = "".join(f"<li>{escape(note)}</li>" for note in summary.notes)
    return (
        f'<h4>Report: <span class="status-{escape(summary.status)}">{escape(summary.status)}'
        f"</span></h4><p>applied: {escape(str(summary.applied))}</p>{memos}{table}"
        + (f"<ul>{notes}</ul>" if notes else "")
    )


def _outcome(log: ActionLog) -> str:
    """An action's one-line outcome; a question to the user shows the user's answer."""
    reply = log.details.get("reply")
    if log.action_type == "CHAT_WITH_USER" and isinstance(reply, str) and reply:
        return f"replied: {reply}"
    return log.summary or ""


HUNK = re.compile(r"@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")


def diff_html(patch: str) -> str:
    """A unified diff as a pull request shows it: each file in a <details> of its own (open,
    its header the summary, to collapse one), each line one element classed by what it is
    (hunk header, added, removed, context, meta) with its old and new line numbers, the
    code in hunks coloured by its file's language."""
    files: list[str] = []
    lines: list[str] = []
    header = ""
    in_hunk = False  # a removed line reading "--- x" is not a file header
    language: str | None = None
    old = new = 0

    def close() -> None:
        if header:
            files.append(
                f'<details open class="file-diff"><summary class="file">{escape(header)}'
                f"</summary>{''.join(lines)}</details>"
            )
        lines.clear()

    for line in patch.splitlines():
        if line.startswith("diff --git "):
            close()
            header, in_hunk = line, False
            # the new side's name ends the line (quoted when it has odd characters)
            language = language_of(line.rsplit(" ", 1)[-1].strip('"'))
            continue
        numbers = ("", "")
        if line.startswith("@@"):
            kind, in_hunk = "hunk", True
            found = HUNK.match(line)
            old, new = (int(found[1]), int(found[2])) if found else (0, 0)
        elif not in_hunk or line.startswith("\\"):
            kind = "meta"
        elif line.startswith("+"):
            kind, numbers, new = "add", ("", str(new)), new + 1
        elif line.startswith("-"):
            kind, numbers, old = "del", (str(old), ""), old + 1
        else:
            kind, numbers, old, new = "ctx", (str(old), str(new)), old + 1, new + 1
        if kind in ("add", "del", "ctx") and line:
            text = escape(line[0]) + highlight(line[1:], language)
        else:
            text = escape(line) or " "
        gutter = "".join(f'<span class="ln">{n}</span>' for n in numbers) if in_hunk else ""
        lines.append(f'<div class="{kind}">{gutter}{text}</div>')
    if not header and lines:  # a patch without a file header: its lines as they are
        header = "changes"
    close()
    return f'<div class="diff">{"".join(files)}</div>'
