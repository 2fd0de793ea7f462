"""Exact token counts of new texts without a tokenizer: the sum of their pieces' counts.

tiktoken encodes a text in two steps: its encoding's pre-split pattern cuts the text into
pieces, then each piece is byte-pair encoded on its own, never across pieces. So a text's
count is the sum of its pieces' counts, and a piece's count depends on the piece alone.
Pieces repeat from text to text (words, digit groups, punctuation, indentation), so a text
new to the blob-id cache (session.md grown by a turn, the request, the reply) is usually
made of pieces already counted: it is split here with the same pattern (the `regex`
module, a dependency of tiktoken, whose pure-Python reference uses it too) and counted
without loading a tokenizer (0.2 s). tests/test_token_pieces.py checks the split against
tiktoken's own on generated texts, for both patterns.

The counts are kept per encoding in `token-pieces.marshal` beside `tokens.json`, bounded
(the oldest pieces go first), learned only from texts the tokenizer counted whole and whose
pieces add up to that count. A missing, damaged or unwritable file is a cold cache.
"""

import marshal
import os
import tempfile
from collections.abc import Callable
from functools import cache
from itertools import product
from pathlib import Path
from typing import Any

from git_teddy.errors import TeddyError
from git_teddy.gitstore.permissions import Shared

VERSION = 1
MAX_PIECES = 100_000  # per encoding; the oldest pieces go first
# Characters. The split here is Python's (about 10 MB/s), loading a tokenizer 0.2 s of CPU:
MAX_TEXT = 1_000_000  # a longer text goes to the tokenizer
MAX_LEARN = 256 * 1024  # a longer text's pieces are not learned
LEARN_BUDGET = 2_000_000  # texts learned per process, at most: a cold context costs little more
MAX_PIECE = 64  # characters: longer pieces (long runs of spaces, base64) are not kept

# tiktoken_ext.openai_public's patterns, as tiktoken 0.7-0.14 give them (a test compares).
PATTERNS = {
    "cl100k_base": (
        r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++"""
        r"""[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
    ),
    "o200k_base": "|".join(
        [
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+"""
            r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*"""
            r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""\p{N}{1,3}""",
            r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
            r"""\s*[\r\n]+""",
            r"""\s+(?!\S)""",
            r"""\s+""",
        ]
    ),
}

# Pieces of the text every turn adds new (times, figures, commit and blob ids): every digit
# group the patterns cut (one to three digits) and every run of hex letters up to five long
# (up to four after a space, which the patterns join to letters). They are counted when a
# tokenizer is first loaded, so that these need none.
SEED_ALPHABETS = (("", "0123456789", 3), (" ", "abcdef", 4), ("", "abcdef", 5))
LAST_SEED = "fffff"  # the last one kept: present, all are (the oldest pieces go first)


def _seeds() -> list[str]:
    return [
        prefix + "".join(chars)
        for prefix, alphabet, longest in SEED_ALPHABETS
        for length in range(1, longest + 1)
        for chars in product(alphabet, repeat=length)
    ]


@cache
def _compiled(name: str) -> Any:
    """The encoding's pattern compiled, None for an encoding of unknown pattern or without
    the `regex` module."""
    pattern = PATTERNS.get(name)
    if pattern is None:
        return None
    try:
        import regex
    except ImportError:
        return None
    return regex.compile(pattern)


def split(name: str, text: str) -> list[str] | None:
    """The pieces `name`'s tokenizer encodes `text` as, one by one; None when not known here,
    or for a text with lone surrogates (tiktoken replaces them before its split)."""
    pattern = _compiled(name)
    if pattern is None:
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return None
    return list(pattern.findall(text))


class PieceCounts:
    """Token counts of pieces, per encoding, read once from `path` and written by `save()`."""

    def __init__(
        self, path: Path | None, shared: Shared | None = None, keep: int = MAX_PIECES
    ) -> None:
        self.path = path
        self.shared = shared or Shared()
        self.keep = keep  # pieces per encoding
        self._budget = LEARN_BUDGET  # characters left to learn from in this process
        self._data: dict[str, dict[str, int]] | None = None
        self._new: dict[str, dict[str, int]] = {}

    def _counts(self) -> dict[str, dict[str, int]]:
        if self._data is None:
            self._data = self._read()
        return self._data

    def _read(self) -> dict[str, dict[str, int]]:
        if self.path is None:
            return {}
        try:
            data = marshal.loads(self.path.read_bytes())
        except (OSError, ValueError, EOFError, TypeError):
            return {}  # missing or damaged: rebuilt as texts are counted
        if not isinstance(data, dict) or data.get("version") != VERSION:
            return {}
        encodings = data.get("pieces")
        if not isinstance(encodings, dict):
            return {}
        return {
            name: counts
            for name, counts in encodings.items()
            if isinstance(name, str) and isinstance(counts, dict)
        }

    def knows(self, name: str) -> bool:
        """Whether any piece of `name` is known (a count may be made without a tokenizer)."""
        return name in PATTERNS and bool(self._counts().get(name) or self._new.get(name))

    def total(self, name: str, text: str) -> int | None:
        """`text`'s count under `name` from its pieces' counts; None when a piece is new."""
        if len(text) > MAX_TEXT or not self.knows(name):
            return None
        pieces = split(name, text)
        if pieces is None:
            return None
        known, added = self._counts().get(name, {}), self._new.get(name, {})
        total = 0
        for piece in pieces:  # as _known, inlined: a text is thousands of pieces
            count = added.get(piece) or known.get(piece)
            if type(count) is not int or count < 1:
                return None  # new, or damaged
            total += count
        return total

    def _known(self, name: str, piece: str) -> int | None:
        count = self._new.get(name, {}).get(piece)
        if count is None:
            count = self._counts().get(name, {}).get(piece)
        return count if isinstance(count, int) and count >= 1 else None  # else: damaged

    def learn(self, name: str, text: str, whole: int, count_piece: Callable[[str], int]) -> None:
        """Keep the counts of `text`'s new pieces, `count_piece` counting each, when they add
        up to `whole` (the tokenizer's count of the text): never a count that disagrees."""
        if len(text) > min(MAX_LEARN, self._budget):
            return
        self._budget -= len(text)
        pieces = split(name, text)
        if pieces is None:
            return
        if self._known(name, LAST_SEED) is None:
            self._new.setdefault(name, {}).update((seed, count_piece(seed)) for seed in _seeds())
        fresh: dict[str, int] = {}
        total = 0
        for piece in pieces:
            count = fresh.get(piece) or self._known(name, piece)
            if count is None:
                count = fresh[piece] = count_piece(piece)
            total += count
        if total == whole:
            self._new.setdefault(name, {}).update(
                (piece, count) for piece, count in fresh.items() if len(piece) <= MAX_PIECE
            )

    def save(self) -> None:
        """Write the file atomically, merged with what other processes saved meanwhile."""
        if self.path is None or not any(self._new.values()):
            return
        encodings = self._read()
        for name, added in self._new.items():
            counts = encodings.setdefault(name, {})
            counts.update(added)
            if len(counts) > self.keep:
                encodings[name] = dict(list(counts.items())[-self.keep :])
        try:
            self.shared.make_folders(self.path.parent)
            fd, tmp = tempfile.mkstemp(prefix=self.path.name, dir=self.path.parent)
            with os.fdopen(fd, "wb") as handle:
                handle.write(marshal.dumps({"version": VERSION, "pieces": encodings}))
            self.shared.adjust(tmp)
            os.replace(tmp, self.path)
        except (OSError, TeddyError):  # a read-only derived folder: a cold cache next time
            return
        self._data, self._new = encodings, {}
