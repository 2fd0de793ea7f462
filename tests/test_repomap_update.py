"""The repository map follows the tree by its changes (issue 31, item 0): a new tree's map is
the previous tree's listing updated by the diff between the two trees, and it is the map a
build from scratch gives, over random edits of a real repository; the update reads only the
blobs that changed (the unchanged ones are deleted from the object store before it runs).

The maps are computed in a child Python with the sealed environment, on real repositories,
as `plan` and `context` compute them (the tree id known from the turn's snapshot).
"""

import json
import random
import shutil
import subprocess
import sys
from pathlib import Path

from git_teddy.artifacts.repomap import Census, in_order, mentioned, reorder
from testing.commands import Teddy, git
from testing.plans import create, plan_text

OVERVIEWS = """
import json, shutil, sys
from pathlib import Path
from git_teddy.gitstore.repo import GitRepo
from git_teddy.planning.repomap import repository_overview

top, fresh, asks = Path(sys.argv[1]), sys.argv[2] == "fresh", json.loads(sys.argv[3])
repo = GitRepo.discover(top)
maps = []
for tree, names, message, budget in asks:
    if fresh:  # from scratch: nothing cached
        shutil.rmtree(repo.layout.repo_map_cache, ignore_errors=True)
    maps.append(repository_overview(repo, tree, names, message, budget))
print(json.dumps(maps))
"""

Ask = tuple[str, list[str], str, int]


def overviews(repo: Path, env: dict[str, str], asks: list[Ask], fresh: bool) -> list[str]:
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            OVERVIEWS,
            str(repo),
            "fresh" if fresh else "follow",
            json.dumps(asks),
        ],
        cwd=repo,
        env={**env, "PYTHONPATH": str(Path(__file__).parents[1])},
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    maps: list[str] = json.loads(proc.stdout)
    return maps


def module(number: int, functions: int) -> str:
    body = "".join(f"def f{number}_{n}(a, b):\n    return a\n\n" for n in range(functions))
    return f"class C{number}(Base):\n    def run(self):\n        pass\n\n{body}"


def write(repo: Path, path: str, text: str) -> None:
    (repo / path).parent.mkdir(parents=True, exist_ok=True)
    (repo / path).write_text(text)


def commit(repo: Path, env: dict[str, str], message: str) -> str:
    git(repo, env, "add", "-A")
    git(repo, env, "commit", "-qm", message, "--allow-empty")
    return git(repo, env, "rev-parse", "HEAD^{tree}").strip()


def test_the_map_updated_by_tree_diffs_is_the_map_built_from_scratch(
    repo: Path, env: dict[str, str]
) -> None:
    chance = random.Random(31)
    write(repo, "pyproject.toml", "[project]\nname = 'demo'\n[tool.ruff]\n")
    write(repo, ".github/workflows/ci.yml", "on: push\n")
    for number in range(40):
        folder = ("src", "src/deep", "data", "tests", "docs")[number % 5]
        suffix = ".py" if number % 2 == 0 else (".txt", ".md", ".rs")[number % 3]
        write(repo, f"{folder}/file_{number:02d}{suffix}", module(number, number % 4))
    trees = [commit(repo, env, "start")]
    for step in range(8):
        listed = git(repo, env, "ls-files").split()
        files = sorted(f for f in listed if f not in ("pyproject.toml", ".github/workflows/ci.yml"))
        for path in chance.sample(files, 3):  # edited: other symbols, another size
            write(repo, path, module(100 + step, chance.randrange(6)) + "#" * chance.randrange(400))
        for path in chance.sample(files, 2):
            if (repo / path).exists():
                (repo / path).unlink()
        new = ("src", "lib/fresh", "data", "conftest.py")[step % 4]
        write(repo, new if new.endswith(".py") else f"{new}/new_{step}.py", module(200 + step, 2))
        if step == 5:  # a file becomes a folder
            (repo / "src" / "file_00.py").unlink(missing_ok=True)
            write(repo, "src/file_00.py/inner.txt", "inside\n")
        trees.append(commit(repo, env, f"step {step}"))
    asks: list[Ask] = []
    for number, tree in enumerate(trees):
        asks.append((tree, [], "tidy up", 120))  # a cut map: ranking decides what is shown
        asks.append((tree, ["data/file_07.md"], "look at file_04.py", 150))  # a focus
        asks.append((tree, [], f"message {number}", 4000))  # everything, with symbols
    followed = overviews(repo, env, asks, fresh=False)
    # A listing per recent tree, each made from the one before by their diff.
    listings = repo / ".git" / "teddy" / "repomap" / "trees"
    assert sorted(p.stem for p in listings.iterdir()) == sorted(trees[-8:])
    assert followed == overviews(repo, env, asks, fresh=True)
    assert "Python (" in followed[-1] and "Rust (" in followed[-1]
    assert "GitHub Actions" in followed[-1] and "ruff" in followed[-1]
    assert "more files not shown" in followed[0] and "class C" in followed[2]


