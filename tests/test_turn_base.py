"""The base snapshot read from a turn.yaml as plain data (artifacts/turn_base.py): a commit
id or nothing, since a teammate's session is hostile input and the base is handed to git."""

import pytest

from git_teddy.artifacts.turn_base import base_snapshot

SHA1 = "0123456789abcdef0123456789abcdef01234567"
SHA256 = "0123456789abcdef" * 4


@pytest.mark.parametrize("base", [SHA1, SHA256])
def test_a_commit_id_is_the_base(base: str) -> None:
    assert base_snapshot(f"turn: '01'\nbase_snapshot: {base}\n".encode()) == base


@pytest.mark.parametrize(
    "text",
    [
        "base_snapshot: --output=/tmp/x\n",  # an option git would take
        "base_snapshot: HEAD~1\n",  # a revision expression, not a snapshot
        f"base_snapshot: {SHA1.upper()}\n",
        f"base_snapshot: {SHA1}0\n",
        "base_snapshot: [1, 2]\n",
        "base_snapshot: 12\n",
        "turn: '01'\n",
        "- a list\n",
        "base_snapshot: [unclosed\n",
    ],
)
def test_anything_else_is_no_base(text: str) -> None:
    assert base_snapshot(text.encode()) is None


def test_no_file_is_no_base() -> None:
    assert base_snapshot(None) is None
