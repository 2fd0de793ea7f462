"""The repository map and system information every context starts with (pure): tracked files
ranked by relevance, shown as a tree with sizes and symbols (artifacts/symbols.py) with
their line numbers, within a token budget.

Like Aider's repo map, the files that matter to the turn come first: those the context or the
message names, then their neighbours (same folder), then the rest by how central they are
(shallow first, source before data, big before small). The chosen files are shown in path
order as a tree; what the budget leaves out is said ("... N more files not shown"). Tokens
are counted as characters/4 here: the renderer must not load a tokenizer, and the real count
of the whole text is given with the context's other counts. Reading files, git and the
platform is the caller's (planning/repomap.py); this module only computes text.
"""

import bisect
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from itertools import compress, repeat

from git_teddy.artifacts.plan.fences import fence_for
from git_teddy.artifacts.symbols import Symbol
from git_teddy.artifacts.symbols import ranked as most_relevant

CHARS_PER_TOKEN = 4
SOURCE_SUFFIXES = {".py", ".js", ".ts", ".go", ".rs", ".java", ".c", ".h", ".cpp", ".rb", ".sh"}
NEIGHBOURS = 8  # files shown beside each file the context or message names
MAX_SYMBOLS = 12  # per file: a module with 200 functions would eat the budget alone
LANGUAGES = {
    ".py": "Python",
    ".pyi": "Python",
    ".js": "JavaScript",
    ".mjs": "JavaScript",
    ".jsx": "JavaScript",
    ".ts": "TypeScript",
    ".tsx": "TypeScript",
    ".go": "Go",
    ".rs": "Rust",
    ".java": "Java",
    ".kt": "Kotlin",
    ".c": "C",
    ".h": "C",
    ".cpp": "C++",
    ".cc": "C++",
    ".hpp": "C++",
    ".cs": "C#",
    ".rb": "Ruby",
    ".php": "PHP",
    ".swift": "Swift",
    ".sh": "Shell",
    ".md": "Markdown",
    ".rst": "reStructuredText",
    ".html": "HTML",
    ".css": "CSS",
    ".sql": "SQL",
}
# Files whose presence names a tool: (path, what it tells).
MARKERS = (
    ("pyproject.toml", "Python project (pyproject.toml)"),
    ("setup.py", "Python package (setup.py)"),
    ("requirements.txt", "pip requirements"),
    ("pytest.ini", "pytest"),
    ("conftest.py", "pytest"),
    ("tox.ini", "tox"),
    ("package.json", "Node (package.json)"),
    ("tsconfig.json", "TypeScript"),
    ("Cargo.toml", "Rust (cargo)"),
    ("go.mod", "Go modules"),
    ("Gemfile", "Ruby (bundler)"),
    ("pom.xml", "Java (Maven)"),
    ("build.gradle", "Gradle"),
    ("CMakeLists.txt", "CMake"),
    ("Makefile", "make"),
    ("Dockerfile", "Docker"),
    (".pre-commit-config.yaml", "pre-commit"),
)
# What a pyproject.toml or package.json says of its tools: (file, text in it, tool).
MENTIONS = (
    ("pyproject.toml", "pytest", "pytest"),
    ("pyproject.toml", "[tool.ruff", "ruff"),
    ("pyproject.toml", "[tool.mypy", "mypy"),
    ("pyproject.toml", "[tool.poetry", "poetry"),
    ("package.json", '"jest"', "jest"),
    ("package.json", '"vitest"', "vitest"),
    ("package.json", '"typescript"', "TypeScript"),
    ("package.json", '"eslint"', "eslint"),
)
MANIFESTS = tuple(dict.fromkeys(name for name, _, _ in MENTIONS))


@dataclass(frozen=True)
class TrackedFile:
    path: str
    size: int  # bytes as stored; -1 for a submodule (a gitlink has no size)
    blob: str = ""  # its object id, when known


# ---- what the repository is made of ------------------------------------------------------------


TEST_CONFIGS = ("conftest.py", "pytest.ini")  # named wherever they are


