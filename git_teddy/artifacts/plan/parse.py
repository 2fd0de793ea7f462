"""Plan text -> `Plan`, by walking the CommonMark AST of the sanitized text.

Every problem is collected (not just the first) with the line it is on in the text as given,
so a model can fix all of them in one retry.
"""

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from pydantic import TypeAdapter, ValidationError

from git_teddy.artifacts.context_list import is_session_ref
from git_teddy.artifacts.plan.bounds import (
    MAX_INLINE_CHARS,
    Deadline,
    TooSlow,
    deadline_for,
    nesting_problem,
    size_problem,
    slow_problem,
)
from git_teddy.artifacts.plan.fences import (
    Sanitized,
    action_heading,
    is_marker,
    sanitize_with_origin,
)
from git_teddy.artifacts.plan.links import same_path
from git_teddy.artifacts.plan.models import ACTION_TYPES, Action, Memo, Plan, normalize_action_name
from git_teddy.artifacts.plan.validate import (
    LINK_HINT,
    PlanError,
    Problem,
    check_path,
    check_rationale,
    check_url,
)
from git_teddy.artifacts.read_parts import PART_HINT, fragment_problem, split_part

if TYPE_CHECKING:
    from git_teddy.artifacts.plan.markdown import BoundedParser

Node = Any  # commonmark.node.Node carries no type hints

SECTIONS = ("rationale", "memos", "action plan")
_BOLD_ITEM = re.compile(
    r"^(?:\*\*|__)\s*([^*:\n]+?)\s*(?::\s*(?:\*\*|__)|(?:\*\*|__)\s*:)\s*(.*)$", re.S
)
_PLAIN_ITEM = re.compile(r"^([A-Za-z][\w \-]*?)\s*:\s*(.*)$", re.S)
_OPTIONAL = re.compile(r"^\(optional\)\s*", re.IGNORECASE)
_MEMO = re.compile(r"^\s*\[([+-])\]\s*(.*)$")
_MEMO_COMMENT = re.compile(r"(?:^|\s)#")
_ENV_ITEM = re.compile(r"^`?([A-Za-z_][A-Za-z0-9_]*)`?\s*[:=]\s*(.*)$", re.S)

# Metadata keys as models write them -> the field they fill.
_FIELDS = {
    "description": "description",
    "file path": "path",
    "filepath": "path",
    "path": "path",
    "file": "path",
    "resource": "resource",
    "url": "resource",
    "expected outcome": "expected_outcome",
    "cwd": "cwd",
    "working directory": "cwd",
    "env": "env",
    "environment": "env",
    "agent": "agent",
    "handoff resources": "handoff_resources",
    "handoff resource": "handoff_resources",
    "overwrite": "overwrite",
    "expected to fail": "expect_failure",
}
_ACCEPTS = {
    "CREATE": {"path", "description", "overwrite"},
    "READ": {"resource", "description"},
    "EDIT": {"path", "description"},
    "EXECUTE": {"description", "expected_outcome", "cwd", "env", "expect_failure"},
    "RESEARCH": {"description"},
    "CHAT_WITH_USER": set(),
    "INVOKE": {"agent", "handoff_resources"},
    "CONCLUDE": {"handoff_resources"},
    "PRUNE": {"resource", "description"},
}
_YES = {"yes", "true", "y", "1"}
_ACTION_LIST = ", ".join(f"`{name}`" for name in ACTION_TYPES)


@functools.cache
def _action_adapter() -> TypeAdapter[Action]:
    """Built on first use: its schema costs start-up time a command reading no plan saves."""
    return TypeAdapter(Action)


def parse_plan(text: str) -> Plan:
    """Sanitize and parse a plan; raise `PlanError` listing every problem."""
    plan, problems = check_plan(text)
    if plan is None:
        raise PlanError(problems)
    return plan


def check_plan(text: str, seconds: float | None = None) -> tuple[Plan | None, list[Problem]]:
    """(the plan, []) or (None, the problems in line order), within `seconds` (by default
    bounds.deadline_for the text) whatever the text: a text too large, too deeply nested or
    too slow to read is a problem."""
    checked = read_plan(text, seconds)
    return checked.plan, list(checked.problems)


