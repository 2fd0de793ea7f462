"""A session with everything the session log records, made with the real executable and a
local OpenAI-compatible server as the model (shared by the session log, codify and learn
tests):

- turn 01 (pathfinder, by -a): the first reply is not a valid plan (repaired by a retry); memos are
  approved; `EXECUTE python check.py` fails;
- turn 02: the user rejects `CREATE extra.txt` with a reason; the fix (EDIT) and the same
  `EXECUTE python check.py` succeed, which resolves turn 01's failure;
- turn 03: CHAT_WITH_USER, and the user replies;
- turn 04: INVOKE architect; turn 05 (architect, a subagent): CONCLUDE;
- turn 06 (pathfinder again): CREATE done.txt.
"""

import fcntl
import json
from dataclasses import dataclass
from pathlib import Path

import pexpect

from testing.commands import Teddy, git
from testing.llm_servers import OpenAIServer, model_reply
from testing.repos import make_repo
from testing.sealed import sealed_env
from testing.templates import copy_template
from testing.waits import EVENT_TIMEOUT

SESSION = "20261126-story"
CHECK_FAILING = "import sys\nsys.exit('check failed: VALUE is 1')\n"
CHECK_PASSING = "print('check passed')\n"


def rationale(justification: str, dashboard: str) -> str:
    return (
        "## Rationale\n````text\n### 1. Synthesis\nWhere we are.\n"
        f"### 2. Justification\n{justification}\n### 3. Expected Outcome\nIt works.\n"
        f"### 4. State Dashboard\n{dashboard}\n````\n"
    )


def plan(title: str, agent: str, justification: str, actions: str, memos: str = "") -> str:
    memo_block = f"## Memos\n````\n{memos}\n````\n\n" if memos else ""
    dashboard = "- [x] Understand the task\n- [ ] Ship it"
    return (
        f"# {title}\n- **Status:** Green 🟢\n- **Plan Type:** Implementation\n"
        f"- **Agent:** {agent}\n\n{rationale(justification, dashboard)}\n{memo_block}"
        f"## Action Plan\n\n{actions}"
    )


def create(path: str, content: str) -> str:
    return (
        f"### `CREATE`\n- **File Path:** [{path}](/{path})\n- **Description:** New file.\n"
        f"````\n{content}````\n"
    )


def execute(command: str) -> str:
    return (
        "### `EXECUTE`\n- **Description:** Run the check.\n- **Expected Outcome:** It passes.\n"
        f"````shell\n{command}\n````\n"
    )


EDIT_CHECK = (
    "### `EDIT`\n- **File Path:** [check.py](/check.py)\n- **Description:** Pass.\n\n"
    f"`FIND:`\n````\n{CHECK_FAILING.rstrip()}\n````\n`REPLACE:`\n````\n{CHECK_PASSING.rstrip()}\n````\n"
)

REPLIES = [
    "This is not a plan at all.\n",
    plan(
        "Add a checker",
        "Pathfinder",
        "A check script makes the goal testable.",
        create("check.py", CHECK_FAILING) + "\n" + execute("python check.py"),
        memos="[+] Run python check.py before concluding. # the project's test",
    ),
    plan(
        "Fix the checker",
        "Pathfinder",
        "The check failed on purpose; make it pass.",
        create("extra.txt", "extra\n") + "\n" + EDIT_CHECK + "\n" + execute("python check.py"),
    ),
    plan(
        "Ask about the release",
        "Pathfinder",
        "Only the user knows the release date.",
        "### `CHAT_WITH_USER`\nShould I prepare a release?\n",
    ),
    plan(
        "Hand the design to the architect",
        "Pathfinder",
        "The release needs a design first.",
        "### `INVOKE`\n- **Agent:** Architect\n\nDesign the release steps.\n",
    ),
    plan(
        "Design the release",
        "Architect",
        "A two-step release is enough.",
        "### `CONCLUDE`\nRelease design: tag, then publish.\n",
    ),
    plan(
        "Record the release plan",
        "Pathfinder",
        "The architect concluded; write it down.",
        create("done.txt", "tag, then publish\n"),
    ),
]
MESSAGES = {
    "01": "Add a checker script",
    "02": "Fix the checker",
    "03": "What next?",
    "04": "Plan the release",
    "05": "Go on",
    "06": "Write it down",
}
MODEL = "gpt-4o"
# (tokens in, tokens out) of each reply, in the order of REPLIES
USAGE = [(1000 * n, 100 * n) for n in range(1, len(REPLIES) + 1)]
REJECTION_REASON = "keep the tree small"
CHAT_REPLY = 'yes, a "minor" release'
MEMO = "[+] Run python check.py before concluding."


