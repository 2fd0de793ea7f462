"""What execution and the loop decide from the user's answers, with the library in this
process and a ScriptedUI answering (tests/scripted_ui.py): approvals, "all remaining",
quitting, memos, applying, chat replies, the loop's messages and stops. The terminal's own
prompts are tested end to end (test_execute.py, test_loop.py)."""

import os
from pathlib import Path

import pytest

from git_teddy.execute.runner import ExecutionResult, execute_turn
from git_teddy.loop import run_loop
from git_teddy.planning.turn import plan_turn
from git_teddy.session.workspace import Workspace, open_workspace
from git_teddy.ui import Decision
from testing.plans import create, plan_text
from testing.scripted_ui import ScriptedUI

CHAT = "### `CHAT_WITH_USER`\nShall I add a second file?\n"


@pytest.fixture
def ws(repo: Path, env: dict, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Workspace:
    """The library, in this process, under the same sealed environment as the executable,
    with the replay provider answering from tmp_path/replies (see `replies`)."""
    for key in list(os.environ):
        if key.startswith(("GIT_", "TEDDY_")):
            monkeypatch.delenv(key)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("TEDDY_PROVIDER", "replay")
    monkeypatch.setenv("TEDDY_REPLAY_DIR", str(tmp_path / "replies"))
    (tmp_path / "replies").mkdir()
    monkeypatch.chdir(repo)
    return open_workspace()


def replies(ws: Workspace, *plans: str) -> None:
    """The replay provider's next answers, one per model call."""
    folder = Path(os.environ["TEDDY_REPLAY_DIR"])
    start = len(list(folder.iterdir()))
    for number, text in enumerate(plans, start=start + 1):
        (folder / f"{number:02d}.md").write_text(text)


def planned(ws: Workspace, *actions: str, memos: str = "") -> str:
    """A new session with one plan waiting for execution; its id."""
    session = ws.store.create_session("decisions", "cli")
    reply = plan_text(*actions, memos=memos)
    plan_turn(ws, session, "do the work", reply_file_text=reply, ui=ScriptedUI())
    return session


def outcomes(result: ExecutionResult) -> list[tuple[str, str | None, str | None]]:
    return [(log.status, log.approval, log.reason) for log in result.report.action_logs]


def test_all_remaining_holds_for_the_rest_of_the_plan_only(ws: Workspace, repo: Path) -> None:
    files = [create(f"{n}.txt", f"{n}\n") for n in ("one", "two", "three")]
    session = planned(ws, *files)
    ui = ScriptedUI(actions=[Decision("rejected", "not this one"), "a"])
    result = execute_turn(ws, session, ui)
    assert outcomes(result) == [
        ("REJECTED", "rejected", "not this one"),
        ("SUCCESS", "approved", None),
        ("SUCCESS", "auto", None),
    ]
    assert ui.asked == ["action CREATE", "action CREATE"]  # not asked for the third
    assert [line for line in ui.shown if line.startswith("\n[")] == [
        "\n[1/3] CREATE one.txt - New file.",
        "\n[2/3] CREATE two.txt - New file.",
        "\n[3/3] CREATE three.txt - New file.",
    ]
    assert "  rejected" in ui.shown
    assert not (repo / "one.txt").exists() and (repo / "three.txt").read_text() == "three\n"

    # The next plan asks again from its first action.
    plan_turn(ws, session, "more", reply_file_text=plan_text(*files[:2]), ui=ScriptedUI())
    ui.actions = ["y", "n"]
    again = execute_turn(ws, session, ui)
    assert outcomes(again) == [("SUCCESS", "approved", None), ("REJECTED", "rejected", None)]


def test_quit_skips_the_rest(ws: Workspace) -> None:
    session = planned(ws, create("one.txt", "1\n"), create("two.txt", "2\n"))
    ui = ScriptedUI(actions=["q"])
    result = execute_turn(ws, session, ui)
    assert result.report.run_summary.status == "ABORTED"
    assert [status for status, _, _ in outcomes(result)] == ["SKIPPED", "SKIPPED"]
    assert ui.asked == ["action CREATE"]


def test_rejected_memos_and_a_declined_apply(
    ws: Workspace, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TEDDY_APPLY", "ask")
    ws = open_workspace()
    session = planned(ws, create("one.txt", "1\n"), memos="[+] keep tests fast")
    ui = ScriptedUI(memos=[False], actions=["y"], applies=[False])
    result = execute_turn(ws, session, ui)
    assert ui.asked == ["memos", "action CREATE", "apply"]
    assert ui.shown[0] == "Proposed memo changes:\n  [+] keep tests fast"
    assert result.report.memos.decision == "rejected"
    assert result.report.run_summary.applied == "not applied (teddy.apply)"
    assert result.apply is None and not (repo / "one.txt").exists()


def test_the_chat_reply_is_recorded(ws: Workspace) -> None:
    session = planned(ws, CHAT)
    ui = ScriptedUI(actions=["y"], replies=["yes please"])
    result = execute_turn(ws, session, ui)
    assert "\nThe model says:\nShall I add a second file?\n" in ui.shown
    assert result.report.action_logs[0].details == {"reply": "yes please"}


def test_the_loop_takes_its_messages_from_the_ui(ws: Workspace) -> None:
    replies(ws, plan_text(create("one.txt", "1\n")), plan_text(create("two.txt", "2\n")))
    session = ws.store.create_session("looped", "cli")
    ui = ScriptedUI(messages=["make one", "", None], actions=["y", "y"])
    outcome = run_loop(ws, session, None, ui)
    assert (outcome.reason, outcome.turns, outcome.last_turn) == ("quit", 2, "02")
    questions = ["first message", "action CREATE", "next message", "action CREATE"]
    assert ui.asked == [*questions, "next message"]
    turn_files = ws.store.turn_files(ws.store.resolve_turn("02", session))
    assert turn_files["user_prompt.txt"] == b"Continue.\n"  # an empty comment goes on
    assert "turn 01: SUCCESS; 1 file(s) changed in your working tree" in ui.shown


def test_unattended_the_loop_waits_for_an_unanswered_question(ws: Workspace) -> None:
    replies(ws, plan_text(CHAT))
    session = ws.store.create_session("waiting", "cli")
    ui = ScriptedUI(unattended=True, actions=[Decision("auto")], replies=[None])
    outcome = run_loop(ws, session, "ask me", ui)
    assert (outcome.reason, outcome.turns) == ("waiting", 1)


def test_no_answer_left_pauses_the_session(ws: Workspace) -> None:
    """End of input at a prompt (Interrupted) stops the loop as Ctrl-C does: paused."""
    replies(ws, plan_text(create("one.txt", "1\n")))
    session = ws.store.create_session("stopped", "cli")
    ui = ScriptedUI(messages=["make one"])  # and no answer for the approval
    with pytest.raises(KeyboardInterrupt):
        run_loop(ws, session, None, ui)
    assert ws.store.session_log(session)["status"] == "paused"
    resume = f"resume with: git teddy resume {session}"
    assert ui.notes[-1] == f"\npaused session {session} at turn 01; {resume}"
