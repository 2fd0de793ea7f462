"""The index file (`index.toon` in the derived-state folder): decoded from and encoded to TOON,
loaded (an unreadable file reads as an empty index) and saved atomically."""

import contextlib
import os
import re
from pathlib import Path
from typing import Any

from git_teddy.gitstore.permissions import Shared
from git_teddy.index.rows import AgentRow, SessionIndex, SessionRow
from git_teddy.index.toontable import UnreadableIndex, read_rows, unquote

FORMAT = "teddy-index/2"  # 2: turns count subagent turns; resume_point
_TABLE = re.compile(r"(?P<key>[a-z]+)(?:\[(?P<count>\d+)\]\{(?P<fields>[a-z_,]+)\}:|: \[\])")
_TABLES: dict[str, Any] = {"sessions": SessionRow, "agents": AgentRow}


def decode_index(text: str) -> SessionIndex:
    """The index a file holds; UnreadableIndex (or ValueError) if it is not one."""
    lines = text.split("\n")
    scalars: dict[str, str] = {}
    tables: dict[str, tuple[str | None, list[str]]] = {}
    pos = 0
    while pos < len(lines):
        line = lines[pos]
        pos += 1
        table = _TABLE.fullmatch(line)
        if table is None:
            key, sep, value = line.partition(": ")
            if sep:
                scalars[key] = value
            elif line:
                raise UnreadableIndex(f"unexpected line {line!r}")
            continue
        count = int(table["count"] or 0)
        if table["key"] not in _TABLES or pos + count > len(lines):
            raise UnreadableIndex(f"bad table {line!r}")
        tables[table["key"]] = (table["fields"], lines[pos : pos + count])
        pos += count
    if unquote(scalars.get("format", "")) != FORMAT or set(tables) != set(_TABLES):
        raise UnreadableIndex("not an index of this format")
    index = SessionIndex(unquote(scalars["prefix"]), int(scalars["generation"]))
    index.sessions = {row.id: row for row in read_rows(SessionRow, *tables["sessions"])}
    agent_fields, index.agent_lines = tables["agents"]
    if agent_fields is not None and agent_fields != ",".join(AgentRow._fields):
        raise UnreadableIndex(f"columns {agent_fields} are not AgentRow's")
    return index


def encode_index(index: SessionIndex) -> str:
    from toon_format import encode  # only a writer pays for importing it

    ids = sorted(index.sessions)
    data = {
        "format": FORMAT,
        "prefix": index.prefix,
        "generation": index.generation,
        "sessions": [index.sessions[s]._asdict() for s in ids],
        "agents": [share._asdict() for s in ids for share in index.agents.get(s, [])],
    }
    return str(encode(data)) + "\n"


def load(path: Path, prefix: str) -> SessionIndex:
    """The index at `path`, or an empty one when it is missing, unreadable or was made for
    another ref prefix (then every session is read again: a rebuild, silently)."""
    try:
        index = decode_index(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, KeyError, IndexError):
        return SessionIndex(prefix)
    return index if index.prefix == prefix else SessionIndex(prefix, index.generation)


def save(path: Path, index: SessionIndex, shared: Shared) -> None:
    """Write atomically: a reader sees the old file or the new one, never half of one; with
    the modes core.sharedRepository asks for (`shared`)."""
    import tempfile  # a writer's import

    text = encode_index(index)
    shared.make_folders(path.parent)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".index-", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        shared.adjust(temporary)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