@dataclass
class Census:
    """What the tools are found from, counted over a tree's paths: languages by file count,
    root files and test configuration files anywhere by name, workflow files. Kept up to
    date path by path when the tree changes (`count` with -1 for the paths gone)."""

    languages: Counter[str] = field(default_factory=Counter)
    names: Counter[str] = field(default_factory=Counter)
    workflows: int = 0
    # What System Information tells the project from (artifacts/system_info.py): the root's
    # files, `<folder>/__init__.py` and `src/<folder>/__init__.py`; and how many .py files
    # are one folder down (those at the root are among the root's files).
    project: Counter[str] = field(default_factory=Counter)
    shallow_python: int = 0

    @classmethod
    def of(cls, paths: Iterable[str]) -> "Census":
        census = cls()
        census.count(paths, 1)
        return census

    def count(self, paths: Iterable[str], sign: int) -> None:
        for path in paths:
            name = path.rsplit("/", 1)[-1]
            if name == path or name in TEST_CONFIGS:
                self.names[name] += sign
            if path.startswith(".github/workflows/"):
                self.workflows += sign
            language = LANGUAGES.get(_suffix(path).lower())
            if language:
                self.languages[language] += sign
            if name == path:
                self.project[path] += sign
            elif path.endswith(".py"):
                self._count_python(path, name, sign)

    def _count_python(self, path: str, name: str, sign: int) -> None:
        """A .py file below the root: one folder down, or a package's `__init__.py`."""
        depth = path.count("/")
        if depth == 1:
            self.shallow_python += sign
        if name == "__init__.py" and (depth == 1 or (depth == 2 and path.startswith("src/"))):
            self.project[path] += sign

    def project_paths(self) -> list[str]:
        """The paths of `project` (those still in the tree), in path order."""
        return sorted(path for path, n in self.project.items() if n > 0)

    def tools(self, manifests: Mapping[str, str]) -> list[str]:
        """Languages (most files first, then by name) and tools, with the root manifests'
        texts (`manifests`: pyproject.toml, package.json as read)."""
        tools = ["GitHub Actions"] if self.workflows > 0 else []
        tools += [tool for name, tool in MARKERS if self.names[name] > 0]
        tools += [tool for name, text, tool in MENTIONS if text in manifests.get(name, "")]
        counts = sorted((-n, lang) for lang, n in self.languages.items() if n > 0)[:6]
        found = [f"{lang} ({-n} file{'s' if n != -1 else ''})" for n, lang in counts]
        return found + list(dict.fromkeys(tools))


# ---- ranking -----------------------------------------------------------------------------------

_WORD = re.compile(r"[\w./-]+")


def mentioned(paths: Iterable[str], texts: Iterable[str], named: Iterable[str] = ()) -> set[str]:
    """The tracked paths a text names, by path or by a file name of 4+ characters, and
    those of `named` (the context's resources) that are tracked: none looked for when
    nothing is asked, else C-level passes over `paths` (no Python code per path)."""
    words = {w.strip("./`'\"") for text in texts for w in _WORD.findall(text)}
    words.discard("")
    names = {word for word in words if len(word) >= 4 and "/" not in word}
    wanted = words.union(named)  # a root file named by its name is among these
    if not wanted:
        return set()
    listed = paths if isinstance(paths, list) else list(paths)
    found = wanted.intersection(listed)
    if names:
        ends = tuple(f"/{name}" for name in names)
        found.update(compress(listed, map(str.endswith, listed, repeat(ends))))
    return found


def _suffix(path: str) -> str:
    """PurePosixPath(path).suffix, without building a path object (100,000 files)."""
    name = path.rsplit("/", 1)[-1]
    dot = name.rfind(".")
    return name[dot:] if 0 < dot < len(name) - 1 else ""