def test_an_update_reads_only_the_blobs_that_changed(repo: Path, env: dict[str, str]) -> None:
    """After the first tree's map, every blob the second tree shares with it is deleted:
    the second map is still the one a build from scratch gives (in a copy that has them)."""
    write(repo, "pyproject.toml", "[project]\nname = 'demo'\n")
    for number in range(12):
        write(repo, f"pkg/mod_{number:02d}.py", module(number, 2))
    first = commit(repo, env, "first")
    before = overviews(repo, env, [(first, [], "hello", 4000)], fresh=False)
    assert "def f3_1(a, b)" in before[0]
    write(repo, "pkg/mod_03.py", module(3, 0) + "def renamed(x):\n    pass\n")
    write(repo, "pkg/added.py", "def added(y):\n    pass\n")
    (repo / "pkg" / "mod_05.py").unlink()
    second = commit(repo, env, "second")
    copy = repo.parent / "copy"
    shutil.copytree(repo, copy, symlinks=True)
    [expected] = overviews(copy, env, [(second, [], "hello", 4000)], fresh=True)
    shared = git(repo, env, "ls-tree", "-r", first).split("\n")
    kept = git(repo, env, "ls-tree", "-r", second)
    objects = repo / ".git" / "objects"
    removed = 0
    for line in shared:
        if line and "pyproject.toml" not in line and line.split()[2] in kept:
            blob = line.split()[2]
            (objects / blob[:2] / blob[2:]).unlink()  # loose: committed by `git add`
            removed += 1
    assert removed == 12  # README.md, app.py, the modules but the changed and the deleted
    [updated] = overviews(repo, env, [(second, [], "hello", 4000)], fresh=False)
    assert updated == expected
    assert "def renamed(x)" in updated and "def added(y)" in updated
    assert "mod_05.py" not in updated and "def f7_1(a, b)" in updated


def test_an_update_reads_no_folder_that_did_not_change(repo: Path, env: dict[str, str]) -> None:
    """System Information tells the project from the listing's census, kept up to date by
    the same diff: after the first map, the trees of the folders the second commit left
    alone are deleted, and the second overview is still the one a build from scratch gives
    (in a copy that has them). On the code that listed every top folder it failed."""
    write(repo, "pyproject.toml", "[project]\nname = 'demo'\n[tool.ruff]\n")
    for place, folder in enumerate(("alpha", "beta", "gamma", "src/delta", "tests")):
        write(repo, f"{folder}/__init__.py", "")
        for number in range(3):
            write(repo, f"{folder}/mod_{number}.py", module(10 * place + number, 1))
    first = commit(repo, env, "first")
    [before] = overviews(repo, env, [(first, [], "hello", 4000)], fresh=False)
    assert "- Python import: `import alpha`" in before
    write(repo, "alpha/mod_1.py", module(9, 2))  # alpha's tree changes, the others stay
    write(repo, "src/demo/__init__.py", "")  # the package named like the project, in src/
    write(repo, "noxfile.py", "")
    second = commit(repo, env, "second")
    copy = repo.parent / "copy"
    shutil.copytree(repo, copy, symlinks=True)
    [expected] = overviews(copy, env, [(second, [], "hello", 4000)], fresh=True)
    assert "- Python import: `import demo`" in expected and "`nox`" in expected
    objects = repo / ".git" / "objects"
    for folder in ("beta", "gamma", "tests", "src/delta"):
        tree = git(repo, env, "rev-parse", f"{second}:{folder}").strip()
        assert tree == git(repo, env, "rev-parse", f"{first}:{folder}").strip()
        (objects / tree[:2] / tree[2:]).unlink()  # loose: committed by `git commit`
    [updated] = overviews(repo, env, [(second, [], "hello", 4000)], fresh=False)
    assert updated == expected


