"""Fault suite, hostile input (issue 25): URLs from someone else's context file are fetched
only once approved for the session, never with the user's credentials nor to a private
address (unless teddy.web.allowPrivate); `git teddy serve` is not held up by an idle
client, refuses a foreign Host and takes a vanished client calmly; a teammate's session
cannot write terminal escapes through `show`, `log` or `list`, nor a command into a hint.

Real servers on 127.0.0.1, the real executable, sessions made with real git commands."""

import socket
import struct
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pexpect
import pytest
import requests

from git_teddy.printable import json_printable, printable
from git_teddy.web.addresses import address_problem
from git_teddy.web.fetch import fetch_text, url_problem
from git_teddy.web.guard import PublicOnlyAdapter
from testing.commands import Teddy, git
from testing.commands import serving as serve_in_background
from testing.plans import create, plan_text
from testing.sessions import queue
from testing.waits import EVENT_TIMEOUT

PAGE_TEXT = "Team notes: the deploy key rotates on Fridays."


@dataclass
class Seen:
    """What the recording server was asked: each request's path and Authorization header."""

    requests: list[tuple[str, str | None]] = field(default_factory=list)


class _Recording(BaseHTTPRequestHandler):
    seen: Seen

    def do_GET(self) -> None:
        self.seen.requests.append((self.path, self.headers.get("Authorization")))
        if self.path in ("/redirect", "/loop"):
            self.send_response(302)
            self.send_header("Location", "/notes.txt" if self.path == "/redirect" else "/loop")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        body = PAGE_TEXT.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def recording() -> Iterator[tuple[str, Seen]]:
    """A server on 127.0.0.1 that records what it is sent; (its base URL, the record)."""
    seen = Seen()
    handler = type("Handler", (_Recording,), {"seen": seen})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", seen
    httpd.shutdown()
    httpd.server_close()


def with_netrc(env: dict[str, str]) -> None:
    """Credentials for 127.0.0.1 in the sealed HOME, as a user's ~/.netrc holds them."""
    netrc = Path(env["HOME"]) / ".netrc"
    netrc.write_text("machine 127.0.0.1 login alice password hunter2\n")
    netrc.chmod(0o600)


def committed_global_context(repo: Path, env: dict[str, str], url: str) -> None:
    """A teammate's commit naming `url` in .teddy/global.context."""
    (repo / ".teddy").mkdir(exist_ok=True)
    (repo / ".teddy" / "global.context").write_text(f"app.py\n{url}\n")
    git(repo, env, "add", ".teddy")
    git(repo, env, "commit", "-qm", "team context")


# ---- 1. web fetches ----------------------------------------------------------------------


def test_a_committed_url_waits_for_approval_and_gets_no_credentials(
    repo: Path, teddy: Teddy, env: dict[str, str], recording: tuple[str, Seen], replies: Path
) -> None:
    base, seen = recording
    with_netrc(env)
    git(repo, env, "config", "teddy.web.allowPrivate", "true")  # the server is on 127.0.0.1
    url = f"{base}/redirect"
    committed_global_context(repo, env, url)
    session = teddy.ok(repo, "new", "hostile").stdout.strip()

    shown = teddy.ok(repo, "context").stdout
    assert "not fetched yet" in shown and seen.requests == []
    queue(replies, plan_text(create("x.txt", "x\n")))
    planned = teddy.ok(repo, "plan", "-m", "go")  # no terminal: skipped with a note
    assert f"--allow-url {url}" in planned.stderr and seen.requests == []
    log = git(repo, env, "show", f"teddy/{session}/main:01/_context.log")
    assert PAGE_TEXT not in log and "not fetched yet" in log

    allowed = teddy.ok(repo, "context", "--allow-url", url, "--json").stdout
    assert '"note": null' in allowed and seen.requests
    assert [path for path, _ in seen.requests] == ["/redirect", "/notes.txt"]
    assert all(auth is None for _, auth in seen.requests), seen.requests


