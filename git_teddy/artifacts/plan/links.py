"""Path links of metadata lines (spec 004 section 3): `[path/from/root](/path/from/root)`.

The sanitizer rewrites the forms whose meaning is clear into that form and says so (a
repair): a link whose target has spaces but no angle brackets (`[a b.txt](/a b.txt)`, which
CommonMark does not read as a link at all), a link whose target lacks the leading `/` while
its text names the same path (`[app.py](app.py)`), and a bare path (`app.py`, `` `a b.txt` ``).
Everything else is left as written, for the parser to report: a link whose text and target
name different paths (`[the app](/app.py)`), a bare value with spaces and no quoting.
"""

import re
from urllib.parse import unquote

PATH_KEYS = frozenset({"file path", "filepath", "path", "file", "resource"})
PATH_ACTIONS = frozenset({"CREATE", "EDIT", "READ", "PRUNE"})

_ITEM = re.compile(
    r"^(?P<lead> {0,3}[-*+][ \t]+(?:(?:\*\*|__)[ \t]*(?P<bold>[^*:\n]+?)[ \t]*"
    r"(?::[ \t]*(?:\*\*|__)|(?:\*\*|__)[ \t]*:)|(?P<plain>[A-Za-z][\w \-]*?)[ \t]*:)[ \t]*)"
    r"(?P<value>.*?)[ \t]*$"
)
_OPTIONAL = re.compile(r"^\(optional\)[ \t]*", re.IGNORECASE)
_LINK = re.compile(r"^\[(?P<text>[^\]]*)\]\((?P<target>.*)\)$")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")
_NEEDS_BRACKETS = re.compile(r"[\s()<>]")

HINT = "write paths as root-relative links: [path/from/root](/path/from/root)"


def link(path: str) -> str:
    """`[path](/path)`, the target in angle brackets when CommonMark needs them."""
    target = "/" + path
    return f"[{path}]({f'<{target}>' if _NEEDS_BRACKETS.search(target) else target})"


def same_path(text: str, target: str) -> str | None:
    """The path a link's text and target both name (percent-decoded, without the leading
    `/`), or None when they name different paths. The text may leave out the target's part
    (`[app.py](/app.py#L120-L180)`: READ of lines or a symbol)."""
    named, aimed = _bare(text), _bare(target)
    return named if named and named in (aimed, aimed.rsplit("#", 1)[0]) else None


def _bare(value: str) -> str:
    value = unquote(value.strip().strip("`").strip())
    return value.removeprefix("./").lstrip("/")


def is_path_item(action: str | None, key: str) -> bool:
    return action in PATH_ACTIONS and re.sub(r"[\s_]+", " ", key.strip().lower()) in PATH_KEYS


def repair_line(line: str, action: str | None) -> tuple[str, str] | None:
    """(the line with its path written as a root-relative link, what was changed) for a path
    metadata line of `action` that needs it, else None."""
    match = _ITEM.match(line)
    if match is None or not is_path_item(action, match.group("bold") or match.group("plain")):
        return None
    value = _OPTIONAL.sub("", match.group("value"))
    fixed = _repaired(value)
    if fixed is None:
        return None
    return match.group("lead") + fixed[0], fixed[1]


def _repaired(value: str) -> tuple[str, str] | None:
    found = _LINK.match(value)
    if found is None:
        return _bare_repaired(value)
    text, target = found.group("text"), found.group("target")
    wrapped = target.startswith("<") and target.endswith(">")
    inner = target[1:-1] if wrapped else target
    path = same_path(text, inner)
    if path is None or _SCHEME.match(inner) or inner.startswith("www."):
        return None  # a URL, or text and target disagree: the parser says which
    if not inner.startswith("/"):
        return link(path), f"the link target `{inner}` is not root-relative: read as `/{path}`"
    if not wrapped and _NEEDS_BRACKETS.search(inner):
        return (
            link(path),
            f"the link target `{inner}` has spaces or brackets: put in angle brackets "
            f"(`<{inner}>`)",
        )
    return None


def _bare_repaired(value: str) -> tuple[str, str] | None:
    quoted = len(value) >= 2 and value[0] == value[-1] and value[0] in "`\"'"
    path = value[1:-1].strip() if quoted else value
    if not path or (not quoted and re.search(r"\s", path)):
        return None  # several words: not clearly one path
    if path.startswith(("/", "~", "<", "[", "\\", "www.")) or _SCHEME.match(path):
        return None  # absolute, a URL, a session file or a broken link: the parser decides
    return link(path), f"the path `{path}` is not a link: read as `{link(path)}`"