def test_reorder_places_each_change_by_bisection_and_is_a_sort_from_scratch() -> None:
    """Pure: a listing updated path by path (sizes as listed, a wrong size, a path that was
    never there) is the sorted listing of the new files, and so is its census."""
    chance = random.Random(7)
    names = [f"{d}/f{n}{s}" for d in ("a", "a/b", "c") for n in range(30) for s in (".py", ".md")]
    old = {path: (chance.randrange(5), f"{n:040x}") for n, path in enumerate(names)}
    for _ in range(40):
        ordered = in_order((p, size, blob) for p, (size, blob) in old.items())
        gone = dict(chance.sample([(p, size) for p, (size, _) in old.items()], 6))
        gone[chance.choice(list(old))] = 99  # not the listed size: found by a pass
        gone["never/there.py"] = 1
        added = {f"new/{chance.randrange(99)}.py" for _ in range(3)} - set(old)
        new = [(path, chance.randrange(5), "b" * 40) for path in sorted(added)]
        new += [(path, size + 1, "c" * 40) for path, size in list(gone.items())[:2]]
        after = {p: v for p, v in old.items() if p not in gone} | {p: (s, b) for p, s, b in new}
        expected = in_order((p, size, blob) for p, (size, blob) in after.items())
        assert reorder(ordered, gone, new) == expected
        census = Census.of(old)
        census.count([p for p in gone if p in old], -1)
        census.count([p for p, _, _ in new], 1)
        fresh = Census.of(after)
        assert census.project_paths() == fresh.project_paths()
        assert (census.shallow_python > 0) == (fresh.shallow_python > 0)
        old = after


def test_the_focus_is_the_paths_named_by_path_or_by_file_name() -> None:
    """Pure: `mentioned` (C-level passes) finds what a per-path reading finds: the context's
    tracked names, paths a message names, and files a message names by a 4+ letter name."""
    chance = random.Random(3)
    parts = ["app.py", "main", "src", "util.py", "a.md", "edit", "README.md", "lib"]
    paths = sorted({"/".join(chance.choices(parts, k=chance.randint(1, 3))) for _ in range(300)})
    for _ in range(60):
        words = chance.choices([*parts, *chance.sample(paths, 3), "./src/app.py", "`main`"], k=5)
        named = [*chance.sample(paths, 2), "not/tracked.py"]
        message = " ".join(words)
        names = {w.strip("./`'\"") for w in words}
        expected = {
            path
            for path in paths
            if path in named or path in names or path.rsplit("/", 1)[-1] in names
            if len(path.rsplit("/", 1)[-1]) >= 4 or path in names or path in named
        }
        assert mentioned(paths, [message], named) == expected


def git_processes(teddy: Teddy, repo: Path, *args: str) -> list[str]:
    """Run `git teddy ARGS`; the command line of each git process it started (trace2)."""
    trace = repo.parent / "trace2.json"
    trace.unlink(missing_ok=True)
    Teddy({**teddy.env, "GIT_TRACE2_EVENT": str(trace)}).ok(repo, *args)
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    argvs = [e["argv"][1:] for e in events if e["event"] == "start"]
    return [" ".join(argv) for argv in argvs if argv[:1] != ["teddy"]]


def test_a_context_glob_is_expanded_from_the_listing_the_tree_diff_updates(
    repo: Path, env: dict[str, str], teddy: Teddy
) -> None:
    """A context with a glob needs the tree's paths: they come from the map's listing,
    updated by the diff from the last tree's, so a second turn lists no tree whole (on the
    code that ran `git ls-tree -r` for every such turn this failed), and the glob takes in
    the file the first turn created."""
    write(repo, ".teddy/global.context", "/src/*.py\n")
    write(repo, "src/first.py", "def first():\n    pass\n")
    commit(repo, env, "a glob in the context")
    teddy.ok(repo, "new", "globs")
    plan = repo.parent / "plan.md"
    plan.write_text(plan_text(create("src/second.py", "def second():\n    pass\n")))
    teddy.ok(repo, "plan", "-m", "turn 1", "--from-file", str(plan))
    teddy.ok(repo, "execute", "-y")
    plan.write_text(plan_text(create("notes.txt", "n\n")))
    started = git_processes(teddy, repo, "plan", "-m", "turn 2", "--from-file", str(plan))
    assert [line for line in started if line.startswith("ls-tree -r")] == [], started
    assert any(line.startswith("diff-tree") for line in started), started
    session = git(repo, env, "for-each-ref", "--format=%(refname:lstrip=2)", "refs/heads/teddy/")
    log = git(repo, env, "show", f"{session.strip()}:02/_context.log")
    assert "src/second.py" in log and "src/first.py" in log
