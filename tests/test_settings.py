"""The settings registry: every `teddy.*` key declared once, a bad value stopping a command
before it does anything, git's number suffixes, `git teddy config` saying where each value
comes from, and every key in the code registered and documented."""

import ast
import json
import re
from pathlib import Path
from typing import get_args

import pytest

from git_teddy.artifacts.sessionlog.model import SubagentMode
from git_teddy.errors import TeddyError
from git_teddy.llm import provider_from_settings
from git_teddy.settings import (
    CONTEXT_WINDOW,
    PROVIDER,
    REGISTRY,
    RETRY_DELAY,
    SUBAGENT_MODE,
    Settings,
    env_name,
    is_template,
    registered,
)
from testing.commands import Teddy, git, run
from testing.llm_servers import OpenAIServer
from testing.plans import execute, plan_text
from testing.scripted_ui import ScriptedUI

ROOT = Path(__file__).resolve().parent.parent
# A key as code and docs spell it: not part of a longer name (git_teddy.hooks is a module).
KEY_IN_TEXT = re.compile(r"(?<![\w.])teddy\.[A-Za-z][\w.<>:-]*[\w>]")


def tip(repo: Path, env: dict[str, str], session: str) -> str:
    return git(repo, env, "rev-parse", f"teddy/{session}/main").strip()


def files_at(repo: Path, env: dict[str, str], commit: str) -> list[str]:
    return git(repo, env, "ls-tree", "-r", "--name-only", commit).split()


# ---- a bad value stops a command before it acts -----------------------------------------------


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("teddy.execute.timeout", "-5", "must be a whole number from 1 to 604800, not '-5'"),
        ("teddy.apply", "sometimes", "must be auto, ask or never, not 'sometimes'"),
        (
            "teddy.execute.outputCap",
            "lots",
            "must be a whole number from 1 to 100000000, not 'lots'",
        ),
    ],
)
@pytest.mark.parametrize("where", ["git config", "environment"])
def test_a_bad_value_stops_execute_before_anything_runs(
    repo: Path, teddy: Teddy, env: dict[str, str], key: str, value: str, message: str, where: str
) -> None:
    session = teddy.ok(repo, "new", "guarded").stdout.strip()
    plan = repo.parent / "plan.md"
    plan.write_text(plan_text(execute("touch ran.txt")))
    teddy.ok(repo, "plan", "-m", "run it", "--from-file", str(plan))
    planned = tip(repo, env, session)
    variable = env_name(key)
    if where == "git config":
        git(repo, env, "config", key, value)
        said = f"error: {key} {message}\nhint: fix it with `git config {key} "
    else:
        env[variable] = value
        said = f"error: {key} (set by {variable}) {message}\nhint: fix or unset {variable} "

    result = teddy(repo, "execute", "-y")
    assert result.returncode == 1
    assert result.stderr.startswith(said), result.stderr
    assert tip(repo, env, session) == planned  # no report commit
    assert "01/report.md" not in files_at(repo, env, planned)
    assert not (repo / "ran.txt").exists()
    assert len(git(repo, env, "worktree", "list").splitlines()) == 1  # no scratch worktree

    # The same turn runs once the value is fixed: the command was stopped, not the plan.
    env.pop(variable, None)
    if where == "git config":
        git(repo, env, "config", "--unset-all", key)
    teddy.ok(repo, "execute", "-y")
    assert (repo / "ran.txt").exists()
    assert "01/report.md" in files_at(repo, env, tip(repo, env, session))


def test_bad_retries_stop_plan_before_the_model_is_asked(
    repo: Path, teddy: Teddy, env: dict[str, str], openai_server: OpenAIServer
) -> None:
    env.update(openai_server.env(model="gpt-4o"))
    session = teddy.ok(repo, "new", "careful").stdout.strip()
    before = tip(repo, env, session)
    git(repo, env, "config", "teddy.maxRetries", "-5")
    result = teddy(repo, "plan", "-m", "say hello")
    assert result.returncode == 1
    assert result.stderr.startswith(
        "error: teddy.maxRetries must be a whole number from 0 to 20, not '-5'\nhint: "
    )
    assert openai_server.requests == []
    assert tip(repo, env, session) == before


def test_the_fast_paths_refuse_a_bad_value_too(
    repo: Path, teddy: Teddy, env: dict[str, str]
) -> None:
    teddy.ok(repo, "new", "fast")
    for args in (["list"], ["context"], ["context"]):  # the index and the context cache
        teddy.ok(repo, *args)
    env["TEDDY_CONTEXT_WINDOW"] = "lots"
    for args in (["list"], ["stats"], ["context"], ["context", "--json"]):
        result = teddy(repo, *args)
        assert result.returncode == 1, args
        assert result.stderr.startswith(
            "error: teddy.contextWindow (set by TEDDY_CONTEXT_WINDOW) must be a whole number"
        ), args


