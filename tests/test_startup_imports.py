"""Start-up cost of the per-turn commands (issue 16): what each one imports, run as the
installed command runs. Each module named here costs every turn milliseconds that
benchmarks/bench_startup.py measures; these tests keep them out of the commands that do
not use them."""

import json
import os
import subprocess
import sys
from pathlib import Path

from git_teddy.secret_formats import library_patterns
from testing.commands import Teddy, imported_modules
from testing.plans import execute
from testing.sessions import start

PLAN = """# Greet
- **Agent:** Dev

## Rationale
````text
### 1. Synthesis
Text.
### 2. Justification
Text.
### 3. Expected Outcome
Text.
### 4. State Dashboard
Text.
````

## Action Plan

### `EDIT`
- **File Path:** [app.py](/app.py)
- **Description:** Say hi.

`FIND:`
```
print('hello')
```
`REPLACE:`
```
print('hi')
```
"""

PLAN_PARSER = {"commonmark", "git_teddy.artifacts.plan.parse", "git_teddy.artifacts.plan.fences"}


def test_new_loads_no_plan_parser_and_no_redactor(repo: Path, env: dict[str, str]) -> None:
    output, modules = imported_modules(repo, env, "new", "lean")
    assert output.strip().endswith("-lean")
    assert "git_teddy.session.logfiles" in modules  # the session log was written
    assert not modules & (PLAN_PARSER | {"git_teddy.redact"})
    # nor the models of plans and reports: a new session's log has no turn to read
    assert not modules & {"git_teddy.artifacts.plan.models", "git_teddy.artifacts.report"}
    # nor the patterns of plans' dashboards and of failed commands' output
    assert not modules & {"git_teddy.artifacts.sessionlog.tasks", "git_teddy.artifacts.output"}


def test_a_turn_without_commands_loads_no_worktree_module(
    repo: Path, env: dict[str, str], teddy: Teddy, tmp_path: Path
) -> None:
    teddy.ok(repo, "new", "lean")
    plan = tmp_path / "plan.md"
    plan.write_text(PLAN)
    teddy.ok(repo, "plan", "-m", "greet", "--from-file", str(plan))
    _output, modules = imported_modules(repo, env, "execute", "-y")
    assert (repo / "app.py").read_text() == "print('hi')\n"
    assert modules >= PLAN_PARSER  # the plan was read
    assert "git_teddy.gitstore.worktree" not in modules


def test_models_are_built_on_first_use(repo: Path) -> None:
    """Pydantic builds a model's validator when it is first used, not at import: a command
    pays only for the models it validates."""
    code = (
        "from git_teddy.artifacts.plan.models import Plan\n"
        "from git_teddy.artifacts.turn_record import TurnRecord\n"
        "print(Plan.__pydantic_complete__, TurnRecord.__pydantic_complete__)\n"
        "Plan.model_validate({'title': 't', 'rationale': 'r'})\n"
        "print(Plan.__pydantic_complete__)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=repo, capture_output=True, text=True, check=True
    )
    assert proc.stdout.split() == ["False", "False", "True"]


def test_the_plugin_loader_stand_in_answers_as_pydantics_with_every_plugin_disabled() -> None:
    """skip_pydantic_plugins puts a stand-in for pydantic's plugin loader: its get_plugins
    answers () as the real one does when every plugin is disabled, without importing
    importlib.metadata; any other name is the real loader's. A user's own list of disabled
    plugins keeps the real loader."""
    code = (
        "import sys\n"
        "from git_teddy.gitstore.runner import skip_pydantic_plugins\n"
        "skip_pydantic_plugins()\n"
        "import pydantic\n"
        "assert pydantic.TypeAdapter(int).validate_python('3') == 3\n"
        "from pydantic.plugin._loader import get_plugins\n"
        "print(get_plugins(), 'importlib.metadata' in sys.modules)\n"
        "from pydantic.plugin._loader import _plugins\n"
        "print('importlib.metadata' in sys.modules)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYDANTIC_DISABLE_PLUGINS"}
    run = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert run.stdout.split() == ["()", "False", "True"]
    env["PYDANTIC_DISABLE_PLUGINS"] = "some_plugin"
    run = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert run.stdout.split()[1] == "True"  # the real loader, entry points and all


# Loaded only by what uses them: a request to a model or a web page, the provider chosen, the
# detector's library when its patterns are not in the user's cache, pydantic's plugin scan.
NETWORK = ("requests", "urllib3", "charset_normalizer", "git_teddy.web.fetch")
PROVIDERS = ("git_teddy.llm.openai", "git_teddy.llm.anthropic", "git_teddy.llm.replay")
DETECTOR = ("detect_secrets",)
# pydantic's plugin loader imports importlib.metadata only to scan for plugins teddy disables
# (gitstore/runner.py skip_pydantic_plugins): a command that builds a validator loads neither.
PLUGIN_SCAN = ("importlib.metadata", "pydantic.plugin._loader", "email")