@dataclass(frozen=True)
class Checked:
    """What reading a plan found: the plan (None if invalid), its problems, and its notes:
    what the sanitizer repaired and what the parser left out (e.g. a CREATE's second code
    block), each with its line, for `validate`, `preprocess` and the turn to report."""

    plan: Plan | None
    problems: tuple[Problem, ...]
    notes: tuple[Problem, ...] = ()


def read_plan(text: str, seconds: float | None = None) -> Checked:
    """`check_plan` with the notes. A text read again in the same process (the plan a command
    parsed, then the session log of its commit) is not parsed again: plans and problems are
    frozen, so the answer is shared."""
    key = (text, seconds)
    found = _CHECKED.pop(key, None)
    if found is None:
        found = _check_plan(text, seconds)
    _CHECKED[key] = found  # the most recent last, so the oldest goes first
    while len(_CHECKED) > _CHECKED_KEPT:
        del _CHECKED[next(iter(_CHECKED))]
    return found


_CHECKED: dict[tuple[str, float | None], Checked] = {}
_CHECKED_KEPT = 8  # a command parses its own turn's plan (and a pipeline a few more)


def _check_plan(text: str, seconds: float | None) -> Checked:
    too_big = size_problem(text)
    if too_big is not None:
        return Checked(None, (too_big,))
    deadline = Deadline(deadline_for(text) if seconds is None else seconds)
    try:
        sanitized = sanitize_with_origin(text, deadline)
    except TooSlow:
        return Checked(None, (slow_problem(deadline, 1),))
    if not sanitized.text.strip():
        empty = Problem(1, "the plan is empty", "start with a `# Title` line; see the plan format")
        return Checked(None, (empty,))
    source = _Source(sanitized)
    cut_off = _unclosed_problem(source, sanitized.unclosed)
    too_deep = nesting_problem(source.lines)
    if too_deep is not None:
        return Checked(None, (replace(too_deep, line=source.origin_of(too_deep.line)),))
    from git_teddy.artifacts.plan.markdown import BoundedParser  # commonmark: slow to import

    parser = BoundedParser(deadline)
    builder = _PlanBuilder(source, parser)
    try:
        plan = builder.build(parser.parse(sanitized.text))
    except TooSlow as stopped:
        return Checked(None, (slow_problem(deadline, source.origin_of(stopped.line)),))
    found = builder.problems + ([cut_off] if cut_off else [])
    problems = tuple(sorted(dict.fromkeys(found), key=lambda problem: problem.line))
    repairs = [Problem(line, f"repaired: {what}", LINK_HINT) for line, what in sanitized.repairs]
    notes = tuple(sorted(repairs + builder.notes, key=lambda note: note.line))
    return Checked(plan if not problems else None, problems, notes)


def _unclosed_problem(source: "_Source", line: int | None) -> Problem | None:
    """A code block still open at the end of the plan: the reply was most likely cut off
    (a model that ran out of tokens), so what looks like a shorter plan is not used."""
    if line is None:
        return None
    where = source.origin_of(line)
    return Problem(
        where,
        f"the code block opened at line {where} is never closed: the plan looks cut off",
        "close every code block with a fence as long as its opening one, and make sure the "
        "whole plan is there (a shorter plan is better than one cut off)",
    )


def children(node: Node) -> Iterator[Node]:
    child = node.first_child
    while child is not None:
        yield child
        child = child.nxt


def descendants(node: Node, kind: str) -> Iterator[Node]:
    walker = node.walker()
    event = walker.nxt()
    while event is not None:
        if event["entering"] and event["node"].t == kind:
            yield event["node"]
        event = walker.nxt()


def is_heading(node: Node, level: int | None = None) -> bool:
    return bool(node.t == "heading" and (level is None or node.level == level))


class _Source:
    """The sanitized lines, and the way back to line numbers of the text as given."""

    def __init__(self, sanitized: Sanitized) -> None:
        self.lines = sanitized.text.split("\n")
        self.origin = sanitized.origin

    def line(self, node: Node) -> int:
        return self.origin_of(int(node.sourcepos[0][0]))

    def origin_of(self, line: int) -> int:
        return self.origin[min(max(line, 1), len(self.origin)) - 1]

    def raw(self, node: Node) -> str:
        """The Markdown source of a paragraph or heading, continuation lines stripped."""
        (start, column), (end, _) = node.sourcepos
        first = self.lines[start - 1][column - 1 :].strip()
        rest = [line.strip() for line in self.lines[start : max(end, start)]]
        return "\n".join([first, *rest]).strip()

    def span(self, first: int, last: int) -> str:
        """Lines first..last (1-based, inclusive), without blank lines around them."""
        lines = self.lines[first - 1 : last]
        while lines and not lines[0].strip():
            lines.pop(0)
        while lines and not lines[-1].strip():
            lines.pop()
        return "\n".join(lines)


