"""Running one approved action inside the scratch worktree; each returns its outcome."""

import contextlib
import os
import selectors
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from git_teddy.artifacts.context_list import is_session_ref
from git_teddy.artifacts.output import OutputBuffer, cut_notes, first_error, readable
from git_teddy.artifacts.paths import PathRefused, confine
from git_teddy.artifacts.plan.models import (
    Action,
    ChatWithUser,
    Conclude,
    Create,
    EditFile,
    Execute,
    Invoke,
    Prune,
    Read,
    Research,
)
from git_teddy.artifacts.read_parts import PartError, resolve, split_part
from git_teddy.artifacts.report import edited_regions
from git_teddy.execute.edit import EditFailure, apply_edits
from git_teddy.gitstore.runner import isolated_environ
from git_teddy.settings import EXECUTE_OUTPUT_CAP
from git_teddy.ui import UI

HTTP_TIMEOUT = 20.0
DRAIN_SECONDS = 1.0  # after a timeout's kill, how long what the command wrote is still read
HELD_OPEN = (
    "; a process outside the command's process group (started with setsid or as a daemon) "
    "kept its output open and may still run"
)


@dataclass
class Outcome:
    ok: bool
    summary: str  # one line for the terminal and the session log
    details: dict[str, Any] = field(default_factory=dict)


@dataclass
class ActionEnv:
    """What actions may use besides the worktree; all I/O with the user goes through here."""

    root: Path
    timeout: float
    output_cap: int
    search_url: str | None
    ui: UI  # the model's questions (CHAT_WITH_USER) go to the person through it
    on_child: Callable[[int | None], None] = lambda _pgid: None
    environ: dict[str, str] = field(default_factory=dict)  # added to EXECUTE commands' own
    allow_private: bool = False  # teddy.web.allowPrivate
    approve_url: Callable[[str], None] = lambda _url: None  # a READ URL, for the session


def params_of(action: Action) -> dict[str, Any]:
    """The action's parameters for the report (file contents stay in plan.md)."""
    params = action.model_dump(exclude={"type", "description"})
    if isinstance(action, Create):
        params["content"] = f"<{len(action.content.encode())} bytes, see plan.md>"
    if isinstance(action, EditFile):
        params["edits"] = len(action.edits)
    return params


def run_action(action: Action, env: ActionEnv) -> Outcome:
    try:
        return _RUNNERS[type(action)](action, env)
    except PathRefused as refused:
        return Outcome(False, f"refused: {refused}", {"error": str(refused)})
    except OSError as error:
        # The file system said no (a name too long, a file where a folder must be, a
        # folder where a file must be): the action failed, the turn is recorded as such.
        message = _os_error(error, env.root)
        return Outcome(False, message, {"error": message})


def _os_error(error: OSError, root: Path) -> str:
    """`error` in one line, its path from the worktree's root (the scratch folder is not
    the user's business)."""
    reason = error.strerror or str(error)
    if error.filename is None:
        return reason
    path = Path(os.fsdecode(error.filename))
    shown = path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
    if isinstance(error, FileExistsError) and not path.is_dir():  # from mkdir
        return f"{shown} is a file where a folder is needed"
    return f"{reason}: {shown}"


def _create(action: Create, env: ActionEnv) -> Outcome:
    path = confine(env.root, action.path)
    if (path.exists() or path.is_symlink()) and not action.overwrite:
        message = (
            f"{action.path} already exists; CREATE does not overwrite it unless the plan "
            "says `- **Overwrite:** yes`; use EDIT to change it"
        )
        return Outcome(False, message, {"error": message})
    if path.is_dir():
        message = f"{action.path} is a folder"
        return Outcome(False, message, {"error": message})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)  # an overwritten symlink is replaced, never followed
    path.write_text(action.content, encoding="utf-8")
    return Outcome(True, f"created {action.path} ({len(action.content.encode())} bytes)")


def _edit(action: EditFile, env: ActionEnv) -> Outcome:
    path = confine(env.root, action.path)
    if not path.is_file():
        message = f"{action.path} does not exist; use CREATE for new files"
        return Outcome(False, message, {"error": message})
    # bytes, not read_text/write_text: their newline translation turned CRLF files into LF
    text = path.read_bytes().decode("utf-8", errors="surrogateescape")
    try:
        new = apply_edits(text, [(e.find, e.replace) for e in action.edits])
    except EditFailure as failure:
        details: dict[str, Any] = {"error": failure.message}
        if failure.closest is not None:
            details["closest_match"] = {"line": failure.closest_line, "text": failure.closest}
        return Outcome(False, f"{action.path}: {failure.message}", details)
    path.write_bytes(new.encode("utf-8", errors="surrogateescape"))
    regions = edited_regions(text, new)  # the file as it now reads there, lines numbered
    return Outcome(
        True, f"edited {action.path} ({len(action.edits)} change(s))", {"regions": regions}
    )