def loaded(modules: set[str], *roots: str) -> set[str]:
    """The modules of `modules` that are one of `roots` or inside one."""
    return {m for m in modules if any(m == r or m.startswith(r + ".") for r in roots)}


def test_execute_help_and_show_load_no_network_provider_or_detector(
    repo: Path, env: dict[str, str], teddy: Teddy
) -> None:
    teddy.ok(repo, "new", "lean")
    for args in (["execute", "--help"], ["show"]):
        _output, modules = imported_modules(repo, env, *args)
        assert not loaded(modules, *NETWORK, *PROVIDERS, *DETECTOR, *PLUGIN_SCAN, "commonmark"), (
            args
        )


def test_a_turn_with_the_patterns_cached_loads_no_detector_network_or_provider(
    repo: Path, env: dict[str, str], teddy: Teddy, tmp_path: Path
) -> None:
    """The first redaction of the user's first command takes detect-secrets' patterns from
    the library and keeps them in the user's cache folder; every later command compiles
    them from there (issue 31 item 4)."""
    cached = Path(env["HOME"]) / ".cache/git-teddy-secret-formats.json"
    cached.unlink()  # the sealed HOME has it warm (testing/sealed.py): a first command's is cold
    teddy.ok(repo, "new", "lean")
    plan = tmp_path / "plan.md"
    plan.write_text(PLAN)
    _output, first = imported_modules(repo, env, "plan", "-m", "greet", "--from-file", str(plan))
    assert loaded(first, *DETECTOR)  # a cold cache: taken from the library
    assert cached.is_file()
    _output, modules = imported_modules(repo, env, "execute", "-y")
    assert (repo / "app.py").read_text() == "print('hi')\n"
    assert "git_teddy.redact" in modules  # the report was redacted: with the cached patterns
    assert not loaded(modules, *NETWORK, *PROVIDERS, *DETECTOR, *PLUGIN_SCAN)
    assert "git_teddy.artifacts.failures" not in modules  # no command failed
    teddy.ok(repo, "undo")
    plan.write_text(PLAN.replace("print('hi')", "print('hey')"))
    _output, modules = imported_modules(repo, env, "plan", "-m", "hey", "--from-file", str(plan))
    assert "git_teddy.redact" in modules
    assert not loaded(modules, *NETWORK, *PROVIDERS, *DETECTOR, "git_teddy.planning.pipelines")
    assert "tomllib" not in modules  # the project has no TOML file for System Information
    assert "git_teddy.artifacts.output" not in modules  # no action failed: no output to cut


PROBE_PLUGIN = """import os, sys
with open(os.environ["TEDDY_PROBE"], "a") as probe:
    probe.write(sys.argv[0] + "\\n")


class Plugin:
    def new_schema_validator(self, *args, **kwargs):
        return None, None, None


plugin = Plugin()
"""


def test_pydantic_plugins_are_skipped_by_teddy_not_by_the_commands_it_runs(
    repo: Path, env: dict[str, str], teddy: Teddy, tmp_path: Path
) -> None:
    """pydantic loads the plugins of every installed package's `pydantic` entry points when
    it builds its first validator; git-teddy skips the scan (PYDANTIC_DISABLE_PLUGINS), and
    its EXECUTE commands still get the environment as the user gave it. A plugin that notes
    each process that loads it tells them apart."""
    site = tmp_path / "site"
    (site / "teddy_probe-0.dist-info").mkdir(parents=True)
    (site / "teddy_probe-0.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: teddy-probe\nVersion: 0\n"
    )
    (site / "teddy_probe-0.dist-info" / "entry_points.txt").write_text(
        "[pydantic]\nprobe = teddy_probe_plugin:plugin\n"
    )
    (site / "teddy_probe_plugin.py").write_text(PROBE_PLUGIN)
    probe = tmp_path / "probe.txt"
    env.update(PYTHONPATH=str(site), TEDDY_PROBE=str(probe))
    teddy = Teddy(env)
    validate = "import pydantic; pydantic.TypeAdapter(int).validate_python(1)"
    start(repo, teddy, execute(f"{sys.executable} -c '{validate}'"))
    teddy.ok(repo, "execute", "-y")
    assert probe.read_text().splitlines() == ["-c"]  # the EXECUTE command's python alone