def heading_text(source: _Source, node: Node) -> str:
    line = source.lines[node.sourcepos[0][0] - 1]
    text = re.sub(r"^\s{0,3}#+", "", line)
    return re.sub(r"(?:^|\s+)#+\s*$", "", text).strip()


@dataclass
class _Item:
    """One `- **Key:** value` line of a metadata list."""

    key: str
    value: str
    line: int
    node: Node


@dataclass
class _Section:
    name: str
    heading: Node
    blocks: list[Node] = field(default_factory=list)
    last_line: int = 0  # the sanitized line before the next section, or the last line


class _PlanBuilder:
    def __init__(self, source: _Source, parser: "BoundedParser") -> None:
        self.source = source
        self.parser = parser
        self.problems: list[Problem] = []
        self.notes: list[Problem] = []

    def links(self, node: Node | None) -> list[Node]:
        """The links inside `node` (inlines are parsed here, on demand: bounds.py)."""
        if node is None:
            return []
        if not self.parser.inline(node):
            self.problem(
                self.source.line(node),
                f"a metadata line is longer than {MAX_INLINE_CHARS} characters",
                "keep metadata lines short: a path, a URL or a few words; longer text goes "
                "in the message or a file",
            )
        return list(descendants(node, "link"))

    def problem(self, line: int, message: str, hint: str) -> None:
        self.problems.append(Problem(line, message, hint))

    def build(self, document: Node) -> Plan | None:
        blocks = list(children(document))
        title = self._title(blocks)
        title_line = self.source.line(title) if title is not None else 1
        start = blocks.index(title) + 1 if title is not None else 0
        header, sections = self._sections(blocks[start:])
        metadata = self._plan_metadata(header)
        rationale = self._rationale(sections.get("rationale"), title_line)
        memos = self._memos(sections.get("memos"))
        actions = self._action_plan(sections.get("action plan"), title_line)
        if title is None or rationale is None or self.problems:
            return None
        try:
            return Plan(
                title=heading_text(self.source, title),
                metadata=metadata,
                rationale=rationale,
                memos=memos,
                actions=actions,
            )
        except ValidationError as error:  # a bug in this module, reported as a problem
            self.problem(title_line, f"internal: {error}", "report this plan to git-teddy")
            return None

    def _title(self, blocks: list[Node]) -> Node | None:
        titles = [block for block in blocks if is_heading(block, 1)]
        if not titles:
            self.problem(
                1,
                "the plan has no `#` title",
                "start the plan with one line `# A Descriptive Plan Title`",
            )
            return None
        for extra in titles[1:]:
            self.problem(
                self.source.line(extra),
                f"a second `#` title: `{heading_text(self.source, extra)}`",
                "a plan has exactly one `#` heading, its title; use `##` sections and "
                "`###` actions, or `####` inside an action",
            )
        if blocks[0] is not titles[0]:
            self.problem(
                self.source.line(blocks[0]),
                "text before the `#` title",
                "the `# Title` line must come first in the plan",
            )
        return titles[0]

    def _sections(self, blocks: list[Node]) -> tuple[list[Node], dict[str, _Section]]:
        header: list[Node] = []
        sections: dict[str, _Section] = {}
        current: _Section | None = None
        for block in blocks:
            if is_heading(block, 1):
                continue  # reported as a second title
            if is_heading(block, 2):
                if current is not None:
                    current.last_line = int(block.sourcepos[0][0]) - 1
                current = self._new_section(block, sections)
                current.last_line = len(self.source.lines)
            elif current is not None:
                current.blocks.append(block)
            else:
                header.append(block)
        return header, sections

    def _new_section(self, heading: Node, sections: dict[str, _Section]) -> _Section:
        """The section a `##` heading starts; unknown and repeated ones are not kept."""
        text = heading_text(self.source, heading)
        name = re.sub(r"\s+", " ", text.strip(" :")).lower()
        line = self.source.line(heading)
        if name not in SECTIONS:
            self.problem(
                line,
                f"unknown section `## {text}`",
                "a plan has the sections `## Rationale`, `## Memos` (optional) and "
                "`## Action Plan`; inside an action use `####` headings or plain text",
            )
            return _Section(name, heading)
        if name in sections:
            self.problem(line, f"a second `## {text}` section", "merge the two sections into one")
            return _Section(name, heading)
        sections[name] = _Section(name, heading)
        return sections[name]

    # -- header ----------------------------------------------------------------------------

    def _plan_metadata(self, header: list[Node]) -> dict[str, str]:
        metadata: dict[str, str] = {}
        for block in header:
            if block.t == "list" and not metadata:
                metadata = self._metadata_list(block)
            elif block.t == "code_block" or block.t == "heading":
                self.problem(
                    self.source.line(block),
                    "unexpected content between the title and `## Rationale`",
                    "after the title comes the metadata list (`- **Status:** ...`), "
                    "then `## Rationale`; actions go under `## Action Plan`",
                )
        return metadata

    def _metadata_list(self, node: Node) -> dict[str, str]:
        metadata: dict[str, str] = {}
        for item in self._items(node):
            if item.key in metadata:
                self.problem(item.line, f"metadata key `{item.key}` appears twice", "keep one")
            metadata[item.key] = item.value
        return metadata

    def _items(self, node: Node) -> list[_Item]:
        items = []
        for item in children(node):
            paragraph = item.first_child
            line = self.source.line(item)
            split = _split_item(self.source.raw(paragraph)) if paragraph is not None else None
            if paragraph is None or paragraph.t != "paragraph" or split is None:
                self.problem(
                    line,
                    "a metadata line is not of the form `- **Key:** value`",
                    "write each metadata line as `- **Key:** value`",
                )
                continue
            items.append(_Item(split[0], split[1], line, item))
        return items

    # -- rationale and memos ---------------------------------------------------------------

    def _rationale(self, section: _Section | None, title_line: int) -> str | None:
        hint = (
            "add `## Rationale` with one fenced block (````text ... ````) holding "
            "`### 1. Synthesis`, `### 2. Justification`, `### 3. Expected Outcome` and "
            "`### 4. State Dashboard`"
        )
        if section is None:
            self.problem(title_line, "the plan has no `## Rationale` section", hint)
            return None
        blocks = [block for block in section.blocks if block.t == "code_block"]
        line = self.source.line(section.heading)
        if not blocks:
            self.problem(line, "the Rationale is not inside a fenced code block", hint)
            return None
        for extra in blocks[1:]:
            self.problem(
                self.source.line(extra),
                "the Rationale has more than one code block",
                "put the whole Rationale in one block, fenced with more backticks than any "
                "run of backticks inside it",
            )
        text = _without_final_newline(blocks[0].literal)
        self.problems.extend(check_rationale(text, self.source.line(blocks[0])))
        return text

    def _memos(self, section: _Section | None) -> list[Memo]:
        if section is None:
            return []
        blocks = [block for block in section.blocks if block.t == "code_block"]
        if len(blocks) != 1:
            self.problem(
                self.source.line(section.heading),
                "`## Memos` must hold exactly one fenced code block",
                "put all memo lines (`[+] fact` or `[-] fact`) in one fenced block, "
                "or leave out the section",
            )
            return []
        first_line = self.source.line(blocks[0]) + 1
        memos = []
        for offset, text in enumerate(_without_final_newline(blocks[0].literal).split("\n")):
            if text.strip():
                memo = self._memo(text, first_line + offset)
                memos.extend([memo] if memo else [])
        return memos

    def _memo(self, text: str, line: int) -> Memo | None:
        match = _MEMO.match(text)
        hint = "start each memo line with `[+]` (remember) or `[-]` (forget); `#` starts a comment"
        if match is None:
            self.problem(line, f"memo line does not start with `[+]` or `[-]`: `{text}`", hint)
            return None
        op, rest = match.groups()
        comment_at = _MEMO_COMMENT.search(rest)
        body = rest[: comment_at.start()] if comment_at else rest
        comment = rest[comment_at.end() :].strip() if comment_at else ""
        if not body.strip():
            self.problem(line, "a memo line has no text", hint)
            return None
        return Memo(op="+" if op == "+" else "-", text=body.strip(), comment=comment or None)

    # -- actions ---------------------------------------------------------------------------

    def _action_plan(self, section: _Section | None, title_line: int) -> list[Action]:
        hint = f"add `## Action Plan` with one `###` heading per action, one of {_ACTION_LIST}"
        if section is None:
            self.problem(title_line, "the plan has no `## Action Plan` section", hint)
            return []
        headings = [i for i, block in enumerate(section.blocks) if is_heading(block, 3)]
        for block in section.blocks[: headings[0] if headings else None]:
            if block.t == "code_block":
                self.problem(
                    self.source.line(block),
                    "a code block before the first action",
                    "every code block belongs to an action under its `### ` heading",
                )
        if not headings:
            self.problem(self.source.line(section.heading), "the Action Plan has no action", hint)
            return []
        actions = []
        for number, start in enumerate(headings):
            end = headings[number + 1] if number + 1 < len(headings) else len(section.blocks)
            last_line = self._last_line(section, end)
            action = _ActionBuilder(self, section.blocks[start], section.blocks[start + 1 : end])
            built = action.build(last_line)
            actions.extend([built] if built is not None else [])
        return actions

    def _last_line(self, section: _Section, end: int) -> int:
        """The last sanitized line of an action: the line before what follows it."""
        if end < len(section.blocks):
            return int(section.blocks[end].sourcepos[0][0]) - 1
        return section.last_line


