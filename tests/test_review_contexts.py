"""Packing the contexts of the review page: pieces joined back are each context exactly,
and what turns share is stored once."""

import pytest

from git_teddy.review.contexts import contexts_block, pack, split

CONTEXTS = {
    "01": "# Context Log\n\n## 1. System Prompt\nsame\n\n## 5. Resource Contents\n\n---\nA\n",
    "02": "# Context Log\n\n## 1. System Prompt\nsame\n\n## 5. Resource Contents\n\n---\nB\n",
    "03": "\n---\n## odd\n---\n\n## \n---\n",
    "04": "",
}


def unpack(pieces: list[str], turns: dict[str, list[int]], name: str) -> str:
    """What the page's script puts together for turn `name`."""
    return "".join(pieces[i] for i in turns[name])


@pytest.mark.parametrize("text", [*CONTEXTS.values(), "no cut at all", "\n## a\n## b", "x\n---\n"])
def test_split_joins_back_exactly(text: str) -> None:
    assert "".join(split(text)) == text


def test_pack_shares_pieces_and_unpacks_each_turn() -> None:
    pieces, turns = pack(CONTEXTS)
    assert len(pieces) == len(set(pieces))
    for name, text in CONTEXTS.items():
        assert unpack(pieces, turns, name) == text
    assert turns["01"][:2] == turns["02"][:2]  # the shared system prompt, stored once


def test_the_block_cannot_be_closed_by_a_context() -> None:
    block = contexts_block({"01": "</script><script>alert(1)</script><!-- x"})
    body = block.split(">", 1)[1].rsplit("</script>", 1)[0]
    assert "<" not in body and "\\u003c/script>" in body