def _execute(action: Execute, env: ActionEnv) -> Outcome:
    cwd = confine(env.root, action.cwd) if action.cwd else env.root
    started = time.monotonic()
    environ = {**isolated_environ(), **env.environ, **action.env}  # git sees the worktree
    # Python then writes each line as it prints it: shown as it comes (a plan may say otherwise)
    environ.setdefault("PYTHONUNBUFFERED", "1")
    proc = subprocess.Popen(
        action.command,
        shell=True,
        cwd=cwd,
        env=environ,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own process group: a timeout kills all it started
    )
    env.on_child(proc.pid)
    try:
        stdout, stderr, ending = _stream(proc, env, started + env.timeout)
    except BaseException:
        with contextlib.suppress(ProcessLookupError):  # gone already: nothing left to stop
            os.killpg(proc.pid, signal.SIGKILL)  # Ctrl-C: nothing may outlive the run
        proc.wait()
        raise
    finally:
        env.on_child(None)
    details: dict[str, Any] = {"return_code": proc.returncode}
    for name, buffer in (("stdout", stdout), ("stderr", stderr)):
        details.update(_shown(name, buffer, env.output_cap))
    details["duration_s"] = round(time.monotonic() - started, 3)
    if ending is not None:
        details["error"] = f"timed out after {env.timeout:g} s (teddy.execute.timeout){ending}"
        return Outcome(False, details["error"], details)
    return _judged(action, proc.returncode, details, stdout, stderr, env.root)


def _judged(
    action: Execute,
    code: int,
    details: dict[str, Any],
    stdout: OutputBuffer,
    stderr: OutputBuffer,
    root: Path,
) -> Outcome:
    """A finished command's outcome: its exit code against what the plan expected, and why
    it failed (the failing tests a runner named, else the first error line)."""
    if code == 0:
        if action.expect_failure:  # a red test that passes tests nothing yet
            details = {"expected_failure": "passed, but the plan expected it to fail", **details}
            return Outcome(False, "exit code 0, but the plan expected it to fail", details)
        return Outcome(True, "exit code 0", details)
    from git_teddy.artifacts.failures import failed_tests  # its patterns: for a failure only

    failures = failed_tests(stdout.kept() + "\n" + stderr.kept())  # a test runner's report
    if failures is not None:  # first in the report: what failed, before the output
        lines = [_from_root(line, root) for line in failures.lines()]
        named = {"runner": failures.runner, "count": len(failures.tests), "tests": lines}
        details = {"failed_tests": named, **details}
        more = len(failures.tests) - 1  # the summary: the first failing test, how many more
        cause: str | None = lines[0] + (f" (and {more} more failed)" if more else "")
    else:  # the cause, not just the code
        error = first_error(stdout.error_text(), stderr.error_text())
        cause = readable(error)[0] if error else None  # without its colour codes
    summary = f"exit code {code}" + (f": {cause}" if cause else "")
    if action.expect_failure:  # a red test, as the plan said: not a failure of the turn
        details = {"expected_failure": "failed as expected", **details}
        return Outcome(True, f"failed as expected: {summary}", details)
    return Outcome(False, summary, details)


def _shown(name: str, buffer: OutputBuffer, cap: int) -> dict[str, Any]:
    """One stream as the report shows it: block text, and notes saying what was cut (the
    setting named) and what was made printable, before it."""
    text, notes = readable(buffer.clipped())
    if buffer.size > cap:
        notes[:0] = cut_notes(buffer.lines, buffer.size, cap, EXECUTE_OUTPUT_CAP.key)
    return {f"{name}_notes": notes, name: text} if notes else {name: text}


def _from_root(line: str, root: Path) -> str:
    """Paths in the scratch worktree as the project's own (`tests/a.py:3`)."""
    return line.replace(f"file://{root}/", "").replace(f"{root}/", "")


def _stream(
    proc: "subprocess.Popen[bytes]", env: ActionEnv, deadline: float
) -> tuple[OutputBuffer, OutputBuffer, str | None]:
    """The command's stdout and stderr as the report keeps them (bounded whatever their
    size), each chunk shown through the UI as it comes (a terminal sees the command run);
    and None, or how a timeout ended it: at the deadline the command is killed with all it
    started, what it wrote meanwhile is read for a moment, and reading stops even when a
    process outside its group still holds the output open."""
    assert proc.stdout is not None and proc.stderr is not None  # both are pipes
    out, err = proc.stdout.fileno(), proc.stderr.fileno()
    captured = {out: OutputBuffer(env.output_cap), err: OutputBuffer(env.output_cap)}
    with selectors.DefaultSelector() as selector:
        for fd in captured:
            selector.register(fd, selectors.EVENT_READ)
        last = _read_until(selector, captured, env, deadline)
        ending = _ended_by_timeout(proc, selector, captured, env, deadline)
    if last != b"\n":
        env.ui.command_output(b"\n")  # the next line of ours starts on a line of its own
    proc.stdout.close()  # our end: an outsider holding the other gets SIGPIPE, not us
    proc.stderr.close()
    return captured[out], captured[err], ending


