"""The system clipboard, through whichever tool exists (pbcopy/pbpaste, wl-copy/wl-paste,
xclip, xsel): the one place git-teddy runs a clipboard tool. Copying a payload for the manual
provider is never an error; reading and writing a plan (`preprocess --clipboard`) is."""

import shutil
import subprocess

from git_teddy.errors import TeddyError

# (paste command, copy command) per clipboard tool, in the order they are tried.
CLIPBOARD_TOOLS = (
    (["pbpaste"], ["pbcopy"]),
    (["wl-paste", "--no-newline"], ["wl-copy"]),
    (["xclip", "-selection", "clipboard", "-o"], ["xclip", "-selection", "clipboard", "-i"]),
    (["xsel", "--clipboard", "--output"], ["xsel", "--clipboard", "--input"]),
)
COPY_COMMANDS = tuple(copy for _paste, copy in CLIPBOARD_TOOLS)


def copy_to_clipboard(text: str) -> str | None:
    """The name of the tool that took `text`, or None when none is installed or all failed.
    Output is discarded: xclip stays in the background holding the selection, and a captured
    pipe would make us wait for it."""
    for command in COPY_COMMANDS:
        if shutil.which(command[0]) is None:
            continue
        try:
            done = subprocess.run(
                command,
                input=text.encode("utf-8"),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                timeout=5,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired):
            continue
        if done.returncode == 0:
            return command[0]
    return None


def clipboard_tool() -> tuple[list[str], list[str]]:
    """The paste and copy commands of the first tool installed."""
    for paste, copy in CLIPBOARD_TOOLS:
        if shutil.which(paste[0]) and shutil.which(copy[0]):
            return paste, copy
    raise TeddyError(
        "no clipboard tool found (pbcopy/pbpaste, wl-copy/wl-paste, xclip or xsel)",
        "install one of them, or use a file: `git teddy preprocess -i plan.md`, "
        "or a pipe: `git teddy preprocess < plan.md`",
    )


def run_clipboard_tool(command: list[str], text: str | None = None) -> str:
    """Run a paste command (or a copy command, given `text`); what it printed."""
    try:
        done = subprocess.run(
            command,
            input=text.encode("utf-8") if text is not None else None,
            capture_output=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise TeddyError(f"`{command[0]}` failed: {error}", "check the clipboard tool") from error
    if done.returncode != 0:
        detail = done.stderr.decode("utf-8", "replace").strip()
        raise TeddyError(
            f"`{' '.join(command)}` failed (exit {done.returncode}): {detail}",
            "check that the clipboard is reachable (e.g. DISPLAY or WAYLAND_DISPLAY is set)",
        )
    try:
        return done.stdout.decode("utf-8")
    except UnicodeDecodeError as error:
        raise TeddyError("the clipboard does not hold UTF-8 text", "copy the plan again") from error
