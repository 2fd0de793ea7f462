"""The repository map and system information every context starts with: on the first turn of
a fresh repository (no .teddy/global.context) in `git teddy context` and in what a real
local model server receives; the budget cut said; symbols with line numbers, in nine
languages; no secret content; cached by tree id."""

import json
import shutil
import zlib
from pathlib import Path

from testing.commands import Teddy, git
from testing.llm_servers import OpenAIServer, model_reply
from testing.plans import create, plan_text
from testing.repos import commit_files
from testing.sessions import queue

SECRET = "sk-live-abcdefghijklmnopqrstuvwxyz0123456789"
MODULE = '''"""Billing."""


class Invoice(Base):
    def total(self):
        return 1

    def _hidden(self):
        pass


def charge(customer, amount):
    return amount
'''


def project(repo: Path, env: dict, extra: int = 0) -> None:
    for folder in ("src", "tests", "data"):
        (repo / folder).mkdir()
    files = {
        "pyproject.toml": "[project]\nname = 'demo'\n[tool.pytest.ini_options]\n",
        "src/billing.py": MODULE,
        "tests/test_billing.py": "def test_charge():\n    assert True\n",
        ".env": f"API_KEY={SECRET}\n",
        **{f"data/file-{n:03d}.txt": "x" * 40 for n in range(extra)},
    }
    commit_files(repo, env, files)


def map_section(text: str) -> str:
    return text[text.index("### System Information") :]


