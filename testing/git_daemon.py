"""A `git daemon` on 127.0.0.1 serving the repositories of one folder over git://, started
by a test and stopped after it: a remote reached over the network as teammates reach it.
git daemon takes a fixed port, so a free one is picked by binding it first; readiness is a
connection that succeeds, polled, not a sleep."""

import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

READY_WITHIN = 10.0  # seconds


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_until_listening(port: int, daemon: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + READY_WITHIN
    while time.monotonic() < deadline:
        if daemon.poll() is not None:
            raise AssertionError(f"git daemon exited ({daemon.returncode}) before listening")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.02)
    raise AssertionError(f"git daemon did not listen on port {port} within {READY_WITHIN} s")


@contextmanager
def git_daemon(base: Path, env: dict[str, str]) -> Iterator[str]:
    """Serve every repository under `base` (pushes too); yields the URL of `base`
    (`git://127.0.0.1:<port>`; a repository's URL is that plus `/<name>`)."""
    port = free_port()
    args = ["git", "daemon", "--export-all", "--reuseaddr", "--enable=receive-pack",
            "--informative-errors", "--listen=127.0.0.1", f"--port={port}",
            f"--base-path={base}", str(base)]  # fmt: skip
    daemon = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        _wait_until_listening(port, daemon)
        yield f"git://127.0.0.1:{port}"
    finally:
        daemon.terminate()
        daemon.wait(timeout=10)
        if daemon.stderr:
            daemon.stderr.close()
