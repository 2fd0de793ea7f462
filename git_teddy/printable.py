"""Text from a session made safe for a terminal (pure): control characters shown escaped, as
git shows them in quoted paths (core.quotePath), so a teammate's session cannot write the
clipboard (OSC 52), retitle the window, hide a link or move the cursor. Every line of
session content the CLI prints (`show`, `log`, `list`, hints) goes through `printable`;
every id, path or name put into a command of a hint goes through `shlex.quote` as well."""

import re

# C0 controls but tab and newline, DEL, C1 controls (ESC's 8-bit twins, 0x9b is CSI), the
# bidirectional overrides and isolates that reorder what is shown; a lone CR (CRLF line
# ends stay as they are).
_UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]|\r(?!\n)")
_UNSAFE_IN_LINE = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\a": "\\a", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\v": "\\v", "\f": "\\f", "\r": "\\r"}


def _escaped(match: re.Match[str]) -> str:
    char = match.group()
    return _NAMED.get(char) or "".join(f"\\{byte:03o}" for byte in char.encode("utf-8"))


def printable(text: str, one_line: bool = False) -> str:
    """`text` with its control characters escaped (`\\033` for ESC, `\\a` for BEL...); with
    `one_line`, tabs and newlines too (a name, a title, an id)."""
    return (_UNSAFE_IN_LINE if one_line else _UNSAFE).sub(_escaped, text)


_UNSAFE_IN_JSON = re.compile("[\x7f-\x9f\u202a-\u202e\u2066-\u2069]")  # json.dumps escapes C0


def json_printable(text: str) -> str:
    """JSON text (from json.dumps) with the controls it leaves raw written as `\\uXXXX`: the
    same JSON, safe on a terminal."""
    return _UNSAFE_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


_QUOTED = {'"': '\\"', "\\": "\\\\", **_NAMED}


def quote_path(path: str, quote_path: bool = True) -> str:
    """A file name as git shows it in its messages (core.quotePath): as it is when plain;
    else in double quotes with C escapes for controls, `"` and `\\`, and, unless
    `quote_path` is false, octal escapes for every byte past ASCII. A newline in a name
    then never breaks the line it is shown in."""
    raw = path.encode("utf-8", "surrogateescape")
    plain = all(0x20 <= byte < 0x7F and byte not in b'"\\' for byte in raw)
    if plain or (not quote_path and not _needs_quotes(path)):
        return path
    out = []
    for char in path:
        if char in _QUOTED:
            out.append(_QUOTED[char])
        elif _UNSAFE_IN_LINE.match(char) or (quote_path and ord(char) > 0x7E):
            out.append("".join(f"\\{b:03o}" for b in char.encode("utf-8", "surrogateescape")))
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def _needs_quotes(path: str) -> bool:
    return any(char in _QUOTED or _UNSAFE_IN_LINE.match(char) for char in path)
