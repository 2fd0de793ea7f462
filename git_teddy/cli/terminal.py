"""The CLI's `UI` (git_teddy.ui): click prompts on a terminal, or approving everything
without one (-y, --yolo); and the refusal to ask where there is no terminal to ask on."""

import os
import select
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import click
import click.termui

from git_teddy.errors import TeddyError
from git_teddy.printable import printable
from git_teddy.ui import UI, Decision, Interrupted

if TYPE_CHECKING:  # pydantic models: `git teddy -h` imports this module, and stays fast
    from git_teddy.artifacts.plan.models import Action, Memo

STDIN_GRACE = 0.2  # seconds execute -y gives a pipe to hold a reply (`echo yes | ...`)
CHOICES = "[y]es [n]o [d]iff [a]ll remaining [q]uit"
ANSWERS = {
    **dict.fromkeys(("y", "yes"), Decision("approved")),
    **dict.fromkeys(("a", "all"), Decision("approved", approve_rest=True)),
    **dict.fromkeys(("q", "quit"), Decision("quit")),
}


@contextmanager
def _asking() -> Iterator[None]:
    """Ctrl-C or end of input at a prompt (click.Abort) is the library's Interrupted. The
    prompt reads its line with `_read_line`, which no Ctrl-C can slip past."""
    reading = click.termui.visible_prompt_func
    click.termui.visible_prompt_func = _read_line
    try:
        yield
    except click.Abort:
        raise Interrupted from None
    finally:
        click.termui.visible_prompt_func = reading


def _read_line(prompt: str) -> str:
    """`input(prompt)` without its lost Ctrl-C. input() writes the prompt, then blocks in
    read(2), and Python sees a signal only when it interrupts that read: a Ctrl-C pressed
    after the prompt shows but before the read starts waits for the next Enter. Here the
    signal's wakeup fd is watched beside the terminal, so a Ctrl-C at any moment (from
    `set_wakeup_fd` on) ends the wait and raises KeyboardInterrupt, as click expects."""
    terminal = sys.stdin is not None and sys.stdin.isatty() and sys.stdout.isatty()
    if not terminal or threading.current_thread() is not threading.main_thread():
        return input(prompt)
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    previous = signal.set_wakeup_fd(wake_write, warn_on_full_buffer=False)
    try:
        sys.stdout.write(prompt)
        sys.stdout.flush()
        while sys.stdin not in select.select([sys.stdin, wake_read], [], [])[0]:
            os.read(wake_read, 64)  # a signal whose handler did not raise: wait on
        return input()  # a whole line is there to read (the terminal is line by line)
    finally:
        signal.set_wakeup_fd(previous)
        os.close(wake_read)
        os.close(wake_write)


QUIET = "git_teddy.quiet"  # in click's ctx.meta, which every command shares with the group


def remember_quiet(ctx: click.Context, _param: click.Parameter, quiet: bool) -> None:
    """The callback of the group's -q/--quiet."""
    if quiet:
        ctx.meta[QUIET] = True


def _quiet() -> bool:
    ctx = click.get_current_context(silent=True)
    return ctx is not None and bool(ctx.meta.get(QUIET))


class _Console:
    """What every CLI UI tells: output on stdout, progress on stderr (none with -q), a model's
    live status only when stderr is a terminal; and the manual provider's paste from stdin."""

    def progress(self, text: str) -> None:
        if not _quiet():
            click.echo(printable(text), err=True)

    def show(self, text: str) -> None:
        click.echo(printable(text))  # plans and reports quote the model and the session

    def step(self, text: str) -> None:
        if not _quiet():
            click.echo(text)

    def command_output(self, data: bytes) -> None:
        # raw bytes as the command wrote them (\r progress bars and colours keep working);
        # only to a terminal: a pipe gets the report, not a second copy of the output
        if sys.stdout.isatty() and not _quiet():
            sys.stdout.flush()  # our own lines before it, in order
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()

    def status(self, text: str) -> None:
        if sys.stderr.isatty():
            sys.stderr.write(f"\r{text}")
            sys.stderr.flush()

    def end_status(self) -> None:
        if sys.stderr.isatty():
            sys.stderr.write("\n")
            sys.stderr.flush()

    def read_paste(self) -> bytes:
        stream = sys.stdin
        return stream.buffer.read() if hasattr(stream, "buffer") else stream.read().encode()