class _ActionBuilder:
    """Reads one `### ACTION` heading and the blocks under it."""

    def __init__(self, plan: _PlanBuilder, heading: Node, body: list[Node]) -> None:
        self.plan = plan
        self.source = plan.source
        self.heading = heading
        self.line = self.source.line(heading)
        raw_name = action_heading(self.source.lines[heading.sourcepos[0][0] - 1])
        self.raw_name = raw_name or heading_text(self.source, heading)
        self.type = normalize_action_name(self.raw_name)
        self.body = body
        self.fields: dict[str, _Item] = {}
        self.rest: list[Node] = body

    @property
    def where(self) -> str:
        return f"{self.type} at line {self.line}"

    def problem(self, message: str, hint: str, line: int | None = None) -> None:
        self.plan.problem(line or self.line, message, hint)

    def build(self, last_line: int) -> Action | None:
        if self.type not in ACTION_TYPES:
            self.problem(
                f"unknown action `{self.raw_name.strip('`')}` at line {self.line}",
                f"each `###` heading under `## Action Plan` names one action: {_ACTION_LIST}",
            )
            return None
        self._read_metadata()
        before = len(self.plan.problems)
        values = getattr(self, "_" + self.type.lower())(last_line)
        if values is None or len(self.plan.problems) > before:
            return None
        return _action_adapter().validate_python({"type": self.type, "line": self.line, **values})

    def _read_metadata(self) -> None:
        accepts = _ACCEPTS[self.type]
        if not self.body or self.body[0].t != "list":
            return
        item = self.body[0].first_child
        first = item.first_child if item is not None else None
        split = _split_item(self.source.raw(first)) if first is not None else None
        if split is None or self._field_name(split[0]) not in accepts:
            return  # a list that is part of a message, not metadata
        self.rest = self.body[1:]
        for item in self.plan._items(self.body[0]):
            name = self._field_name(item.key)
            if name in accepts and name not in self.fields:
                self.fields[name] = item

    def _field_name(self, key: str) -> str:
        name = _FIELDS.get(re.sub(r"[\s_]+", " ", key.strip().lower()), "")
        return "resource" if name == "path" and self.type in ("READ", "PRUNE") else name

    # -- field helpers ---------------------------------------------------------------------

    def text(self, name: str) -> str | None:
        item = self.fields.get(name)
        return item.value or None if item else None

    def required(self, name: str, label: str) -> _Item | None:
        item = self.fields.get(name)
        if item is None or (not item.value and not self.plan.links(item.node)):
            example = "[path/from/root](/path/from/root)" if "Path" in label else "..."
            self.problem(
                f"{self.where} has no `{label}`",
                f"add the metadata line `- **{label}:** {example}` under the heading",
            )
            return None
        return item

    def path(self, name: str = "path", label: str = "File Path") -> str | None:
        item = self.required(name, label)
        if item is None:
            return None
        kind, target = _resource(_target(self.plan, item))
        if kind != "file":
            self.problem(f"{self.where}: `{label}` must be a file in the project", LINK_HINT)
            return None
        self.plan.problems.extend(check_path(target, item.line, self.where))
        self.check_link(item, label, target)
        return target

    def check_link(self, item: _Item, label: str, target: str) -> None:
        """A project path must be a root-relative link whose text names the same path (spec
        004 section 3); the sanitizer has repaired the forms whose meaning is clear."""
        if any(problem.line == item.line for problem in self.plan.problems):
            return  # one problem per line: the path itself is wrong already
        links = self.plan.links(item.node.first_child)
        if not links:
            broken = re.match(r"^\[(.*)\]\((.*)\)$", item.value)
            named = broken.group(2).lstrip("/") if broken else target
            self.problem(
                f"{self.where}: `{label}` `{item.value}` is not a "
                + ("link CommonMark can read" if broken else "root-relative link"),
                f"write it as [{named}](</{named}>): the same path as text and as target, "
                "the target in angle brackets when it has spaces",
                item.line,
            )
            return
        text = _link_text(links[0])
        # The text as written too: CommonMark reads `_a_` or `*a*` in it as emphasis.
        written = re.match(r"^\[(.*)\]\(", item.value)
        destination = str(links[0].destination)
        if same_path(text, destination) is None and (
            written is None or same_path(written.group(1), destination) is None
        ):
            self.problem(
                f"{self.where}: the link text `{text}` and its target "
                f"`{links[0].destination}` name different paths",
                f"write the path in both, as [{target}](/{target}); " + LINK_HINT,
                item.line,
            )

    def resource(self) -> tuple[str, str] | None:
        item = self.required("resource", "Resource")
        if item is None:
            return None
        kind, target = _resource(_target(self.plan, item))
        if kind == "file" and is_session_ref(target):  # a turn's history (spec 002 4.1)
            return kind, target
        check = check_url if kind == "url" else check_path
        self.plan.problems.extend(check(target, item.line, self.where))
        if kind == "file":  # a part of the file: `#L120-L180`, `#split_into`
            self.plan.problems.extend(_part_problems(target, item.line, self.where))
            self.check_link(item, "Resource", target)
        return kind, target

    def handoff_resources(self) -> list[str]:
        item = self.fields.get("handoff_resources")
        if item is None:
            return []
        targets = [link.destination for link in self.plan.links(item.node)]
        if not targets:
            nested = [node for node in children(item.node) if node.t == "list"]
            targets = [
                _strip_wrapping(self.source.raw(entry.first_child))
                for entry in (children(nested[0]) if nested else [])
                if entry.first_child is not None
            ]
            targets += [t for t in re.split(r"[,\s]+", _strip_wrapping(item.value)) if t]
        resources = []
        for target in targets:
            kind, resource = _resource(target)
            check = check_url if kind == "url" else check_path
            self.plan.problems.extend(check(resource, item.line, self.where))
            resources.append(resource)
        return resources

    def code_blocks(self) -> list[Node]:
        return [block for block in self.rest if block.t == "code_block"]

    def first_block(self, what: str) -> Node | None:
        """The first code block (spec 004 5.1, 5.4); a note names the ones left out."""
        blocks = self.code_blocks()
        fence_hint = (
            "put it in one fenced block whose fence has more backticks than any run of "
            "backticks inside it"
        )
        if not blocks:
            self.problem(f"{self.where} has no code block with {what}", fence_hint)
            return None
        if len(blocks) > 1:
            lines = ", ".join(str(self.source.line(block)) for block in blocks[1:])
            self.plan.notes.append(
                Problem(
                    self.source.line(blocks[1]),
                    f"{self.where} has {len(blocks)} code blocks: the first is {what}, "
                    f"the block(s) at line {lines} are left out",
                    fence_hint,
                )
            )
        return blocks[0]

    def message(self, last_line: int) -> str | None:
        first = next(iter(self.rest), None)
        text = self.source.span(first.sourcepos[0][0], last_line) if first is not None else ""
        if not text.strip():
            self.problem(
                f"{self.where} has no message",
                "write the message as plain Markdown after the heading and its metadata list",
            )
            return None
        return text

    # -- one method per action type --------------------------------------------------------

    def _create(self, last_line: int) -> dict[str, object] | None:
        path = self.path()
        block = self.first_block("the file's content")
        if path is None or block is None:
            return None
        overwrite = (self.text("overwrite") or "").strip().lower() in _YES
        return {
            "path": path,
            "description": self.text("description"),
            "content": block.literal,
            "overwrite": overwrite,
        }

    def _read(self, last_line: int) -> dict[str, object] | None:
        resource = self.resource()
        if resource is None:
            return None
        kind, target = resource
        return {"resource": target, "kind": kind, "description": self.text("description")}

    def _prune(self, last_line: int) -> dict[str, object] | None:
        resource = self.resource()
        if resource is None:
            return None
        return {"resource": resource[1], "description": self.text("description")}

    def _edit(self, last_line: int) -> dict[str, object] | None:
        path = self.path()
        edits = _EditReader(self).read()
        if path is None or edits is None:
            return None
        return {"path": path, "description": self.text("description"), "edits": edits}

    def _execute(self, last_line: int) -> dict[str, object] | None:
        block = self.first_block("the command")
        if block is None:
            return None
        command = _without_final_newline(block.literal)
        if not command.strip():
            self.problem(f"{self.where} has an empty command", "write the shell command to run")
        return {
            "command": command,
            "description": self.text("description"),
            "expected_outcome": self.text("expected_outcome"),
            "cwd": self._cwd(),
            "env": self._env(),
            "expect_failure": (self.text("expect_failure") or "").strip().lower() in _YES,
        }

    def _cwd(self) -> str | None:
        item = self.fields.get("cwd")
        if item is None or not item.value:
            return None
        _, target = _resource(_target(self.plan, item))
        self.plan.problems.extend(check_path(target, item.line, f"{self.where} (cwd)"))
        return target

    def _env(self) -> dict[str, str]:
        item = self.fields.get("env")
        if item is None:
            return {}
        env = {}
        nested = [node for node in children(item.node) if node.t == "list"]
        for entry in children(nested[0]) if nested else []:
            raw = self.source.raw(entry.first_child) if entry.first_child is not None else ""
            match = _ENV_ITEM.match(raw)
            if match is None:
                self.problem(
                    f'{self.where}: env line `{raw}` is not `NAME`: "value"',
                    'write each variable as a nested item: - `NAME`: "value"',
                    self.source.line(entry),
                )
                continue
            env[match.group(1)] = _unquote_value(match.group(2).strip())
        return env

    def _research(self, last_line: int) -> dict[str, object] | None:
        queries = [_without_final_newline(block.literal) for block in self.code_blocks()]
        if not queries:
            self.problem(
                f"{self.where} has no query",
                "write each search query in its own fenced block (````text ... ````)",
            )
            return None
        if any(not query.strip() for query in queries):
            self.problem(f"{self.where} has an empty query", "remove the empty block")
        return {"description": self.text("description"), "queries": queries}

    def _chat_with_user(self, last_line: int) -> dict[str, object] | None:
        message = self.message(last_line)
        return None if message is None else {"message": message}

    def _invoke(self, last_line: int) -> dict[str, object] | None:
        agent = self.required("agent", "Agent")
        resources = self.handoff_resources()
        message = self.message(last_line)
        if agent is None or message is None:
            return None
        name = _strip_wrapping(agent.value)
        return {"agent": name, "handoff_resources": resources, "message": message}

    def _conclude(self, last_line: int) -> dict[str, object] | None:
        resources = self.handoff_resources()
        message = self.message(last_line)
        if message is None:
            return None
        return {"handoff_resources": resources, "message": message}


