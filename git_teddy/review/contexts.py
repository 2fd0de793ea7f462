"""The contexts the model saw, packed for the review page (pure).

A long session's contexts repeat themselves: every turn carries the same system prompt,
and history and files stay listed turn after turn, so 200 turns' `_context.log` files are
tens of megabytes of mostly the same text. The page holds each distinct piece once (a JSON
block the browser never runs) and each turn's list of pieces; a context is put together,
exactly as the model received it, when its block is first opened.
"""

import json

SCRIPT_ID = "teddy-contexts"

FILL_SCRIPT = (
    "var teddyContexts=null;"
    "function contextText(name){teddyContexts=teddyContexts||"
    f"JSON.parse(document.getElementById('{SCRIPT_ID}').textContent);"
    "return teddyContexts.turns[name].map(function(i){return teddyContexts.pieces[i];})"
    ".join('');}"
    "function fillContext(d){if(!d||!d.classList||!d.classList.contains('context')||"
    "d.dataset.filled)return;"
    "d.querySelector('pre').textContent=contextText(d.dataset.turn);d.dataset.filled='1';}"
    "document.addEventListener('toggle',function(e){fillContext(e.target);},true);"
    "document.addEventListener('click',function(e){var s=e.target.closest&&"
    "e.target.closest('summary');if(s)fillContext(s.parentElement);},true);"
)


# The head of a context is cut before its numbered sections, so the system prompt (the same
# every turn) is a piece of its own; after the head, each resource is a piece.
SECTIONS = ("\n## 1. ", "\n## 2. ", "\n## 3. ", "\n## 4. ", "\n## 5. ")
SEPARATOR = "\n---\n"


def split(context: str) -> list[str]:
    """A context in pieces whose concatenation is the context (str.partition and str.split:
    tens of megabytes in a blink)."""
    head, separator, rest = context.partition(SEPARATOR)
    pieces = []
    for marker in SECTIONS:
        before, found, after = head.partition(marker)
        if found:
            pieces.append(before)
            head = marker + after
    pieces.append(head)
    if separator:
        pieces.extend(SEPARATOR + part for part in rest.split(SEPARATOR))
    return [piece for piece in pieces if piece]


def pack(contexts: dict[str, str]) -> tuple[list[str], dict[str, list[int]]]:
    """Each distinct piece once, and each turn's context as the indexes of its pieces."""
    index: dict[str, int] = {}
    turns: dict[str, list[int]] = {}
    for name, context in contexts.items():
        turns[name] = [index.setdefault(piece, len(index)) for piece in split(context)]
    return list(index), turns


def contexts_block(contexts: dict[str, str]) -> str:
    """The JSON block the page's script reads. Every `<` is written as \\u003c, so no text
    from a context can end the block or start markup."""
    pieces, turns = pack(contexts)
    data = json.dumps({"pieces": pieces, "turns": turns}, ensure_ascii=False)
    data = data.replace("<", "\\u003c")
    return f'<script type="application/json" id="{SCRIPT_ID}">{data}</script>'
