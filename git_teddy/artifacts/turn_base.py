"""The base snapshot a `turn.yaml` names, read as plain data (pure; no pydantic model is
built): for the readers that need only the base (`diff`, undo, blame, restore), which go on
without a damaged turn's. The whole record is turn_record.read_record's."""

import re

from git_teddy.artifacts.yamlio import Unreadable, load_data

# A commit id (SHA-1 or SHA-256): a teammate's turn.yaml is hostile input, and the base is
# handed to git, so nothing else (an option, a revision expression) passes for one.
_OBJECT_ID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


def base_snapshot(data: bytes | None) -> str | None:
    """The base snapshot `data` names, None when there is none, it is damaged (not UTF-8,
    not YAML, too large, aliases, not a mapping) or its base is not a commit id."""
    if data is None:
        return None
    try:
        fields = load_data(data)
    except Unreadable:
        return None
    base = fields.get("base_snapshot") if isinstance(fields, dict) else None
    return base if isinstance(base, str) and _OBJECT_ID.fullmatch(base) else None