class _EditReader:
    """Pairs `FIND:` and `REPLACE:` blocks, reporting every unpaired marker or block."""

    HINT = (
        "write one or more pairs: a line `FIND:` followed by a fenced block with the exact "
        "text to find, then a line `REPLACE:` followed by a fenced block with its replacement"
    )

    def __init__(self, action: _ActionBuilder) -> None:
        self.action = action
        self.source = action.source
        self.edits: list[dict[str, str]] = []
        self.marker: tuple[str, int] | None = None
        self.find: tuple[str, int] | None = None
        self.failed = False

    def problem(self, message: str, line: int) -> None:
        self.failed = True
        self.action.problem(message, self.HINT, line)

    def read(self) -> list[dict[str, str]] | None:
        for block in self.action.rest:
            marker = is_marker(self.source.raw(block)) if block.t == "paragraph" else None
            if marker is not None:
                self._on_marker(marker, self.source.line(block))
            elif block.t == "code_block":
                self._on_block(block)
        self._finish()
        return None if self.failed else self.edits

    def _on_marker(self, marker: str, line: int) -> None:
        if self.marker is not None:
            self.problem(
                f"{self.action.where}: `{self.marker[0]}:` at line {self.marker[1]} "
                "is not followed by a code block",
                self.marker[1],
            )
        if marker == "FIND" and self.find is not None:
            self._unpaired_find()
        self.marker = (marker, line)

    def _on_block(self, block: Node) -> None:
        line = self.source.line(block)
        text = _without_final_newline(block.literal)
        if self.marker is None:
            self.problem(
                f"{self.action.where}: the code block at line {line} has no `FIND:` or "
                "`REPLACE:` line before it",
                line,
            )
        elif self.marker[0] == "FIND":
            if not text:
                self.problem(f"{self.action.where}: the FIND block at line {line} is empty", line)
            self.find = (text, line)
        elif self.find is None:
            self.problem(
                f"{self.action.where} has a REPLACE block (line {line}) without a FIND block "
                "before it",
                line,
            )
        else:
            self.edits.append({"find": self.find[0], "replace": text})
            self.find = None
        self.marker = None

    def _unpaired_find(self) -> None:
        assert self.find is not None
        self.problem(
            f"{self.action.where} has a FIND block (line {self.find[1]}) without a REPLACE block",
            self.find[1],
        )
        self.find = None

    def _finish(self) -> None:
        if self.marker is not None:
            self.problem(
                f"{self.action.where}: `{self.marker[0]}:` at line {self.marker[1]} is not "
                "followed by a code block",
                self.marker[1],
            )
        if self.find is not None:
            self._unpaired_find()
        if not self.edits and not self.failed:
            self.problem(f"{self.action.where} has no FIND/REPLACE pair", self.action.line)


