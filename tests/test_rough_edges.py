"""The rough edges of a turn (issue 15): discarding a pending plan, the messages execute
gives, plan titles in commit subjects, costs said as they are known, the session log's
wording of replies and skipped actions. Real repositories, the real executable."""

import json
from pathlib import Path

import pexpect
import yaml

from git_teddy.errors import EXIT_USER_ERROR
from git_teddy.loop import CONTINUE_MESSAGE
from testing.commands import Teddy, git
from testing.llm_servers import OpenAIServer, model_reply
from testing.plans import CONCLUDE, INVOKE, create, edit, execute, plan_text
from testing.sessions import queue, report_of, start
from testing.waits import EVENT_TIMEOUT


def subjects(repo: Path, env: dict, session: str) -> list[str]:
    return git(repo, env, "log", "--format=%s", f"teddy/{session}/main").splitlines()


def titled(title: str, *actions: str) -> str:
    return plan_text(*actions).replace("# A plan", f"# {title}", 1)


def chat(question: str) -> str:
    return f"### `CHAT_WITH_USER`\n{question}\n"


# ---- discard -------------------------------------------------------------------------------


def test_discard_records_the_plan_as_stopped_and_plan_works_next(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    session = start(repo, teddy, create("one.txt", "1\n"), execute("echo ran > ran.txt"))
    plan_file = repo.parent / "plan.md"
    refused = teddy.exits(
        EXIT_USER_ERROR, repo, "plan", "-m", "other", "--from-file", str(plan_file)
    )
    assert "git teddy discard" in refused.stderr  # the way out is named

    done = teddy.ok(repo, "discard")
    assert done.stdout == "turn 01 discarded: A plan (2 action(s) not run)\n"
    assert "next: git teddy plan -m MESSAGE" in done.stderr
    assert not (repo / "one.txt").exists() and not (repo / "ran.txt").exists()  # nothing ran
    report = report_of(repo, env, session)
    assert report["run_summary"]["status"] == "ABORTED"
    assert report["run_summary"]["applied"] == "not applied: the plan was discarded"
    assert [(a["status"], a["reason"]) for a in report["action_logs"]] == [
        ("SKIPPED", "discarded by the user (git teddy discard)")
    ] * 2
    # Nothing is lost: the plan is still in the history and the log.
    assert git(repo, env, "show", f"teddy/{session}/main:01/plan.md").startswith("# A plan")
    assert "discarded by the user" in teddy.ok(repo, "show").stdout

    teddy.ok(repo, "plan", "-m", "other", "--from-file", str(plan_file))
    assert subjects(repo, env, session)[0] == "teddy: 02 plan: A plan"
    teddy.ok(repo, "execute", "-y")
    assert (repo / "one.txt").read_text() == "1\n"


def test_discard_with_nothing_pending_refuses(repo: Path, teddy: Teddy, env: dict) -> None:
    teddy.ok(repo, "new", "idle")
    refused = teddy.exits(EXIT_USER_ERROR, repo, "discard")
    assert refused.stderr.startswith("error: nothing to execute in session ")
    assert "hint: plan the next turn" in refused.stderr and "Traceback" not in refused.stderr


# ---- execute's messages ----------------------------------------------------------------------


def test_execute_with_nothing_pending_says_so_without_a_terminal(repo: Path, teddy: Teddy) -> None:
    teddy.ok(repo, "new", "idle")
    refused = teddy.exits(EXIT_USER_ERROR, repo, "execute", input="")
    assert refused.stderr.startswith("error: nothing to execute in session ")
    assert "hint: plan the next turn with `git teddy plan -m MESSAGE`" in refused.stderr
    assert "terminal" not in refused.stderr


def test_execute_without_a_terminal_still_refuses_a_pending_plan(repo: Path, teddy: Teddy) -> None:
    start(repo, teddy, create("one.txt", "1\n"))
    refused = teddy.exits(EXIT_USER_ERROR, repo, "execute", input="")
    assert "there is no terminal to ask on" in refused.stderr


# ---- commit subjects and costs -------------------------------------------------------------


def test_plan_commit_subjects_carry_the_title(repo: Path, teddy: Teddy, env: dict) -> None:
    teddy.ok(repo, "new", "titles")
    plan_file = repo.parent / "plan.md"
    long = "Add the login form, " + "with validation " * 8
    for number, title in enumerate(("Add login form", long)):
        plan_file.write_text(titled(title, create(f"form{number}.txt", "x\n")))
        teddy.ok(repo, "plan", "-m", "go", "--from-file", str(plan_file))
        teddy.ok(repo, "execute", "-y")
    session = json.loads(teddy.ok(repo, "list", "--json").stdout)[0]["id"]
    plans = [s for s in subjects(repo, env, session) if " plan" in s]
    assert plans[1] == "teddy: 01 plan: Add login form"
    assert plans[0].startswith("teddy: 02 plan: Add the login form, with validation")
    assert plans[0].endswith("...") and len(plans[0]) <= len("teddy: 02 plan: ") + 60


def test_cost_trailer_is_a_plain_decimal(
    repo: Path, teddy: Teddy, env: dict, openai_server: OpenAIServer
) -> None:
    # 1234 in and 56 out at gpt-4o-mini's price is 0.00021869999999999998 as a float sum
    openai_server.push(model_reply(plan_text(create("one.txt", "1\n")), 1234, 56))
    env.update(openai_server.env(model="gpt-4o-mini"))
    session = teddy.ok(repo, "new", "cost").stdout.strip()
    planned = teddy.ok(repo, "plan", "-m", "go")
    assert "$0.0002, 1 attempt(s)" in planned.stdout
    message = git(repo, env, "log", "-1", "--format=%B", f"teddy/{session}/main")
    assert "Teddy-Cost: 0.0002187\n" in message, message
    record = yaml.safe_load(git(repo, env, "show", f"teddy/{session}/main:01/turn.yaml"))
    assert record["cost"] == 0.0002187


def test_unknown_cost_is_said_unknown(
    repo: Path, teddy: Teddy, env: dict, openai_server: OpenAIServer
) -> None:
    openai_server.push(model_reply(plan_text(create("one.txt", "1\n")), 1000, 100))
    env.update(openai_server.env(model="a-model-without-a-price"))
    ran = teddy.ok(repo, "start", "priceless", "--yolo", "-m", "go", "--max-turns", "1")
    assert "1000 in, 100 out, cost unknown" in ran.stdout + ran.stderr
    assert "(1 turn(s), cost unknown, last turn 01)" in ran.stdout + ran.stderr
    stats = teddy.ok(repo, "stats").stdout.splitlines()
    assert "tokens        1100" in stats and "cost          unknown" in stats
    assert "$0.0000" not in teddy.ok(repo, "stats", "--group-by", "agent").stdout


# ---- the session log's wording -------------------------------------------------------------


def test_skipped_after_quit_says_stopped_by_the_user(repo: Path, teddy: Teddy, env: dict) -> None:
    session = start(repo, teddy, create("one.txt", "1\n"), create("two.txt", "2\n"))
    child = pexpect.spawn(
        "git", ["teddy", "execute"], cwd=str(repo), env=env, encoding="utf-8", timeout=EVENT_TIMEOUT
    )
    child.expect(r"\[q\]uit")
    child.sendline("q")
    child.expect(pexpect.EOF)
    child.close()
    logs = report_of(repo, env, session)["action_logs"]
    assert [a["reason"] for a in logs] == ["the user quit", "skipped: stopped by the user"]
    shown = teddy.ok(repo, "show").stdout
    assert "CREATE two.txt → skipped: stopped by the user" in shown
    assert "an earlier action failed" not in shown


def test_a_reply_is_the_next_message_only_when_it_was(repo: Path, teddy: Teddy, env: dict) -> None:
    teddy.ok(repo, "new", "chat")
    plan_file = repo.parent / "plan.md"
    question = titled("Ask", chat("Which name?"))
    for message in ("start", "a different message"):
        plan_file.write_text(question)
        teddy.ok(repo, "plan", "-m", message, "--from-file", str(plan_file))
        child = pexpect.spawn(
            "git",
            ["teddy", "execute"],
            cwd=str(repo),
            env=env,
            encoding="utf-8",
            timeout=EVENT_TIMEOUT,
        )
        child.expect(r"\[q\]uit")
        child.sendline("y")
        child.expect("Your reply")
        child.sendline("bob")
        child.expect(pexpect.EOF)
        child.close()
    pending = teddy.ok(repo, "show").stdout
    assert "“Which name?”; the next turn was planned from another message" in pending
    assert pending.count("it became the next turn's message") == 0
    plan_file.write_text(titled("Name it", create("name.txt", "bob\n")))
    teddy.ok(repo, "plan", "-m", "bob", "--from-file", str(plan_file))
    shown = teddy.ok(repo, "show").stdout
    assert shown.count("“Which name?”; it became the next turn's message") == 1
    assert shown.count("the next turn was planned from another message") == 1


# ---- resume --------------------------------------------------------------------------------


def test_resume_shows_where_it_resumes(repo: Path, teddy: Teddy, replies: Path) -> None:
    queue(replies, plan_text(CONCLUDE), titled("Tidy up", CONCLUDE))
    session = teddy.ok(repo, "new", "resumed").stdout.strip()
    plan_file = repo.parent / "plan.md"
    plan_file.write_text(titled("Add one", create("one.txt", "1\n")))
    teddy.ok(repo, "plan", "-m", "add the\none file", "--from-file", str(plan_file))
    teddy.ok(repo, "pause")
    first = teddy.ok(repo, "resume", "--yolo").stdout.splitlines()
    assert first[:4] == [
        f"resuming {session} at turn 01 (paused, branch main)",
        "  turn 01 (@dev@1.0, planned): Add one",
        "  its message: add the one file",
        "  pending: turn 01's plan has no report; it is executed first",
    ]
    teddy.ok(repo, "pause")
    again = teddy.ok(repo, "resume", "--yolo", "-m", "tidy").stdout.splitlines()
    assert again[:4] == [
        f"resuming {session} at turn 02 (paused, branch main)",
        "  turn 02 (@dev@1.0, success): A plan",
        f"  its message: {CONTINUE_MESSAGE}",
        "  pending: nothing; the next turn is planned from your message",
    ]


# ---- teddy.apply=ask -----------------------------------------------------------------------


def test_apply_ask_shows_the_change_before_asking(repo: Path, teddy: Teddy, env: dict) -> None:
    long = "".join(f"line {n}\n" for n in range(300))
    start(repo, teddy, create("notes.txt", long), edit("app.py", "print('hello')", "print('hi')"))
    git(repo, env, "config", "teddy.apply", "ask")
    child = pexpect.spawn(
        "git", ["teddy", "execute"], cwd=str(repo), env=env, encoding="utf-8", timeout=EVENT_TIMEOUT
    )
    child.expect(r"\[q\]uit")
    child.sendline("a")
    child.expect(r"Apply the result to your working tree\? \[Y/n\]")
    shown = child.before.replace("\r\n", "\n")
    child.sendline("n")
    child.expect(pexpect.EOF)
    child.close()
    change = shown[shown.index("The change to apply:") :]
    assert " app.py    |   2 +-\n notes.txt | 300 ++++" in change
    assert " 2 files changed, 301 insertions(+), 1 deletion(-)" in change
    assert "-print('hello')\n+print('hi')\n" in change
    assert "+line 150\n" in change and "+line 299\n" not in change  # cut, and said so
    assert "more line(s); the whole change: git diff " in change
    assert not (repo / "notes.txt").exists()  # declined: nothing applied


# ---- show with embedded subagents ----------------------------------------------------------


def test_show_expands_embedded_subagents(
    repo: Path, teddy: Teddy, env: dict, replies: Path
) -> None:
    queue(replies, plan_text(INVOKE), titled("Write it", CONCLUDE))
    git(repo, env, "config", "teddy.subagentMode", "embed")
    session = teddy.ok(repo, "new", "embeds").stdout.strip()
    teddy.ok(repo, "continue", "--yolo", "-m", "delegate", "--max-turns", "2")
    log = git(repo, env, "show", f"teddy/{session}/main:session.md")
    assert f"> ![[{session}.02-dev]]" in log  # the file keeps the embed, as Obsidian reads it
    shown = teddy.ok(repo, "show").stdout
    assert f"![[{session}" not in shown
    assert f"   ▌ embedded: {session}.02-dev\n   ▌ ── 02 · Write it  @dev@1.0 #cli" in shown
    assert "   ▌ ✔ CONCLUDE → control returns to the invoking agent" in shown
