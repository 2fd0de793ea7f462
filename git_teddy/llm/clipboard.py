"""Copying text to the system clipboard with whichever tool exists; never an error."""

import shutil
import subprocess

# Tried in order. Output is discarded: xclip stays in the background holding the selection,
# and a captured pipe would make us wait for it.
COPY_COMMANDS = (
    ["pbcopy"],
    ["wl-copy"],
    ["xclip", "-selection", "clipboard", "-i"],
    ["xsel", "--clipboard", "--input"],
)


def copy_to_clipboard(text: str) -> str | None:
    """The name of the tool that took `text`, or None when none is installed or all failed."""
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
