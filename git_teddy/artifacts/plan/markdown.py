"""The CommonMark parser that reads plans (bounds.py says why it is bounded): commonmark's,
linear in the size of blocks, checking a deadline on each line and parsing inlines on demand.
Imported only where a plan is parsed, as `commonmark` is slow to import."""

import re
from typing import Any

import commonmark

from git_teddy.artifacts.plan.bounds import MAX_INLINE_CHARS, Deadline

Node = Any  # commonmark.node.Node carries no type hints

# A line that may turn a paragraph into a setext heading (read by commonmark while the
# paragraph is open): only `=` or `-` after spaces and block-quote markers.
_SETEXT_LINE = re.compile(r"^[ \t>]*(?:=+|-+)[ \t]*$")


class BoundedParser(commonmark.Parser):  # type: ignore[misc]  # commonmark has no types
    """commonmark's parser, linear in the size of blocks, checking `deadline` on each line,
    and parsing inlines only when asked (`inline`)."""

    def __init__(self, deadline: Deadline) -> None:
        super().__init__()
        self.deadline = deadline
        self.parts: dict[int, tuple[Node, list[str]]] = {}  # open blocks' lines, by id
        self.inlined: set[int] = set()

    def incorporate_line(self, ln: str) -> None:
        self.deadline.check(self.line_number)
        if self.parts and _SETEXT_LINE.match(ln):
            for node, _ in list(self.parts.values()):
                self._join(node)  # commonmark reads an open paragraph's text here
        super().incorporate_line(ln)

    def add_line(self) -> None:
        """As commonmark's, but into a list: `string_content +=` is quadratic."""
        node = self.tip
        _, parts = self.parts.setdefault(id(node), (node, []))
        if self.partially_consumed_tab:
            self.offset += 1  # skip the tab, add the spaces it stood for
            parts.append(" " * (4 - (self.column % 4)))
        parts.append(self.current_line[self.offset :] + "\n")

    def finalize(self, block: Node, line_number: int) -> None:
        self._join(block)
        super().finalize(block, line_number)

    def _join(self, node: Node) -> None:
        entry = self.parts.pop(id(node), None)
        if entry is not None:
            node.string_content = (node.string_content or "") + "".join(entry[1])

    def process_inlines(self, block: Node) -> None:
        """Nothing: a plan needs the inlines of a few metadata lines only (`inline`)."""

    def inline(self, node: Node) -> bool:
        """Parse the inlines of `node` (a paragraph or heading) and those inside it, once;
        False when one of them is longer than `MAX_INLINE_CHARS` (left unparsed)."""
        fits = True
        walker = node.walker()
        event = walker.nxt()
        todo = []
        while event is not None:
            child = event["node"]
            if event["entering"] and child.t in ("paragraph", "heading"):
                todo.append(child)
            event = walker.nxt()
        for child in todo:
            if id(child) in self.inlined:
                continue
            if len(child.string_content or "") > MAX_INLINE_CHARS:
                fits = False
                continue
            self.deadline.check(int(child.sourcepos[0][0]))
            self.inline_parser.refmap = self.refmap
            self.inline_parser.parse(child)
            self.inlined.add(id(child))
        return fits
