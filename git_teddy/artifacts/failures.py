"""Which tests a test run says failed (pure): each failing test's name, its first assertion
message and where it failed, read from the output of pytest, unittest, uvu, node's test
runner (TAP and spec reporters), jest, vitest, mocha, go test and cargo test; None for
output no runner here recognizes (the caller then quotes its first error line). Each reader
was written against a real run of the tool (tests/fixtures/runner_output/)."""

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

MESSAGE_CHARS = 200  # of a failure's message, joined onto one line
MOST_FAILURES = 10  # failing tests listed; the rest are counted

# Colour and cursor codes (CSI sequences) and the few other escapes runners print.
_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-Z\\-_]")
# `at fn (file:///a/b.mjs:11:10)`, `at file:///a/b.mjs:11:10`, `at Object.x (t/a.js:8:23)`
_STACK_FRAME = re.compile(r"^\s*at (?:.*?\()?(?:file://)?(?P<where>[^()\s]+:\d+:\d+)\)?\s*$")
_INTERNAL = ("node:", "node_modules/", "internal/")


@dataclass(frozen=True)
class FailedTest:
    name: str
    message: str | None = None  # the first assertion message, on one line
    location: str | None = None  # `path:line` (`:column` when the runner gives one)

    def line(self) -> str:
        """`name (location): message`: one line for a summary."""
        where = f" ({self.location})" if self.location else ""
        return f"{self.name}{where}" + (f": {self.message}" if self.message else "")


@dataclass(frozen=True)
class Failures:
    runner: str  # pytest, unittest, uvu, node --test, jest, vitest, mocha, go test, cargo test
    tests: tuple[FailedTest, ...]

    def lines(self) -> list[str]:
        shown = [test.line() for test in self.tests[:MOST_FAILURES]]
        more = len(self.tests) - len(shown)
        return [*shown, *([f"... and {more} more"] if more > 0 else [])]


def plain(text: str) -> str:
    """`text` without colour and cursor codes, its line ends `\\n`."""
    return _ESCAPES.sub("", text).replace("\r\n", "\n")


def failed_tests(output: str) -> Failures | None:
    """The failing tests `output` (a test run's stdout and stderr) names, by the first
    runner whose failure report it holds; None when none does."""
    lines = plain(output).split("\n")
    for runner, read in _READERS:
        found = read(lines)
        if found:
            return Failures(runner, tuple(found))
    return None


def _one_line(parts: Sequence[str]) -> str | None:
    text = " ".join(" ".join(part.split()) for part in parts if part.strip())
    if not text:
        return None
    return text if len(text) <= MESSAGE_CHARS else text[: MESSAGE_CHARS - 1] + "…"


def _own_frame(lines: Sequence[str]) -> str | None:
    """The first stack frame in the project's own code (not node's, not a dependency's)."""
    for line in lines:
        match = _STACK_FRAME.match(line)
        if match and not any(part in match["where"] for part in _INTERNAL):
            return match["where"]
    return None


def _blocks(
    lines: Sequence[str], start: re.Pattern[str]
) -> Iterator[tuple[re.Match[str], list[str]]]:
    """Each line `start` matches, with the lines up to the next such line."""
    heads = [(i, m) for i, m in ((i, start.match(line)) for i, line in enumerate(lines)) if m]
    for n, (index, match) in enumerate(heads):
        end = heads[n + 1][0] if n + 1 < len(heads) else len(lines)
        yield match, list(lines[index + 1 : end])


# ---- pytest -----------------------------------------------------------------------------------

_PYTEST_HEAD = re.compile(r"^_{3,} (?P<name>.+?) _{3,}$")
_PYTEST_WHERE = re.compile(r"^(?P<where>\S+:\d+): \w+$")
_PYTEST_SUMMARY = re.compile(r"^(?:FAILED|ERROR) (?P<id>\S+)(?: - (?P<message>.*))?$")
_PYTEST_SECTION = re.compile(r"^={3,} .* ={3,}$")


def _pytest(lines: Sequence[str]) -> list[FailedTest]:
    ids = [m for m in map(_PYTEST_SUMMARY.match, lines) if m]
    if not any(_PYTEST_SECTION.match(line) for line in lines):
        return []
    found = []
    for head, block in _blocks(lines, _PYTEST_HEAD):
        block = block[: next((i for i, s in enumerate(block) if _PYTEST_SECTION.match(s)), None)]
        name = head["name"]
        test_id = next((m["id"] for m in ids if m["id"].endswith(f"::{name}")), name)
        errors = [line[1:].strip() for line in block if line.startswith("E ")]
        wheres = [m["where"] for m in map(_PYTEST_WHERE.match, block) if m]
        found.append(FailedTest(test_id, _one_line(errors[:1]), wheres[-1] if wheres else None))
    if not found:  # --tb=no, -rf: only the summary lines
        found = [FailedTest(m["id"], m["message"]) for m in ids]
    return found


# ---- unittest ---------------------------------------------------------------------------------

_UNITTEST_HEAD = re.compile(r"^(?:FAIL|ERROR): (?P<method>\S+) \((?P<where>[^)]+)\)")
_UNITTEST_FILE = re.compile(r'^\s*File "(?P<path>[^"]+)", line (?P<line>\d+)')


