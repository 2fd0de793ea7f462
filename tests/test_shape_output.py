"""Issue 13, output conventions: colour decided as git decides (`--color=WHEN` on the command
line, then git config color.teddy, then color.ui, then NO_COLOR, then auto: a terminal), and
`-q` silencing progress lines but not results. Every run here is piped, so auto means none."""

from pathlib import Path

from testing.commands import Teddy, git, run
from testing.plans import CONCLUDE, plan_text

ESC = "\x1b["


def shown(repo: Path, env: dict, *args: str, extra_env: dict | None = None) -> str:
    """`git [-c ...] teddy ... show` piped; args before `teddy` are git's own."""
    split = args.index("teddy")
    result = run(
        ["git", *args[:split], "teddy", *args[split + 1 :]],
        cwd=repo,
        env={**env, **(extra_env or {})},
    )
    assert result.returncode == 0, result.stderr
    assert "Session log of" in result.stdout  # the coloured part is there, plain or not
    return result.stdout


def fsck(repo: Path, env: dict) -> None:
    git(repo, env, "fsck", "--strict")


def test_color_flag_config_and_no_color_precedence(repo: Path, teddy: Teddy, env: dict) -> None:
    teddy.ok(repo, "new", "work")
    assert ESC not in shown(repo, env, "teddy", "show")  # piped, auto: plain
    assert ESC in shown(repo, env, "teddy", "--color=always", "show")
    assert ESC in shown(repo, env, "teddy", "show", "--color=always")
    # The command line wins over config and NO_COLOR, as git's --color does.
    ui_never = ("-c", "color.ui=never", "teddy")
    assert ESC in shown(repo, env, *ui_never, "--color=always", "show", extra_env={"NO_COLOR": "1"})
    assert ESC not in shown(repo, env, *ui_never, "--color=auto", "show")
    assert ESC not in shown(repo, env, "-c", "color.ui=always", "teddy", "--color=never", "show")
    # The command's own --color is parsed after the group's: it wins.
    assert ESC not in shown(repo, env, "teddy", "--color=always", "show", "--color=never")
    # Config: color.teddy before color.ui; a boolean true means auto (piped: none).
    assert ESC in shown(
        repo, env, "-c", "color.ui=never", "-c", "color.teddy=always", "teddy", "show"
    )
    assert ESC not in shown(
        repo, env, "-c", "color.ui=always", "-c", "color.teddy=never", "teddy", "show"
    )
    assert ESC not in shown(repo, env, "-c", "color.ui=true", "teddy", "show")
    assert ESC in shown(repo, env, "-c", "color.ui=always", "teddy", "show")
    # git 2.39 ignores NO_COLOR (`NO_COLOR=1 git -c color.ui=always log | cat` is coloured);
    # we honour it only where git would fall back to auto, so explicit config still wins.
    no_color = {"NO_COLOR": "1"}
    assert ESC in shown(repo, env, "-c", "color.teddy=always", "teddy", "show", extra_env=no_color)
    assert ESC in shown(repo, env, "-c", "color.ui=always", "teddy", "show", extra_env=no_color)
    assert ESC not in shown(repo, env, "teddy", "show", extra_env=no_color)
    # An empty NO_COLOR is not set: always from config colours, as without it.
    assert ESC in shown(
        repo, env, "-c", "color.ui=always", "teddy", "show", extra_env={"NO_COLOR": ""}
    )
    fsck(repo, env)


def test_a_bad_color_value_is_a_usage_error(repo: Path, teddy: Teddy, env: dict) -> None:
    teddy.ok(repo, "new", "work")
    result = teddy(repo, "--color=sometimes", "show")
    assert result.returncode == 2 and "sometimes" in result.stderr
    assert "Traceback" not in result.stderr
    fsck(repo, env)


def test_quiet_hides_progress_but_not_results(repo: Path, teddy: Teddy, env: dict) -> None:
    """The manual provider tells where the request is (progress), then the plan is printed."""
    teddy.ok(repo, "new", "work")
    manual = ("-c", "teddy.provider=manual", "teddy")
    loud = run(["git", *manual, "plan", "-m", "finish"], repo, env, input=plan_text(CONCLUDE))
    assert loud.returncode == 0, loud.stderr
    assert "the request for the model is in" in loud.stderr
    assert "CONCLUDE" in loud.stdout
    again = teddy.ok(repo, "new", "again").stdout.strip()  # the first plan awaits execution
    quiet = run(
        ["git", *manual, "-q", "plan", "-s", again, "-m", "finish"],
        repo,
        env,
        input=plan_text(CONCLUDE),
    )
    assert quiet.returncode == 0, quiet.stderr
    assert "the request for the model is in" not in quiet.stderr
    assert "paste the model's reply" not in quiet.stderr
    assert "CONCLUDE" in quiet.stdout
    fsck(repo, env)