def make_story(repo: Path, teddy: Teddy, env: dict[str, str], server: OpenAIServer) -> str:
    """Play the story in `repo`; returns the session id."""
    env.update(server.env(model=MODEL))
    for text, (tokens_in, tokens_out) in zip(REPLIES, USAGE, strict=True):
        server.push(model_reply(text, tokens_in, tokens_out))
    session = teddy.ok(repo, "new", "story").stdout.strip()
    assert session == SESSION
    teddy.ok(repo, "plan", "-m", MESSAGES["01"], "-a", "pathfinder")  # then it goes on
    failed = teddy(repo, "execute", "-y")
    assert "FAILURE" in failed.stdout + failed.stderr, failed
    teddy.ok(repo, "plan", "-m", MESSAGES["02"])
    _interactive(repo, env, ["n", REJECTION_REASON, "y", "y"])
    teddy.ok(repo, "plan", "-m", MESSAGES["03"])
    _interactive(repo, env, ["y", CHAT_REPLY])
    for turn in ("04", "05", "06"):
        teddy.ok(repo, "plan", "-m", MESSAGES[turn])
        teddy.ok(repo, "execute", "-y")
    git(repo, env, "status", "--short")  # the user's tree is still a repository
    return session


def _interactive(repo: Path, env: dict[str, str], answers: list[str]) -> None:
    """`git teddy execute` in a terminal, answering each prompt in turn, then applying."""
    child = pexpect.spawn(
        "git", ["teddy", "execute"], cwd=str(repo), env=env, encoding="utf-8", timeout=EVENT_TIMEOUT
    )
    for answer in answers:
        child.expect([r"\[q\]uit", "Reason", "Your reply"])
        child.sendline(answer)
    while child.expect([r"Apply the result", pexpect.EOF]) == 0:
        child.sendline("y")
    child.close()
    assert child.exitstatus == 0, child.before


@dataclass
class Story:
    repo: Path
    env: dict[str, str]
    teddy: Teddy
    session: str

    def file(self, path: str) -> str:
        return git(self.repo, self.env, "show", f"teddy/{self.session}/main:{path}")


def play_story(root: Path) -> Story:
    """The story in a new repository under `root`, with its own sealed env (for fixtures
    that play it once per module)."""
    home = root / "home"
    home.mkdir()
    env = sealed_env(home)
    repo = make_repo(root / "repo", env, {"README.md": "# demo\n"})
    teddy = Teddy(env)
    with OpenAIServer() as server:
        session = make_story(repo, teddy, env, server)
    for name in ("TEDDY_PROVIDER", "TEDDY_BASE_URL", "TEDDY_MODEL", "OPENAI_API_KEY"):
        env.pop(name, None)  # that server is gone: codify must not need a model
    return Story(repo, env, teddy, session)


def copy_story(story: Story, root: Path) -> Story:
    """A copy of a played story in `root` (empty or new), so a module that changes its
    repository gets its own and the story is played once per test process. The copied
    scratch worktrees (in the story's HOME's cache) are left out: git's records of them in
    the copy name folders that are not there, which the copy's first execute forgets."""
    env = copy_template(story.repo.parent, root, story.env)
    return Story(root / story.repo.name, env, Teddy(env), story.session)


def play_story_once(folder: Path) -> Story:
    """The story played in `folder` by the first test process to ask for it (pytest-xdist's
    workers share the folder), under a lock: the others wait for it, then read it. Nothing may
    change it: a module copies it first (copy_story)."""
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        played = folder / "played.json"
        if not played.exists():
            story = play_story(folder)
            record = {"repo": str(story.repo), "env": story.env, "session": story.session}
            played.write_text(json.dumps(record))
        record = json.loads(played.read_text())
    env = record["env"]
    return Story(Path(record["repo"]), env, Teddy(env), record["session"])