def _read_until(
    selector: selectors.BaseSelector,
    captured: dict[int, OutputBuffer],
    env: ActionEnv | None,
    deadline: float,
) -> bytes:
    """Reads the registered pipes until each is closed or `deadline` passes, shown through
    the UI (when given) as it comes; the last byte read (a newline when none was)."""
    last = b"\n"
    while selector.get_map() and time.monotonic() < deadline:
        for key, _ in selector.select(max(deadline - time.monotonic(), 0)):
            chunk = os.read(key.fd, 65536)
            if not chunk:
                selector.unregister(key.fd)
                continue
            captured[key.fd].add(chunk)
            if env is not None:
                env.ui.command_output(chunk)
            last = chunk[-1:]
    return last


def _ended_by_timeout(
    proc: "subprocess.Popen[bytes]",
    selector: selectors.BaseSelector,
    captured: dict[int, OutputBuffer],
    env: ActionEnv,
    deadline: float,
) -> str | None:
    """None when the command ended in time; else it is killed with its group, and the rest
    of the message: empty, or that an outsider kept the output open."""
    if not selector.get_map():
        try:
            proc.wait(timeout=max(deadline - time.monotonic(), 0))
            return None
        except subprocess.TimeoutExpired:
            pass  # it closed its output but ran on
    with contextlib.suppress(ProcessLookupError):  # the group ended at the deadline
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    # what it wrote before it was killed; the group is gone, so only an outsider holds on
    _read_until(selector, captured, None, time.monotonic() + DRAIN_SECONDS)
    return HELD_OPEN if selector.get_map() else ""


def _read(action: Read, env: ActionEnv) -> Outcome:
    if action.kind == "file" and is_session_ref(action.resource):  # on the session branch
        return Outcome(True, f"{action.resource} added to the next turn's context")
    if action.kind == "file":
        name, fragment = split_part(action.resource)
        path = confine(env.root, name)
        if not path.is_file():
            message = f"{name} does not exist"
            return Outcome(False, message, {"error": message})
        if fragment is not None:  # a part: it must still be there after the plan's edits
            return _read_part(action.resource, name, path.read_bytes(), fragment)
        size = path.stat().st_size
        return Outcome(True, f"{action.resource} ({size} bytes) added to the next turn's context")
    return _read_url(action.resource, env)


def _read_part(resource: str, name: str, data: bytes, fragment: str) -> Outcome:
    try:
        start, end = resolve(name, data.decode("utf-8", "replace"), fragment)
    except PartError as error:
        return Outcome(False, str(error), {"error": str(error)})
    return Outcome(True, f"{resource} (lines {start}-{end}) added to the next turn's context")


def _read_url(url: str, env: ActionEnv) -> Outcome:
    """A READ of a URL: fetched as context URLs are (web/fetch.py), then approved for the
    session, since the user approved the action."""
    from git_teddy.web.fetch import probe  # only for a READ of a URL

    status, error = probe(url, HTTP_TIMEOUT, env.allow_private)
    if status is None:
        return Outcome(False, f"could not fetch {url}: {error}", {"error": str(error)})
    if status >= 400:
        message = f"{url} answered HTTP {status}"
        return Outcome(False, message, {"error": message})
    env.approve_url(url)
    return Outcome(True, f"{url} (HTTP {status}) added to the next turn's context")


def _research(action: Research, env: ActionEnv) -> Outcome:
    if not env.search_url:
        message = "no search endpoint: set `git config teddy.searchUrl <SearxNG /search URL>`"
        return Outcome(False, message, {"error": message})
    import requests

    results: dict[str, list[dict[str, str]]] = {}
    for query in action.queries:
        try:
            response = requests.get(
                env.search_url, params={"q": query, "format": "json"}, timeout=HTTP_TIMEOUT
            )
            response.raise_for_status()
            hits = response.json().get("results", [])
        except (requests.RequestException, ValueError) as error:
            message = f"search for {query!r} failed: {error}"
            return Outcome(False, message, {"error": message, "results": results})
        results[query] = [
            {
                "title": str(h.get("title", "")),
                "url": str(h.get("url", "")),
                "content": str(h.get("content", ""))[:300],
            }
            for h in hits[:5]
        ]
    count = sum(len(hits) for hits in results.values())
    return Outcome(True, f"{count} result(s) for {len(results)} quer(y/ies)", {"results": results})


def _chat(action: ChatWithUser, env: ActionEnv) -> Outcome:
    env.ui.show(f"\nThe model says:\n{action.message}\n")
    reply = env.ui.chat_reply()
    return Outcome(True, "replied" if reply else "no reply", {"reply": reply})


def _invoke(action: Invoke, env: ActionEnv) -> Outcome:
    return Outcome(True, f"next turn handed to {action.agent}", {"agent": action.agent})


def _conclude(action: Conclude, env: ActionEnv) -> Outcome:
    return Outcome(True, "control returns to the invoking agent")


def _prune(action: Prune, env: ActionEnv) -> Outcome:
    return Outcome(True, f"{action.resource} removed from the next turn's context")


_RUNNERS: dict[type, Callable[[Any, ActionEnv], Outcome]] = {
    Create: _create,
    EditFile: _edit,
    Execute: _execute,
    Read: _read,
    Research: _research,
    ChatWithUser: _chat,
    Invoke: _invoke,
    Conclude: _conclude,
    Prune: _prune,
}