# ---- reading values ---------------------------------------------------------------------------


@pytest.mark.parametrize("raw", ["7", "+7", "1k", "2K", "3m", "1g", "128000"])
def test_whole_numbers_read_as_git_reads_them(repo: Path, env: dict[str, str], raw: str) -> None:
    git(repo, env, "config", "teddy.contextWindow", raw)
    by_git = int(git(repo, env, "config", "--type=int", "teddy.contextWindow"))
    settings = Settings({"teddy.contextwindow": [raw]}, {})
    assert settings.integer(CONTEXT_WINDOW) == by_git


@pytest.mark.parametrize("raw", ["1.5", "1kb", "k", "ten", "1 k", ""])
def test_what_git_rejects_as_a_number_is_rejected(
    repo: Path, env: dict[str, str], raw: str
) -> None:
    git(repo, env, "config", "teddy.contextWindow", raw)
    by_git = run(["git", "config", "--type=int", "teddy.contextWindow"], repo, env)
    assert by_git.returncode != 0
    with pytest.raises(TeddyError, match=r"teddy\.contextWindow must be a whole number"):
        Settings({"teddy.contextwindow": [raw]}, {}).integer(CONTEXT_WINDOW)


@pytest.mark.parametrize("raw", ["-1", "soon", "nan", "inf", "2k"])
def test_seconds_with_fractions_must_be_finite_and_not_negative(raw: str) -> None:
    assert Settings({"teddy.retrydelay": ["0.25"]}, {}).number(RETRY_DELAY) == 0.25
    with pytest.raises(
        TeddyError, match=r"teddy\.retryDelay must be a number of seconds from 0 to 600"
    ):
        Settings({"teddy.retrydelay": [raw]}, {}).number(RETRY_DELAY)


def test_a_size_suffix_reaches_the_context(repo: Path, teddy: Teddy, env: dict[str, str]) -> None:
    (repo / ".teddy").mkdir()
    (repo / ".teddy" / "global.context").write_text("big.txt\n")
    (repo / "big.txt").write_text("word " * 1000)
    teddy.ok(repo, "new", "sized")

    def note() -> str:
        (row,) = json.loads(teddy.ok(repo, "context", "--json").stdout)["resources"]
        return str(row["note"])

    git(repo, env, "config", "teddy.maxResourceBytes", "1k")
    assert note() == "cut at 1024 of 5000 bytes (teddy.maxResourceBytes)"
    env["TEDDY_MAX_RESOURCE_BYTES"] = "2K"
    assert note() == "cut at 2048 of 5000 bytes (teddy.maxResourceBytes)"


# ---- git teddy config -------------------------------------------------------------------------


def test_config_says_where_each_value_comes_from(
    repo: Path, teddy: Teddy, env: dict[str, str]
) -> None:
    git(repo, env, "config", "--add", "teddy.channel", "web")
    git(repo, env, "config", "--add", "teddy.channel", "ops")  # the last value wins
    git(repo, env, "config", "--add", "teddy.worktree.link", ".venv")
    git(repo, env, "config", "--add", "teddy.worktree.link", "node_modules")
    git(repo, env, "config", "teddy.maxResourceBytes", "1")
    git(repo, env, "config", "teddy.price.gpt-4o.input", "2")
    git(repo, env, "config", "teddy.aply", "never")  # a typo
    env["TEDDY_MAX_RESOURCE_BYTES"] = "1k"  # the environment wins over git config

    data = json.loads(teddy.ok(repo, "config", "--json").stdout)
    by_key = {entry["key"]: entry for entry in data["settings"]}
    assert {s.key for s in REGISTRY if not is_template(s)} <= set(by_key)
    assert (by_key["teddy.channel"]["value"], by_key["teddy.channel"]["origin"]) == (
        "ops",
        "git config",
    )
    retries = by_key["teddy.maxResourceBytes"]
    assert (retries["value"], retries["origin"], retries["env"]) == (
        1024,
        "environment",
        "TEDDY_MAX_RESOURCE_BYTES",
    )
    assert (by_key["teddy.apply"]["value"], by_key["teddy.apply"]["origin"]) == ("auto", "default")
    assert by_key["teddy.worktree.link"]["value"] == [".venv", "node_modules"]
    assert by_key["teddy.price.gpt-4o.input"]["value"] == 2.0
    assert by_key["teddy.price.<model>.output"]["origin"] == "default"
    assert all(entry["problem"] is None for entry in data["settings"])
    assert data["unknown"] == ["teddy.aply"]

    text = teddy.ok(repo, "config").stdout
    rows = {line.split()[0]: line.split()[1:] for line in text.splitlines() if line.strip()}
    assert rows["teddy.maxResourceBytes"] == ["1024", "TEDDY_MAX_RESOURCE_BYTES"]
    assert rows["teddy.channel"] == ["ops", "git", "config"]
    assert rows["teddy.apply"] == ["auto", "default"]
    assert "note: teddy.aply is set in git config, but git-teddy reads no such setting" in text