def _unittest(lines: Sequence[str]) -> list[FailedTest]:
    found = []
    for head, block in _blocks(lines, _UNITTEST_HEAD):
        end = next((i for i, s in enumerate(block[1:], 1) if re.match(r"^[-=]{20,}$", s)), None)
        block = block[:end]
        where, method = head["where"], head["method"]
        name = where if where.endswith(f".{method}") else f"{where}.{method}"
        files = [f"{m['path']}:{m['line']}" for m in map(_UNITTEST_FILE.match, block) if m]
        body = [s for s in block if s.strip() and not re.match(r"^[-=]{20,}$", s)]
        message = next((s for s in body if not s.startswith((" ", "Traceback"))), None)
        location = files[-1] if files else None  # the innermost frame: the assertion
        found.append(FailedTest(name, _one_line([message] if message else []), location))
    return found


# ---- node --test: TAP (the default without a terminal) and spec ------------------------------

_TAP_NOT_OK = re.compile(r"^(?P<indent>\s*)not ok \d+ - (?P<name>.+?)(?: # .*)?$")
_TAP_FIELD = re.compile(r"^\s*(?P<key>[\w]+): ?(?P<value>.*)$")


def _node_tap(lines: Sequence[str]) -> list[FailedTest]:
    found = []
    for head, block in _blocks(lines, _TAP_NOT_OK):
        end = next((i for i, s in enumerate(block) if s.strip() == "..."), len(block))
        fields, message, stack = _tap_yaml(block[:end])
        if fields.get("failureType") == "'subtestsFailed'":
            continue  # a suite failed because a test inside it did: that test is listed
        location = _own_frame(stack) or fields.get("location", "").strip("'") or None
        found.append(FailedTest(head["name"], _one_line(message), _no_file_scheme(location)))
    return found


def _tap_yaml(block: Sequence[str]) -> tuple[dict[str, str], list[str], list[str]]:
    """A TAP diagnostic's fields, its `error` lines and its stack's frames (as `at` lines)."""
    fields: dict[str, str] = {}
    message: list[str] = []
    stack: list[str] = []
    into: list[str] | None = None
    for line in block:
        match = _TAP_FIELD.match(line)
        if match and len(line) - len(line.lstrip()) <= 2:
            key, value = match["key"], match["value"]
            fields[key] = value
            into = {"error": message, "stack": stack}.get(key)
            if into is message and value not in ("|-", "|", ">-"):
                message.append(value.strip("'\""))
            continue
        if into is not None:
            into.append(f"at {line.strip()}" if into is stack else line)
    return fields, message, stack


def _no_file_scheme(location: str | None) -> str | None:
    return location.removeprefix("file://") if location else None


_SPEC_FAILING = re.compile(r"^✖ failing tests:$")
_SPEC_FAILED = re.compile(r"^(?P<indent>\s*)✖ (?P<name>.+?)(?: \([\d.]+m?s\))?$")


def _node_spec(lines: Sequence[str]) -> list[FailedTest]:
    start = next((i for i, s in enumerate(lines) if _SPEC_FAILING.match(s)), None)
    if start is None:
        return []
    found = []
    for head, block in _blocks(lines[start + 1 :], _SPEC_FAILED):
        block = [s for s in block if not s.startswith("test at ")]
        message = _until_stack(block, stop=("{",))
        found.append(FailedTest(head["name"], _one_line(message), _own_frame(block)))
    return found


def _until_stack(block: Sequence[str], stop: tuple[str, ...] = (), most: int = 3) -> list[str]:
    """A failure's message: its first lines (at most `most` that are not blank), up to
    its stack, a code frame or a line ending with one of `stop`."""
    message: list[str] = []
    for line in block:
        stripped = line.strip()
        if _STACK_FRAME.match(line) or re.match(r"^>?\s*\d+ ?\|", stripped):
            break
        if stripped:
            message.append(stripped)
        if len(message) >= most or (stripped and stripped.endswith(stop) and stop):
            break
    return message


# ---- jest, vitest, mocha, uvu -----------------------------------------------------------------

_JEST_HEAD = re.compile(r"^\s*● (?P<name>.+)$")
_JEST_END = re.compile(r"^(?:Test Suites:|Tests:|Snapshots:|Time:)")


def _jest(lines: Sequence[str]) -> list[FailedTest]:
    if not any(line.startswith("Test Suites:") for line in lines):
        return []
    found = []
    for head, block in _blocks(lines, _JEST_HEAD):
        block = block[: next((i for i, s in enumerate(block) if _JEST_END.match(s)), None)]
        message = _until_stack(block)
        found.append(FailedTest(head["name"].strip(), _one_line(message), _own_frame(block)))
    return found


_VITEST_HEAD = re.compile(r"^\s*FAIL\s+(?P<name>\S.* > .+?)\s*$")
_VITEST_WHERE = re.compile(r"^\s*\u276f (?P<where>\S+:\d+:\d+)\s*$")
_VITEST_END = re.compile(r"^\s*(?:⎯{3,}|Test Files\s)")