# -- small pure helpers --------------------------------------------------------------------


def _split_item(raw: str) -> tuple[str, str] | None:
    """`**Key:** value` or `Key: value` -> (key, value without an "(Optional)" note)."""
    match = _BOLD_ITEM.match(raw) or _PLAIN_ITEM.match(raw)
    if match is None:
        return None
    key, value = match.group(1).strip(), match.group(2).strip()
    return key, _OPTIONAL.sub("", value).strip()


def _target(plan: _PlanBuilder, item: _Item) -> str:
    """The link destination of a metadata line, else its value without wrapping."""
    links = plan.links(item.node.first_child)
    if links:
        return str(links[0].destination)
    return _strip_wrapping(item.value)


def _part_problems(target: str, line: int, where: str) -> list[Problem]:
    fragment = split_part(target)[1]
    problem = fragment_problem(fragment) if fragment is not None else None
    return [Problem(line, f"{where}: {problem}", PART_HINT)] if problem else []


def _link_text(link: Node) -> str:
    """The text of a link as written, code spans included."""
    return "".join(
        str(node.literal or "")
        for node in _walk(link)
        if node.t in ("text", "code") and node is not link
    )


def _walk(node: Node) -> Iterator[Node]:
    walker = node.walker()
    event = walker.nxt()
    while event is not None:
        if event["entering"]:
            yield event["node"]
        event = walker.nxt()


def _strip_wrapping(value: str) -> str:
    return value.strip().strip("`<>\"'").strip()


def _resource(target: str) -> tuple[str, str]:
    """("url", URL) for http(s) and other schemes; ("file", path without leading "/")."""
    if re.match(r"^[A-Za-z][A-Za-z0-9+.\-]*://", target) or target.startswith("www."):
        return "url", target
    path = unquote(target)
    return "file", path[1:] if path.startswith("/") else path


def _unquote_value(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'`":
        return value[1:-1]
    return value


def _without_final_newline(text: str) -> str:
    return text[:-1] if text.endswith("\n") else text