def test_the_cached_patterns_are_the_librarys_installed_now(tmp_path: Path) -> None:
    cache = tmp_path / "cache" / "secret-formats.json"
    from_library = library_patterns(cache)  # cold: taken from detect-secrets, then kept
    assert len(from_library) > 12 and all(isinstance(p[1], str) for p in from_library)
    assert library_patterns(cache) == from_library  # warm
    kept = json.loads(cache.read_text())
    cache.write_text(json.dumps({"key": "detect-secrets 0.1", "patterns": []}))
    assert library_patterns(cache) == from_library  # another version's patterns are not taken
    assert json.loads(cache.read_text()) == kept
    cache.write_text("{damaged")
    assert library_patterns(cache) == from_library


def test_diff_of_a_turn_loads_neither_the_redactor_nor_the_file_placer(
    repo: Path, env: dict[str, str], teddy: Teddy, tmp_path: Path
) -> None:
    """`diff` asks session.restore for a turn's snapshot; placing files (and the redactor
    that session.turns brings) is restore's own business."""
    teddy.ok(repo, "new", "lean")
    plan = tmp_path / "plan.md"
    plan.write_text(PLAN)
    teddy.ok(repo, "plan", "-m", "greet", "--from-file", str(plan))
    teddy.ok(repo, "execute", "-y")
    output, modules = imported_modules(repo, env, "diff", "01")
    assert "+print('hi')" in output
    assert not modules & {"git_teddy.redact", "git_teddy.gitstore.apply", *PLAN_PARSER}
    assert "git_teddy.artifacts.report" not in modules  # read for --applied alone
    assert "git_teddy.session.restore" not in modules  # the result is the store's to find
    # the base is read from turn.yaml as plain data: no model to validate (issue 31 item 5)
    assert not loaded(modules, "pydantic"), sorted(loaded(modules, "pydantic"))
    output, modules = imported_modules(repo, env, "blame", "app.py")
    assert "/01" in output  # the turn's line, found by its base as diff finds it
    assert not loaded(modules, "pydantic"), sorted(loaded(modules, "pydantic"))
    output, modules = imported_modules(repo, env, "log")
    assert "01" in output
    # the turn graph is made of commits' trailers: no YAML to read, no model to validate
    assert not loaded(modules, "pydantic", "yaml"), sorted(loaded(modules, "pydantic", "yaml"))


def test_list_from_a_warm_index_loads_no_archive_modules(
    repo: Path, env: dict[str, str], teddy: Teddy
) -> None:
    """shutil (and bz2, lzma with it) is the pager's for finding its program in a terminal:
    `list` answered from its index, its output a pipe, has no use for it."""
    teddy.ok(repo, "new", "lean")
    teddy.ok(repo, "list")  # the index brought up to date
    output, modules = imported_modules(repo, env, "list")
    assert "lean" in output
    assert not modules & {"shutil", "bz2", "lzma"}


def test_yamls_refused_characters_are_compiled_from_their_complement() -> None:
    """PyYAML compiles at import the class of characters its pure-Python reader refuses
    (57 million instructions of re's compiler); git-teddy's start puts in re's cache the
    complement class under PyYAML's pattern: its import takes that one, which refuses the
    same characters, every code point checked."""
    code = (
        "import re, sys\n"
        "from git_teddy.gitstore.runner import YAML_NON_PRINTABLE, seed_yaml_pattern\n"
        "seed_yaml_pattern()\n"
        "import yaml.reader\n"
        "seeded = yaml.reader.Reader.NON_PRINTABLE\n"
        "every = ''.join(map(chr, range(sys.maxunicode + 1)))\n"
        "as_written = re.compile(YAML_NON_PRINTABLE, re.DOTALL)  # another key: compiled anew\n"
        "same = seeded.findall(every) == as_written.findall(every)\n"
        "print(seeded.pattern != YAML_NON_PRINTABLE, same)\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.split() == ["True", "True"]


def test_validate_loads_neither_the_report_nor_yaml(
    repo: Path, env: dict[str, str], tmp_path: Path
) -> None:
    """Checking a plan reads Markdown: the context list's rules (which the parser asks) name
    the execution report only for a type, and the clipboard is `preprocess --clipboard`'s."""
    plan = tmp_path / "plan.md"
    plan.write_text(PLAN)
    output, modules = imported_modules(repo, env, "validate", str(plan))
    assert "EDIT app.py" in output
    assert not loaded(modules, "yaml", "git_teddy.artifacts.report"), sorted(
        loaded(modules, "yaml", "git_teddy.artifacts.report")
    )
    # nor the model providers' package: the clipboard's tools are for `preprocess --clipboard`
    assert not loaded(modules, "git_teddy.llm", "shutil"), sorted(
        loaded(modules, "git_teddy.llm", "shutil")
    )
