"""Syntax colours for diff lines on the review page (pure: text in, escaped HTML out).

A diff shows lines out of their file, so each line is coloured on its own: comments,
strings, numbers and keywords of the file's language family. That is what a reviewer's eye
needs from a hunk, at a regular expression's cost per line (a 200-turn export stays fast),
with no extra dependency. Unknown languages are only escaped.
"""

import re
from html import escape
from pathlib import PurePosixPath

PYTHON = (
    "False None True and as assert async await break class continue def del elif else "
    "except finally for from global if import in is lambda nonlocal not or pass raise "
    "return try while with yield match case self"
)
SHELL = "if then else elif fi for while until do done case esac function in return local export"
RUBY = "def end class module if elsif else unless while do return yield require nil true false"
C_LIKE = (
    "auto break case catch char class const continue default delete do double else enum "
    "export extends false final float for fn function func go if impl implements import "
    "in int interface let long match mod mut new nil null package private protected pub "
    "public return self static struct super switch this throw true try type typeof use "
    "var void while async await yield from of def val lambda string bool"
)

HASH_COMMENTS = {
    ".py": PYTHON,
    ".pyi": PYTHON,
    ".sh": SHELL,
    ".bash": SHELL,
    ".rb": RUBY,
    ".yaml": "true false null",
    ".yml": "true false null",
    ".toml": "true false",
    ".r": "function if else for while return TRUE FALSE NULL",
    ".pl": "my sub if else elsif for foreach while return use",
}
SLASH_COMMENTS = frozenset(
    {
        *(".c", ".h", ".cc", ".cpp", ".hpp", ".cs", ".java", ".js", ".mjs", ".cjs", ".jsx"),
        *(".ts", ".tsx", ".go", ".rs", ".swift", ".kt", ".scala", ".php", ".dart", ".css"),
        ".scss",
    }
)
NAMES = frozenset(("Makefile", "Dockerfile", "CMakeLists.txt"))  # '#' comments, no keywords

STRING = r"\"(?:[^\"\\]|\\.)*\"?|'(?:[^'\\]|\\.)*'?"
NUMBER = r"\b\d[\d_]*(?:\.\d+)?\b"
WORD = r"\b[A-Za-z_]\w*\b"


def _scanner(comment: str, keywords: str) -> tuple[re.Pattern[str], frozenset[str]]:
    parts = [f"(?P<c>{comment})", f"(?P<s>{STRING}|`[^`]*`?)", f"(?P<n>{NUMBER})", f"(?P<w>{WORD})"]
    return re.compile("|".join(parts)), frozenset(keywords.split())


HASH = r"#.*"
SLASH = r"//.*|/\*.*?(?:\*/|$)"
_SCANNERS: dict[str, tuple[re.Pattern[str], frozenset[str]]] = {}


def language_of(path: str) -> str | None:
    """The key of a file's language family, or None when lines are only escaped."""
    name = PurePosixPath(path).name
    if name in NAMES:
        return name
    suffix = PurePosixPath(path).suffix.lower()
    if suffix in HASH_COMMENTS or suffix in SLASH_COMMENTS:
        return suffix
    return None


def _scanner_for(language: str) -> tuple[re.Pattern[str], frozenset[str]]:
    if language not in _SCANNERS:
        if language in SLASH_COMMENTS:
            _SCANNERS[language] = _scanner(SLASH, C_LIKE)
        else:
            _SCANNERS[language] = _scanner(HASH, HASH_COMMENTS.get(language, ""))
    return _SCANNERS[language]


def highlight(line: str, language: str | None) -> str:
    """One line of code as escaped HTML, its tokens wrapped in spans classed c (comment),
    s (string), n (number) and k (keyword)."""
    if language is None:
        return escape(line)
    pattern, keywords = _scanner_for(language)
    out: list[str] = []
    at = 0
    for match in pattern.finditer(line):
        kind = match.lastgroup
        text = match.group()
        if kind == "w" and text not in keywords:
            continue
        out.append(escape(line[at : match.start()]))
        out.append(f'<span class="{"k" if kind == "w" else kind}">{escape(text)}</span>')
        at = match.end()
    out.append(escape(line[at:]))
    return "".join(out)