def test_first_turn_context_has_system_information_and_the_map(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    project(repo, env)
    assert not (repo / ".teddy" / "global.context").exists()
    teddy.ok(repo, "new", "fresh")
    out = teddy.ok(repo, "context").stdout
    overview = map_section(out)
    for line in ("- OS: ", "- Shell: ", "- git: ", "- Project: `demo`"):
        assert line in overview
    assert "- Tools on PATH: " not in overview  # teddy.probeTools is off in the tests
    assert "Python (" in overview and "pytest" in overview
    assert "Python project (pyproject.toml)" in overview
    assert "### Repository Map" in overview
    assert "src/\n  billing.py  " in overview and "tests/\n  test_billing.py" in overview
    assert "  L4 class Invoice(Base)\n      L5 def total(self)\n" in overview
    assert "  L12 def charge(customer, amount)" in overview
    assert "_hidden" not in overview
    assert ".env" in overview and SECRET not in out  # its name, never its content
    assert "more files not shown" not in overview  # everything fits
    assert "(system information and repository map)" in out

    data = json.loads(teddy.ok(repo, "context", "--json").stdout)
    assert "### Repository Map" in data["overview"] and data["overview_tokens"] > 0
    assert data["total_tokens"] == data["overview_tokens"] + data["system_prompt_tokens"] + sum(
        r["tokens"] for r in data["resources"]
    )


def test_the_model_receives_the_map_on_turn_01(
    repo: Path, teddy: Teddy, env: dict, openai_server: OpenAIServer
) -> None:
    project(repo, env)
    env.update(openai_server.env(model="gpt-4o"))
    session = teddy.ok(repo, "new", "first").stdout.strip()
    openai_server.push(model_reply(plan_text(create("hello.txt", "hello\n"))))
    teddy.ok(repo, "plan", "-m", "Fix the rounding in billing.py")
    (request,) = openai_server.requests
    user = request.json["messages"][1]["content"]
    log = git(repo, env, "show", f"teddy/{session}/main:01/_context.log")
    assert log.endswith(user)
    overview = map_section(user)
    assert overview.index("### Repository Map") < user.index("## 5. Resource Contents")
    assert user.index("## 4. Context Summary") < user.index("### System Information")
    assert "L4 class Invoice(Base)" in overview
    assert SECRET not in user and SECRET not in log


def test_the_budget_cut_is_said_and_named_files_come_first(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    project(repo, env, extra=300)
    git(repo, env, "config", "teddy.mapTokens", "200")
    teddy.ok(repo, "new", "cut")
    overview = map_section(teddy.ok(repo, "context").stdout)
    cut = [line for line in overview.splitlines() if "more files not shown" in line]
    assert len(cut) == 1 and cut[0].endswith("(teddy.mapTokens = 200)")
    tracked = len(git(repo, env, "ls-files").splitlines())
    assert f"{tracked} files, " in overview
    shown = int(overview.split(" files, ")[1].split(" shown")[0])
    assert 0 < shown < tracked and cut[0].startswith(f"... {tracked - shown} more files")
    # Central source before bulk data: the Python module made it, with its symbols.
    assert "billing.py" in overview and "class Invoice" in overview
    body = overview.split("```text\n", 1)[1].split("\n```", 1)[0]
    assert len(body) - len(cut[0]) <= 200 * 4  # within the budget (characters/4)

    # A file the context names comes first, even deep in the data folder.
    (repo / ".teddy").mkdir()
    (repo / ".teddy" / "global.context").write_text("data/file-299.txt\n")
    named = map_section(teddy.ok(repo, "context").stdout)
    assert "  file-299.txt  40 B" in named


def test_zero_turns_it_off(repo: Path, teddy: Teddy, env: dict) -> None:
    project(repo, env)
    git(repo, env, "config", "teddy.mapTokens", "0")
    teddy.ok(repo, "new", "off")
    out = teddy.ok(repo, "context").stdout
    assert "### Repository Map" not in out and "### System Information" not in out


def test_a_second_run_reads_the_map_from_its_cache(repo: Path, teddy: Teddy, env: dict) -> None:
    project(repo, env)
    teddy.ok(repo, "new", "cached")
    cache = Path(git(repo, env, "rev-parse", "--git-common-dir").strip())
    cache = (repo / cache if not cache.is_absolute() else cache) / "teddy" / "repomap"
    first = teddy.ok(repo, "context").stdout
    [entry] = list(cache.glob("*.json"))
    [listing] = list((cache / "trees").iterdir())  # the tree's files, for the focus
    assert b"src/billing.py" in listing.read_bytes()
    tree = entry.name.split("-")[0]
    assert tree == git(repo, env, "rev-parse", "HEAD^{tree}").strip()
    # The whole context answer is cached too: drop it so the full command runs again.
    shutil.rmtree(cache.parent / "context-cache", ignore_errors=True)
    # A map served from the cache is the stored text, even when the tree would say otherwise:
    # so doctor the stored entry's map (with a valid checksum) and see it come back.
    data = json.loads(entry.read_text())
    data["map"] = data["map"].replace("billing.py", "billing-from-cache.py")
    data["check"] = zlib.crc32(data["map"].encode())
    entry.write_text(json.dumps(data))
    second = teddy.ok(repo, "context").stdout
    assert "billing-from-cache.py" in second and "billing-from-cache.py" not in first
    assert [p.name for p in cache.glob("*.json")] == [entry.name]
    # Another tree is another entry: the map follows the files.
    commit_files(repo, env, {"src/new_module.py": "def fresh():\n    pass\n"})
    third = teddy.ok(repo, "context").stdout
    assert "new_module.py" in third and "def fresh()" in third
    assert len(list(cache.glob("*.json"))) == 2
    assert len(list((cache / "trees").iterdir())) == 2


def test_a_new_message_reuses_the_map_unless_it_names_another_file(
    repo: Path, teddy: Teddy, env: dict, replies: Path
) -> None:
    """The map is cached by tree and focus, not by message: plans with new messages on an
    unchanged tree read it from the cache, and a message naming a file gets its own map."""
    project(repo, env, extra=300)
    git(repo, env, "config", "teddy.mapTokens", "200")
    teddy.ok(repo, "new", "messages")
    cache = Path(git(repo, env, "rev-parse", "--git-common-dir").strip())
    cache = (repo / cache if not cache.is_absolute() else cache) / "teddy" / "repomap"
    queue(replies, *[plan_text(create("x.txt", "x\n"))] * 3)

    def plan_and_discard(message: str) -> list[Path]:
        teddy.ok(repo, "plan", "-m", message)
        teddy.ok(repo, "discard")
        return sorted(cache.glob("*.json"))

    [entry] = plan_and_discard("tidy up the project")
    assert "file-299.txt" not in json.loads(entry.read_text())["map"]  # cut by the budget
    assert plan_and_discard("and now something else entirely") == [entry]  # read, not redone
    maps = plan_and_discard("look at file-299.txt")
    assert len(maps) == 2  # a named file comes first: another map
    [named] = [m for m in maps if m != entry]
    assert "file-299.txt" in json.loads(named.read_text())["map"]


SYMBOL_FIXTURES = Path(__file__).parent / "fixtures" / "symbols"
CALLER = 'package main\n\nimport "geo"\n\nfunc main() {\n\tprintln(geo.TotalArea(nil))\n}\n'


def test_every_language_gets_its_symbols_and_the_named_ones_come_first(
    repo: Path, teddy: Teddy, env: dict, replies: Path
) -> None:
    """Issue 27 item 3: symbols with line numbers in nine languages; a symbol the message
    names brings its file and the files calling it into a map that would leave them out."""
    sources = {f"src/{p.name}": p.read_text() for p in SYMBOL_FIXTURES.iterdir()}
    deep = {"pkg/geo/internal/area/shapes.go": sources.pop("src/shapes.go")}
    caller = {"cmd/tools/report/main.go": CALLER}
    for folder in ("src", "pkg/geo/internal/area", "cmd/tools/report"):
        (repo / folder).mkdir(parents=True)
    commit_files(repo, env, {**sources, **deep, **caller})
    session = teddy.ok(repo, "new", "languages").stdout.strip()
    overview = map_section(teddy.ok(repo, "context").stdout)
    for line in (
        "L22 def total_area(shapes)",  # Python
        "L12 function totalArea(shapes)",  # JavaScript
        "L14 function totalArea(shapes: Shape[]): number",  # TypeScript
        "L25 func TotalArea(shapes []Shape) float64",  # Go
        "L18 pub fn total_area(shapes: &[Box<dyn Shape>]) -> f64",  # Rust
        "L23 public static double totalArea(List<Shape> shapes)",  # Java
        "L15 double total_area(const struct circle *circles, size_t count)",  # C
        "L14 class Circle : public Shape",  # C++
        "L13 def self.total_area(shapes)",  # Ruby
    ):
        assert line in overview

    git(repo, env, "config", "teddy.mapTokens", "120")  # the src/ files only
    cut = map_section(teddy.ok(repo, "context").stdout)
    assert "area/" not in cut and "main.go" not in cut
    queue(replies, plan_text(create("x.txt", "x\n")))
    teddy.ok(repo, "plan", "-m", "Make `TotalArea` skip nil shapes")
    named = map_section(git(repo, env, "show", f"teddy/{session}/main:01/_context.log"))
    assert "area/\n        shapes.go" in named and "L25 func TotalArea(" in named
    assert "report/\n      main.go" in named and "L5 func main()" in named
