"""Issue 28, done when: the README's quick start runs line by line as written, so it cannot
drift from what works.

Each line of the quick start's code block runs in one bash, in order, with `set -e`: a line
that fails stops the test and is named. The model is the stand-in OpenAI server on 127.0.0.1:
the environment holds what a user's would (`OPENAI_API_KEY`, no teddy setting) plus
`TEDDY_BASE_URL` pointing at the server, and the date is the README's (2026-11-26), so the
session id it prints is the one its later lines name. `myproject` is a repository with a
commit and an `origin` (a bare repository), as a user's project is. The `pip install` lines
are checked to install this project and not run: `make test` installed it in the test's
environment (`pip install -e '.[test,map]'`), which is on PATH."""

import re
import shlex
from pathlib import Path

from testing.commands import git, run
from testing.llm_servers import OpenAIServer, model_reply
from testing.plans import CONCLUDE, create, plan_text
from testing.repos import make_repo

README = Path(__file__).resolve().parent.parent / "README.md"
CHAT = "### `CHAT_WITH_USER`\nShall I add a logout endpoint too?\n"


def quick_start(readme: str) -> list[str]:
    """The lines of the first ```sh block under `## Quick start`."""
    section = readme.split("\n## Quick start\n", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, re.DOTALL)
    assert block, "the quick start has no ```sh block"
    return [line for line in block.group(1).splitlines() if line.strip()]


def test_the_readme_quick_start_runs_line_by_line(
    tmp_path: Path, env: dict, openai_server: OpenAIServer
) -> None:
    lines = quick_start(README.read_text())
    installs = [line for line in lines if line.startswith("pip install")]
    assert installs and all(
        shlex.split(line.split("#")[0])[2] in (".", ".[map]") for line in installs
    )

    origin = tmp_path / "origin.git"
    git(tmp_path, env, "init", "-q", "--bare", str(origin))
    app = "".join(f"print({n})\n" for n in range(1, 21))  # `blame app.py:12` needs a line 12
    project = make_repo(tmp_path / "myproject", env, {"app.py": app})
    git(project, env, "remote", "add", "origin", str(origin))
    git(project, env, "push", "-q", "origin", "HEAD")

    login = plan_text(create("login.py", "def login():\n    return 'ok'\n"))
    openai_server.push(
        model_reply(login),  # plan -m: turn 01
        model_reply(plan_text(CHAT)),  # continue --yolo: the model asks the user
        model_reply(plan_text(CONCLUDE)),  # branch 02 -m
    )
    openai_server.default = model_reply(plan_text(CONCLUDE))
    user_env = env | {
        "OPENAI_API_KEY": "sk-quickstart-0123456789",
        "TEDDY_BASE_URL": openai_server.url,
        "TEDDY_RETRY_DELAY": "0.01",
        "GIT_COMMITTER_DATE": "2026-11-26T12:00:00+00:00",
        "GIT_AUTHOR_DATE": "2026-11-26T12:00:00+00:00",
    }
    steps = [line for line in lines if not line.startswith("pip install")]
    script = "\n".join(
        ["set -e", "trap 'echo \"quick start line failed: $BASH_COMMAND\" >&2' ERR", *steps]
    )
    result = run(["bash", "-c", script], cwd=tmp_path, env=user_env, input="")
    assert result.returncode == 0, f"{result.stdout}\n{result.stderr}"
    assert "20261126-add-user-auth" in result.stdout
    assert "planning with openai gpt-4.1 (OPENAI_API_KEY is set)" in result.stderr
    assert len(openai_server.requests) >= 3  # plan, continue and branch: only the key was set
    assert (project / "login.py").read_text() == "def login():\n    return 'ok'\n"  # restore 01