def test_config_lists_a_bad_value_as_bad(repo: Path, teddy: Teddy, env: dict[str, str]) -> None:
    git(repo, env, "config", "teddy.apply", "sometimes")
    env["TEDDY_TIMEOUT"] = "-5"
    result = teddy(repo, "config")
    assert result.returncode == 1
    lines = {line.split()[0]: line for line in result.stdout.splitlines() if line.strip()}
    assert {s.key for s in REGISTRY if not is_template(s)} <= set(lines)
    assert lines["teddy.apply"].split()[1:4] == ["sometimes", "git", "config"]
    assert lines["teddy.apply"].endswith("  bad: must be auto, ask or never")
    assert lines["teddy.timeout"].split()[1:3] == ["-5", "TEDDY_TIMEOUT"]
    assert lines["teddy.timeout"].endswith("  bad: must be a whole number from 1 to 86400")
    assert lines["teddy.model"].split() == ["teddy.model", "(none)", "default"]
    assert result.stderr.startswith("error: 2 settings have bad values: teddy.timeout, teddy.apply")

    data = json.loads(teddy(repo, "config", "--json").stdout)
    (apply,) = [entry for entry in data["settings"] if entry["key"] == "teddy.apply"]
    assert apply["value"] == "sometimes"
    assert apply["problem"] == "teddy.apply must be auto, ask or never, not 'sometimes'"


# ---- the registry, the code and the docs ------------------------------------------------------


def keys_in_code() -> dict[str, list[str]]:
    """Every `teddy.<key>` in a string of git_teddy/ (docstrings and f-string parts too) ->
    where it is."""
    found: dict[str, list[str]] = {}
    for path in sorted((ROOT / "git_teddy").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                for key in KEY_IN_TEXT.findall(node.value):
                    where = f"{path.relative_to(ROOT)}:{node.lineno}"
                    found.setdefault(key, []).append(where)
    return found


def test_every_key_the_code_names_is_registered() -> None:
    found = keys_in_code()
    assert "teddy.execute.timeout" in found and "teddy.refPrefix" in found  # the scan works
    unregistered = {key: where for key, where in found.items() if registered(key) is None}
    assert not unregistered, "declare these in git_teddy/settings.py"


def test_every_setting_is_declared_once_and_documented() -> None:
    keys = [s.key.lower() for s in REGISTRY]
    assert len(set(keys)) == len(keys)
    assert len({s.env for s in REGISTRY}) == len(REGISTRY)
    man = (ROOT / "docs" / "git-teddy.1").read_text(encoding="utf-8")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme[readme.index("<!-- BEGIN SETTINGS") : readme.index("<!-- END SETTINGS")]
    for setting in REGISTRY:
        assert setting.help.strip().endswith("."), setting.key
        assert f"\n.B {setting.key}\n" in man, setting.key
        assert f"Environment: \\fB{setting.env}\\fR." in man, setting.key
        assert f"| `{setting.key}` |" in table, setting.key
    assert "See the command that uses it" not in man


def test_the_choices_are_the_ones_the_code_handles(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert SUBAGENT_MODE.choices == get_args(SubagentMode)
    replies = tmp_path / "replies"
    replies.mkdir()
    monkeypatch.setenv("LLM_USER_PATH", str(tmp_path / "llm"))  # llm's own folder, empty
    for choice in PROVIDER.choices:
        git_values = {
            "teddy.provider": [choice],
            "teddy.model": ["gpt-4o"],  # a model of llm's own OpenAI plugin too
            "teddy.replaydir": [str(replies)],
        }
        made = provider_from_settings(
            Settings(git_values, {}), tmp_path, {"TEDDY_API_KEY": "k"}, ui=ScriptedUI()
        )
        assert made.name == choice


def test_a_price_set_only_in_the_environment_is_checked_too() -> None:
    environ = {"TEDDY_PRICE_GPT-4O_INPUT": "cheap"}
    with pytest.raises(TeddyError) as caught:
        Settings({}, environ).check()
    assert caught.value.message == (
        "teddy.price.gpt-4o.input (set by TEDDY_PRICE_GPT-4O_INPUT) must be a price in USD per "
        "million tokens from 0 to 1e+06, not 'cheap'"
    )
    assert Settings({}, {"TEDDY_PRICE_GPT-4O_INPUT": "2.5"}).price("GPT-4o", "input") == 2.5
