"""Running a command on a real pseudo-terminal, as a user at a terminal would: stdin, stdout
and stderr are the terminal, `typed` is what the user types, and what it showed comes back."""

import os
import pty
import select
import subprocess
from pathlib import Path

from testing.waits import EVENT_TIMEOUT


def on_terminal(
    args: list[str], cwd: Path, env: dict[str, str], typed: str = "", stdin_too: bool = True
) -> tuple[int, str]:
    """(exit code, everything shown). `stdin_too=False` leaves stdin empty (not a terminal)."""
    leader, follower = pty.openpty()
    stdin = follower if stdin_too else subprocess.DEVNULL
    proc = subprocess.Popen(args, cwd=cwd, env=env, stdin=stdin, stdout=follower, stderr=follower)
    os.close(follower)
    if typed:
        os.write(leader, typed.encode())
    shown = b""
    while True:
        ready, _, _ = select.select([leader], [], [], 60)
        if not ready:
            proc.kill()
            raise AssertionError(f"{args} hung; it showed:\n{shown.decode(errors='replace')}")
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: every writer closed the terminal
            break
        if not chunk:
            break
        shown += chunk
    os.close(leader)
    return proc.wait(timeout=EVENT_TIMEOUT), shown.decode(errors="replace")