def _folder(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""


def centrality(path: str, size: int) -> tuple[int, bool, int, str]:
    """Shallow first, source before data, big before small."""
    return (path.count("/"), _suffix(path) not in SOURCE_SUFFIXES, -size, path)


def in_order(files: Iterable[tuple[str, int, str]]) -> list[tuple[str, int, str]]:
    """(path, size, blob) entries by centrality, the order `rank` takes them in."""
    return sorted(files, key=lambda entry: centrality(entry[0], entry[1]))


def _centrality_of(entry: tuple[str, int, str]) -> tuple[int, bool, int, str]:
    return centrality(entry[0], entry[1])


def reorder(
    ordered: list[tuple[str, int, str]], gone: Mapping[str, int], new: list[tuple[str, int, str]]
) -> list[tuple[str, int, str]]:
    """`ordered` (by centrality) without the paths `gone` (path -> the size it was listed
    with) and with the entries `new`, still in order: what a tree's change does to its
    listing, at the cost of the change (each path found and placed by bisection; one
    whose size was not the listed one is looked for in a pass over the rest)."""
    kept = list(ordered)
    missed = set()
    for path, size in gone.items():
        at = bisect.bisect_left(kept, centrality(path, size), key=_centrality_of)
        if at < len(kept) and kept[at][0] == path:
            del kept[at]
        else:
            missed.add(path)
    if missed:
        kept = [entry for entry in kept if entry[0] not in missed]
    for entry in in_order(new):
        bisect.insort(kept, entry, key=_centrality_of)
    return kept


def rank(
    ordered: list[tuple[str, int, str]], focus: set[str], limit: int | None = None
) -> list[TrackedFile]:
    """Most relevant first: named files, a few of their neighbours (a big folder must not
    crowd out the rest), then the others by centrality; the first `limit` only if given.
    `ordered`: the tree's (path, size, blob) entries by centrality (`in_order`), so nothing
    is sorted here: the named files and neighbours are found in one pass, the rest read
    off the front."""
    limit = len(ordered) if limit is None else limit
    if not focus:
        return [TrackedFile(path, size, blob) for path, size, blob in ordered[:limit]]
    near = {_folder(path) for path in focus}
    named: list[TrackedFile] = []
    neighbours: list[TrackedFile] = []
    rest: list[TrackedFile] = []
    taken: Counter[str] = Counter()  # neighbours by folder
    for path, size, blob in ordered:
        if path in focus:
            named.append(TrackedFile(path, size, blob))
            continue
        folder = _folder(path)
        if folder in near and taken[folder] < NEIGHBOURS:
            taken[folder] += 1
            neighbours.append(TrackedFile(path, size, blob))
        elif len(rest) < limit:
            rest.append(TrackedFile(path, size, blob))
    return (named + neighbours + rest)[:limit]


def most_shown(budget: int) -> int:
    """No more files than this fit in `budget` tokens (a file's line is 7+ characters)."""
    return budget * CHARS_PER_TOKEN // 7 + 1


# ---- rendering ---------------------------------------------------------------------------------


def human_size(size: int) -> str:
    if size < 0:
        return "submodule"
    if size < 1024:
        return f"{size} B"
    if size < 1024**2:
        return f"{size / 1024:.1f} KB"
    return f"{size / 1024**2:.1f} MB"


def _file_lines(file: TrackedFile, symbols: list[Symbol], names: frozenset[str]) -> list[str]:
    """The file's line, then its symbols (those `names` names and their callers first when
    not all fit), each with its first line: `L12 def split_into(iterable, sizes)`."""
    depth = file.path.count("/")
    name = file.path.rsplit("/", 1)[-1]
    lines = [f"{'  ' * depth}{name}  {human_size(file.size)}"]
    shown = most_relevant(symbols, names, MAX_SYMBOLS)
    lines += [f"{'  ' * (depth + 1 + s.depth)}L{s.line} {s.text}" for s in shown]
    if len(symbols) > len(shown):
        lines.append(f"{'  ' * (depth + 1)}... {len(symbols) - len(shown)} more")
    return lines


def _folder_lines(path: str) -> dict[str, str]:
    """The tree's line for each folder above `path`, by folder."""
    parts = path.split("/")[:-1]
    return {"/".join(parts[: i + 1]): f"{'  ' * i}{part}/" for i, part in enumerate(parts)}


def select(
    ranked: list[TrackedFile],
    budget: int,
    symbols: Mapping[str, list[Symbol]],
    names: frozenset[str] = frozenset(),
) -> list[TrackedFile]:
    """The leading files of `ranked` whose lines (folders included) fit in `budget` tokens."""
    room = budget * CHARS_PER_TOKEN
    shown: list[TrackedFile] = []
    folders: set[str] = set()
    for file in ranked:
        new = {f: line for f, line in _folder_lines(file.path).items() if f not in folders}
        lines = list(new.values()) + _file_lines(file, symbols.get(file.path, []), names)
        cost = sum(len(line) + 1 for line in lines)
        if cost > room:
            break
        room -= cost
        folders.update(new)
        shown.append(file)
    return shown


def render_map(
    ranked: list[TrackedFile],
    total: int,
    budget: int,
    symbols: Mapping[str, list[Symbol]],
    names: frozenset[str] = frozenset(),
) -> str:
    """The map section: the files `select` keeps from `ranked` (as `rank` gives them, at
    least `most_shown(budget)` of them) of `total` files (tracked and untracked), as a tree
    in path order; `names`: the symbols the message names."""
    shown = select(ranked, budget, symbols, names)
    lines: list[str] = []
    folders: set[str] = set()
    for file in sorted(shown, key=lambda f: f.path.split("/")):
        for folder, line in _folder_lines(file.path).items():
            if folder not in folders:
                folders.add(folder)
                lines.append(line)
        lines += _file_lines(file, symbols.get(file.path, []), names)
    left = total - len(shown)
    if left:
        lines.append(f"... {left} more files not shown (teddy.mapTokens = {budget})")
    tree = "\n".join(lines) or "(no files)"
    fence = fence_for(tree)
    return (
        "### Repository Map\n"
        f"{total} files, {len(shown)} shown: files named in the context or the "
        "message and their folders first, then the top folders; sizes as stored, "
        "symbols under their file with their first line (L12).\n"
        f"{fence}text\n{tree}\n{fence}\n"
    )
