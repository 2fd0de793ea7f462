"""`git teddy show SESSION/TURN` in reviewer order: message, plan, report, then the rest;
the context the model got only with --context."""

from pathlib import Path

from git_teddy.session.views import turn_text
from testing.commands import Teddy
from testing.sessions import session_with_a_turn

FILES = {
    "_context.log": b"# the context\n" + b"resource line\n" * 2000,
    "system_prompt.xml": b"<prompt/>\n",
    "plan.md": b"# A plan\n",
    "report.md": b"run_summary: {}\n",
    "turn.context": b"app.py\n",
    "turn.yaml": b"id: x\n",
    "user_prompt.txt": b"do the work\n",
}


def headers(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("==> ")]


def test_turn_text_reads_in_reviewer_order_and_leaves_the_context_out() -> None:
    text = turn_text("s", "01", [], FILES)
    assert headers(text) == [
        "==> user_prompt.txt <==",
        "==> plan.md <==",
        "==> report.md <==",
        "==> turn.yaml <==",
        "==> turn.context <==",
    ]
    assert "resource line" not in text and "<prompt/>" not in text
    assert text.endswith(
        "(the context is not shown: _context.log, system_prompt.xml; "
        "to see it: git teddy show s/01 --context)"
    )
    full = turn_text("s", "01", [], FILES, with_context=True)
    assert headers(full)[5:] == ["==> _context.log <==", "==> system_prompt.xml <=="]
    assert "not shown" not in full


def test_show_turn_puts_the_message_first_and_the_context_behind_a_flag(
    repo: Path, teddy: Teddy
) -> None:
    session = session_with_a_turn(repo, teddy)
    shown = teddy.ok(repo, "show", f"{session}/01").stdout
    assert headers(shown)[:3] == ["==> user_prompt.txt <==", "==> plan.md <==", "==> report.md <=="]
    assert "==> _context.log <==" not in shown and "--context)" in shown
    full = teddy.ok(repo, "show", f"{session}/01", "--context").stdout
    assert headers(full)[-1] in ("==> _context.log <==", "==> system_prompt.xml <==")
    assert full.index("==> report.md <==") < full.index("==> _context.log <==")
