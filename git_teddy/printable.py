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