def test_on_a_terminal_plan_asks_once_for_the_session(
    repo: Path, teddy: Teddy, env: dict[str, str], recording: tuple[str, Seen], replies: Path
) -> None:
    base, seen = recording
    git(repo, env, "config", "teddy.web.allowPrivate", "true")
    url = f"{base}/notes.txt"
    committed_global_context(repo, env, url)
    session = teddy.ok(repo, "new", "asked").stdout.strip()
    queue(replies, plan_text(create("x.txt", "x\n")))
    child = pexpect.spawn(
        "git",
        ["teddy", "plan", "-m", "go"],
        cwd=str(repo),
        env=env,
        encoding="utf-8",
        timeout=EVENT_TIMEOUT,
    )
    child.expect("Fetch it")
    child.sendline("y")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    log = git(repo, env, "show", f"teddy/{session}/main:01/_context.log")
    assert PAGE_TEXT in log and len(seen.requests) == 1
    assert "not fetched" not in teddy.ok(repo, "context").stdout  # approved: no question


def test_a_url_the_user_adds_is_approved(
    repo: Path, teddy: Teddy, env: dict[str, str], recording: tuple[str, Seen]
) -> None:
    base, seen = recording
    with_netrc(env)
    git(repo, env, "config", "teddy.web.allowPrivate", "true")
    teddy.ok(repo, "new", "added")
    teddy.ok(repo, "add", f"{base}/notes.txt")
    assert "not fetched" not in teddy.ok(repo, "context").stdout
    assert seen.requests == [("/notes.txt", None)]
    refused = teddy.exits(1, repo, "context", "--allow-url", "file:///etc/passwd")
    assert "error: not an http(s) URL" in refused.stderr and "Traceback" not in refused.stderr


def test_private_addresses_are_refused_unless_allowed(
    repo: Path, teddy: Teddy, env: dict[str, str], recording: tuple[str, Seen]
) -> None:
    base, seen = recording
    url = f"{base}/notes.txt"
    committed_global_context(repo, env, url)
    teddy.ok(repo, "new", "private")
    shown = teddy.ok(repo, "context", "--allow-url", url).stdout
    assert "not a public address" in shown and "teddy.web.allowPrivate" in shown
    assert seen.requests == []


def test_every_address_and_every_connection_is_checked(recording: tuple[str, Seen]) -> None:
    base, seen = recording
    port = base.rsplit(":", 1)[1]
    for url in (f"{base}/notes.txt", f"http://localhost:{port}/", f"{base}/redirect"):
        assert "not a public address" in (url_problem(url, allow_private=False) or "")
        assert fetch_text(url).text is None
    assert url_problem("ftp://example.com/x", allow_private=False)
    metadata = ["169.254.169.254", "10.0.0.1", "100.100.100.200", "::1", "fd00:ec2::254"]
    assert all(address_problem(a) for a in [*metadata, "::ffff:127.0.0.1", "0.0.0.0"])
    assert address_problem("93.184.215.14") is None and address_problem("2606:4700::1") is None
    # A name rebound after the check still meets the connection's own check.
    session = requests.Session()
    session.trust_env = False
    session.mount("http://", PublicOnlyAdapter())
    with pytest.raises(requests.ConnectionError, match="not a public address"):
        session.get(f"{base}/notes.txt", timeout=10)
    assert seen.requests == []
    assert fetch_text(f"{base}/redirect", allow_private=True).text == PAGE_TEXT
    looping = fetch_text(f"{base}/loop", allow_private=True)
    assert looping.text is None and looping.error == "too many redirects (more than 5)"


# ---- 2. serve ----------------------------------------------------------------------------


@pytest.fixture
def serving(repo: Path, teddy: Teddy, env: dict[str, str]) -> Iterator[tuple[str, int]]:
    """`git teddy serve --port 0`: (its base URL, its port); stopped with Ctrl-C, and it
    must stop cleanly, with no traceback."""
    teddy.ok(repo, "new", "served")
    with serve_in_background(repo, env) as served:
        yield served


def test_an_idle_connection_does_not_block_the_others(serving: tuple[str, int]) -> None:
    base, port = serving
    with socket.create_connection(("127.0.0.1", port)) as idle:
        idle.sendall(b"GET / HTTP/1.1\r\n")  # and never the rest
        reply = requests.get(base, timeout=5)
    assert reply.status_code == 200


def test_a_foreign_host_is_refused(serving: tuple[str, int]) -> None:
    base, port = serving
    rebound = requests.get(base, headers={"Host": f"attacker.example:{port}"}, timeout=10)
    assert rebound.status_code == 421 and "served" not in rebound.text
    for host in (f"127.0.0.1:{port}", f"localhost:{port}"):
        assert requests.get(base, headers={"Host": host}, timeout=10).status_code == 200