class TerminalUI(_Console):
    """Asks every question with click prompts (`plan` and `branch` ask none, but take the
    manual provider's paste through it)."""

    unattended = False

    def approve_memos(self, memos: "list[Memo]") -> bool:
        with _asking():
            return click.confirm("Approve these memory updates?", default=True)

    def approve_action(self, action: "Action") -> Decision:
        while True:
            with _asking():
                answer = click.prompt(CHOICES, default="y", show_default=False).strip().lower()
            if answer in ANSWERS:
                return ANSWERS[answer]
            if answer in ("n", "no"):
                with _asking():
                    reason = click.prompt("Reason (optional)", default="", show_default=False)
                return Decision("rejected", reason.strip() or None)
            if answer in ("d", "diff"):
                from git_teddy.execute.approval import preview  # needs the plan's models

                click.echo(preview(action))
            else:
                click.echo(f"please answer one of {CHOICES}")

    def chat_reply(self) -> str | None:
        with _asking():
            reply: str = click.prompt("Your reply (empty to skip)", default="", show_default=False)
        return reply.strip() or None

    def approve_url(self, url: str, source: str) -> bool | None:
        if not _has_terminal():
            return None
        click.echo(f"{printable(source)} names {printable(url)}, not fetched for this session yet.")
        with _asking():
            return click.confirm("Fetch it (without your credentials)?", default=False)

    def approve_apply(self) -> bool:
        with _asking():
            return click.confirm("Apply the result to your working tree?", default=True)

    def first_message(self) -> str | None:
        while True:
            with _asking():
                text = click.prompt("Your message for the first turn (q to stop)").strip()
            if text:
                return None if text == "q" else str(text)

    def next_message(self) -> str | None:
        with _asking():
            text = click.prompt(
                "\nComment for the next plan (enter to continue, q to stop)",
                default="",
                show_default=False,
            ).strip()
        return None if text == "q" else str(text)


class UnattendedUI(_Console):
    """Approves every memo, action and result without asking (-y, --yolo). The model's
    questions are still answered, a line from stdin each: with `replies` (the loop's --yolo)
    stdin is waited for; without (`execute -y`), it is read when it is a terminal or holds
    input, so a script can answer (`echo yes | git teddy execute -y`) and nothing hangs."""

    unattended = True

    def __init__(self, replies: bool) -> None:
        self.replies = replies

    def approve_memos(self, memos: "list[Memo]") -> bool:
        return True

    def approve_action(self, action: "Action") -> Decision:
        return Decision("auto")

    def chat_reply(self) -> str | None:
        if self.replies or sys.stdin.isatty():
            click.echo("Your reply (empty or end of input to stop): ", nl=False)
        # terminal or not: yolo needs no terminal; execute -y reads only what is there
        line = sys.stdin.readline() if self.replies or _input_waiting() else ""
        if not line.strip() and not self.replies:
            self.progress("note: no reply on stdin; answer the model: `git teddy plan -m REPLY`")
        return line.strip() or None

    def approve_url(self, url: str, source: str) -> bool | None:
        return None  # -y approves the model's actions, not what a context file names

    def approve_apply(self) -> bool:
        return True

    def first_message(self) -> str | None:
        return None  # nobody to ask: the loop asks for -m first

    def next_message(self) -> str | None:
        return ""  # the loop goes on by itself


def _input_waiting() -> bool:
    """stdin is a terminal, or a pipe or file with input (or its end) ready to read."""
    if sys.stdin is None or sys.stdin.closed:
        return False
    if sys.stdin.isatty():
        return True
    try:
        ready, _, _ = select.select([sys.stdin], [], [], STDIN_GRACE)
    except (OSError, ValueError):
        return False
    return bool(ready)


def _has_terminal() -> bool:
    return os.isatty(0) and os.isatty(1)


def execute_ui(yes: bool) -> UI:
    """`execute`'s UI; without a terminal to ask on, refuse rather than guess."""
    if yes:
        return UnattendedUI(replies=False)
    if not _has_terminal():
        raise TeddyError(
            "execute asks for approvals, but there is no terminal to ask on",
            "run it in a terminal, or pass -y to approve every action",
        )
    return TerminalUI()


def loop_ui(yolo: bool, command: str) -> UI:
    """The loop's UI (`start`, `continue`, `resume`), refusing as `execute` does."""
    if yolo:
        return UnattendedUI(replies=True)
    if not _has_terminal():
        raise TeddyError(
            f"{command} asks for comments and approvals, but there is no terminal to ask on",
            "run it in a terminal, or pass --yolo to run without approvals",
        )
    return TerminalUI()


def confirm(question: str, command: str) -> bool:
    """Ask a yes/no question (default no); without a terminal to ask on, refuse."""
    if not _has_terminal():
        raise TeddyError(
            f"{command} asks before it deletes, but there is no terminal to ask on",
            "run it in a terminal, or pass --force",
        )
    with _asking():
        return click.confirm(question, default=False)