def _vitest(lines: Sequence[str]) -> list[FailedTest]:
    found = []
    for head, block in _blocks(lines, _VITEST_HEAD):
        block = block[: next((i for i, s in enumerate(block) if _VITEST_END.match(s)), None)]
        first = next((s.strip() for s in block if s.strip()), None)
        where = next((m["where"] for m in map(_VITEST_WHERE.match, block) if m), None)
        found.append(FailedTest(head["name"], _one_line([first] if first else []), where))
    return found


_MOCHA_FAILING = re.compile(r"^\s*\d+ failing$")
_MOCHA_HEAD = re.compile(r"^\s*\d+\) (?P<name>.+)$")


def _mocha(lines: Sequence[str]) -> list[FailedTest]:
    start = next((i for i, s in enumerate(lines) if _MOCHA_FAILING.match(s)), None)
    if start is None:
        return []
    found = []
    for head, block in _blocks(lines[start + 1 :], _MOCHA_HEAD):
        titles = [head["name"].strip()]
        rest = list(block)
        while rest and not titles[-1].endswith(":"):  # a title goes on until a colon ends it
            line = rest.pop(0)
            if line.strip():
                titles.append(line.strip())
        name = " ".join(titles).removesuffix(":")
        message = _until_stack(rest, stop=("+ expected - actual",))
        message = [s for s in message if s != "+ expected - actual"]
        found.append(FailedTest(name, _one_line(message), _own_frame(rest)))
    return found


_UVU_HEAD = re.compile(r'^\s*FAIL\s+(?:(?P<suite>.+?)\s+)?"(?P<name>.*)"\s*$')


def _uvu(lines: Sequence[str]) -> list[FailedTest]:
    if not any(re.match(r"^\s*Total:\s+\d+", line) for line in lines):
        return []
    found = []
    for head, block in _blocks(lines, _UVU_HEAD):
        message = _until_stack(block)
        name = f"{head['suite']}: {head['name']}" if head["suite"] else head["name"]
        found.append(FailedTest(name, _one_line(message), _own_frame(block)))
    return found


# ---- go test, cargo test ----------------------------------------------------------------------

_GO_RUN = re.compile(r"^\s*=== (?:RUN|CONT|PAUSE)\s+(?P<name>\S+)")
_GO_RESULT = re.compile(r"^\s*--- (?P<result>FAIL|PASS|SKIP): (?P<name>\S+) \(")
_GO_LOG = re.compile(r"^\s+(?P<where>[\w./-]+\.go:\d+): (?P<message>.*)$")
_GO_PANIC = re.compile(r"^panic: (?P<message>.+)$")


def _go(lines: Sequence[str]) -> list[FailedTest]:
    logs: dict[str, list[tuple[str, str]]] = {}
    failed: list[str] = []
    current: str | None = None
    for line in lines:
        if match := _GO_RUN.match(line):
            current = match["name"]
        elif match := _GO_RESULT.match(line):
            current = match["name"]
            if match["result"] == "FAIL":
                failed.append(current)
        elif (match := _GO_LOG.match(line)) and current:
            logs.setdefault(current, []).append((match["where"], match["message"]))
        elif (match := _GO_PANIC.match(line)) and current:
            logs.setdefault(current, []).append(("", f"panic: {match['message']}"))
    leaves = [n for n in failed if not any(o.startswith(f"{n}/") for o in failed)]
    found = []
    for name in leaves:
        where, message = (logs.get(name) or [("", "")])[0]
        found.append(FailedTest(name, message or None, where or None))
    return found


_CARGO_FAILED = re.compile(r"^test (?P<name>\S+) \.\.\. FAILED$")
_CARGO_PANIC = re.compile(
    r"^thread '(?P<name>[^']+)'(?: \(\d+\))? panicked at "
    r"(?:'(?P<old>.*)', )?(?P<where>\S+?:\d+:\d+):?$"
)


def _cargo(lines: Sequence[str]) -> list[FailedTest]:
    names = [m["name"] for m in map(_CARGO_FAILED.match, lines) if m]
    panics: dict[str, FailedTest] = {}
    for index, line in enumerate(lines):
        match = _CARGO_PANIC.match(line)
        if match and match["name"] not in panics:
            message = [match["old"]] if match["old"] else _panic_message(lines[index + 1 :])
            panics[match["name"]] = FailedTest(match["name"], _one_line(message), match["where"])
    return [panics.get(name, FailedTest(name)) for name in names]


def _panic_message(rest: Sequence[str]) -> list[str]:
    message: list[str] = []
    for line in rest[:4]:
        if not line.strip() or line.startswith(("note:", "stack backtrace:")):
            break
        message.append(line)
    return message


_READERS: tuple[tuple[str, Callable[[Sequence[str]], list[FailedTest]]], ...] = (
    ("pytest", _pytest),
    ("unittest", _unittest),
    ("cargo test", _cargo),
    ("go test", _go),
    ("vitest", _vitest),
    ("jest", _jest),
    ("mocha", _mocha),
    ("uvu", _uvu),
    ("node --test", _node_spec),
    ("node --test", _node_tap),
)
