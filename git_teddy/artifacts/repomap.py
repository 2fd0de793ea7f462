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

import heapq
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

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


@dataclass(frozen=True)
class SystemFacts:
    os: str
    shell: str
    git: str
    python: str


# ---- what the repository is made of ------------------------------------------------------------


def detect_tools(paths: Iterable[str], manifests: Mapping[str, str]) -> list[str]:
    """Languages (by file count) and tools found from the files and the root manifests'
    texts (`manifests`: pyproject.toml, package.json as read)."""
    languages: Counter[str] = Counter()
    names: set[str] = set()  # root files, and test configuration files anywhere
    workflows = False
    for path in paths:
        name = path.rsplit("/", 1)[-1]
        if name == path or name in ("conftest.py", "pytest.ini"):
            names.add(name)
        workflows = workflows or path.startswith(".github/workflows/")
        language = LANGUAGES.get(_suffix(path).lower())
        if language:
            languages[language] += 1
    tools = ["GitHub Actions"] if workflows else []
    tools += [tool for name, tool in MARKERS if name in names]
    tools += [tool for name, text, tool in MENTIONS if text in manifests.get(name, "")]
    found = [f"{lang} ({n} file{'s' if n != 1 else ''})" for lang, n in languages.most_common(6)]
    return found + list(dict.fromkeys(tools))


def render_system_info(facts: SystemFacts, tools: list[str]) -> str:
    return (
        "### System Information\n"
        f"- OS: {facts.os}\n"
        f"- Shell: {facts.shell}\n"
        f"- git: {facts.git}\n"
        f"- Python: {facts.python}\n"
        f"- Project: {', '.join(tools) or '(nothing recognised)'}\n"
    )


# ---- ranking -----------------------------------------------------------------------------------

_WORD = re.compile(r"[\w./-]+")


def mentioned(paths: Iterable[str], texts: Iterable[str]) -> set[str]:
    """The tracked paths a text names, by path or by a file name of 4+ characters."""
    words = {w.strip("./`'\"") for text in texts for w in _WORD.findall(text)}
    words.discard("")
    found: set[str] = set()
    if not words:
        return found
    for path in paths:
        name = path.rsplit("/", 1)[-1]
        if path in words or (len(name) >= 4 and name in words):
            found.add(path)
    return found


def _suffix(path: str) -> str:
    """PurePosixPath(path).suffix, without building a path object (100,000 files)."""
    name = path.rsplit("/", 1)[-1]
    dot = name.rfind(".")
    return name[dot:] if 0 < dot < len(name) - 1 else ""


def _folder(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""


def _centrality(file: TrackedFile) -> tuple[int, bool, int, str]:
    """Shallow first, source before data, big before small."""
    source = _suffix(file.path) in SOURCE_SUFFIXES
    return (file.path.count("/"), not source, -file.size, file.path)


def rank(files: list[TrackedFile], focus: set[str], limit: int | None = None) -> list[TrackedFile]:
    """Most relevant first: named files, a few of their neighbours (a big folder must not
    crowd out the rest), then the others by centrality; the first `limit` only if given
    (a heap, not a sort of 100,000 files)."""
    near = {_folder(path) for path in focus}
    neighbours: dict[str, list[TrackedFile]] = {folder: [] for folder in near}
    for file in files:
        if near and file.path not in focus and _folder(file.path) in near:
            neighbours[_folder(file.path)].append(file)
    chosen = {
        file.path
        for group in neighbours.values()
        for file in sorted(group, key=_centrality)[:NEIGHBOURS]
    }

    def key(file: TrackedFile) -> tuple[int, int, bool, int, str]:
        path = file.path
        tier = 0 if path in focus else 1 if path in chosen else 2
        return (tier, path.count("/"), _suffix(path) not in SOURCE_SUFFIXES, -file.size, path)

    if limit is None or limit >= len(files):
        return sorted(files, key=key)
    return heapq.nsmallest(limit, files, key=key)


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