def test_a_client_that_goes_away_is_no_error(serving: tuple[str, int]) -> None:
    base, port = serving
    for _ in range(5):
        with socket.create_connection(("127.0.0.1", port)) as gone:
            gone.sendall(f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
            # close with a reset, before the page is written
            gone.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    assert requests.get(base, timeout=10).status_code == 200  # the fixture checks stderr


# ---- 3. terminal escapes and hints -------------------------------------------------------

ESCAPES = {
    "clipboard": "\x1b]52;c;cHduZWQ=\x07",  # OSC 52: write the clipboard
    "title": "\x1b]0;PWNED\x07",
    "hyperlink": "\x1b]8;;http://evil.example/\x1b\\click\x1b]8;;\x1b\\",
    "csi": "\x9b31m",  # the 8-bit CSI
}
HOSTILE_ID = "$(touch${IFS}PWNID)"


def hostile_session(
    repo: Path, teddy: Teddy, env: dict[str, str], replies: Path, tmp_path: Path
) -> str:
    """A teammate's session with escapes in its plan and log, under a hostile id: its refs
    renamed and its log rewritten with git, as a fetch of such a session would leave them."""
    sneaky = " ".join(ESCAPES.values())
    text = plan_text(create("x.txt", "x\n")).replace("# A plan", f"# Plan {sneaky}")
    queue(replies, text)
    session = teddy.ok(repo, "new", "sneaky").stdout.strip()
    teddy.ok(repo, "plan", "-m", f"hello {ESCAPES['title']}")
    for old in git(repo, env, "for-each-ref", "--format=%(refname)").split():
        if session in old:
            git(repo, env, "update-ref", old.replace(session, HOSTILE_ID), old)
            git(repo, env, "update-ref", "-d", old)
    side = tmp_path / "teammate"
    git(repo, env, "worktree", "add", "-q", str(side), f"teddy/{HOSTILE_ID}/main")
    log = side / "session.md"
    log.write_text(log.read_text().replace(session, HOSTILE_ID))
    git(side, env, "commit", "-qam", "the teammate's log")
    git(repo, env, "worktree", "remove", str(side))
    return HOSTILE_ID


def test_session_content_reaches_the_terminal_escaped(
    repo: Path, teddy: Teddy, env: dict[str, str], replies: Path, tmp_path: Path
) -> None:
    session = hostile_session(repo, teddy, env, replies, tmp_path)
    outputs = {
        "show": teddy.ok(repo, "show", session).stdout,
        "show turn": teddy.ok(repo, "show", f"{session}/01").stdout,
        "log": teddy.ok(repo, "log", session).stdout,
        "list": teddy.ok(repo, "list").stdout,
        "show json": teddy.ok(repo, "show", session, "--json").stdout,
    }
    for name, out in outputs.items():
        assert "\x1b" not in out and "\x9b" not in out and "\x07" not in out, name
    assert "\\033]52;c;cHduZWQ=\\a" in outputs["show"]  # shown, escaped as git quotes paths
    assert "\\u009b31m" in outputs["show json"]  # still JSON


def test_hints_quote_what_they_name(
    repo: Path, teddy: Teddy, env: dict[str, str], replies: Path, tmp_path: Path
) -> None:
    session = hostile_session(repo, teddy, env, replies, tmp_path)
    paused = teddy.ok(repo, "pause", "-s", session).stdout
    shown = teddy.ok(repo, "show", session).stdout
    for out in (paused, shown):
        assert f"git teddy resume '{HOSTILE_ID}'" in out, out
        assert f"resume {HOSTILE_ID}" not in out


def test_printable_escapes_controls_as_git_quotes_paths() -> None:
    assert printable("a\tb\nc\r\n") == "a\tb\nc\r\n"  # tabs, lines, CRLF kept
    assert (
        printable("\x1b]0;x\x07 \x9b \u202e \r!") == "\\033]0;x\\a \\302\\233 \\342\\200\\256 \\r!"
    )
    assert printable("a\tb\nc", one_line=True) == "a\\tb\\nc"
    assert printable("naïve ✓ 日本") == "naïve ✓ 日本"
    assert json_printable('"\x9b\u2066"') == '"\\u009b\\u2066"'
