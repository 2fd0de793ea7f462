"""Issue 17, `git teddy serve`: the review pages of every session over HTTP on 127.0.0.1,
read-only. The real executable is started on a free port, fetched with requests, stopped
with Ctrl-C (SIGINT)."""

import re
import signal
import subprocess
from collections.abc import Iterator

import pytest
import requests

from testing.commands import teddy_executable
from testing.session_story import Story
from testing.waits import EVENT_TIMEOUT


@pytest.fixture(scope="module")
def server(story: Story) -> Iterator[str]:
    process = subprocess.Popen(
        [teddy_executable(), "serve", "--port", "0"],
        cwd=story.repo,
        env=story.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None and process.stderr is not None
    line = process.stdout.readline()
    match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
    assert match, f"no address in {line!r}: {process.stderr.read() if not line else ''}"
    yield match.group(0)
    process.send_signal(signal.SIGINT)
    assert process.wait(timeout=EVENT_TIMEOUT) == 0
    errors = process.stderr.read()
    assert "Traceback" not in errors and "stopped" in errors


def test_the_list_links_every_session(server: str, story: Story) -> None:
    reply = requests.get(server, timeout=60)
    assert reply.status_code == 200 and reply.headers["Content-Type"].startswith("text/html")
    assert f'href="/session/{story.session}"' in reply.text
    assert "sessions" in reply.text and "<form" in reply.text


def test_the_list_filters_like_list(server: str, story: Story) -> None:
    link = f"/session/{story.session}"
    by_status = {
        status: link in requests.get(server, params={"status": status}, timeout=60).text
        for status in ("active", "paused", "completed")
    }
    assert sum(by_status.values()) == 1, by_status  # listed under its status only
    nobody = requests.get(server, params={"agent": "nobody-at-all"}, timeout=60).text
    assert "no session matches" in nobody and f"/session/{story.session}" not in nobody


def test_a_session_page_is_the_export(server: str, story: Story) -> None:
    served = requests.get(f"{server}session/{story.session}", timeout=60)
    assert served.status_code == 200
    exported = story.teddy.ok(story.repo, "export", story.session, "--html").stdout
    assert served.text == exported


@pytest.mark.parametrize("path", ["session/no-such-session", "elsewhere", "session/../x"])
def test_unknown_pages_are_404(server: str, path: str) -> None:
    reply = requests.get(server + path, timeout=60)
    assert reply.status_code == 404
    assert "<script" not in reply.text  # the path is echoed escaped, never as markup


def test_read_only(server: str, story: Story) -> None:
    before = subprocess.run(
        ["git", "for-each-ref"], cwd=story.repo, env=story.env, capture_output=True, check=True
    ).stdout
    for method in ("POST", "PUT", "DELETE"):
        assert requests.request(method, server, timeout=60).status_code == 501
    assert requests.head(server, timeout=60).status_code == 200
    after = subprocess.run(
        ["git", "for-each-ref"], cwd=story.repo, env=story.env, capture_output=True, check=True
    ).stdout
    assert after == before


def test_a_port_in_use_is_an_error(server: str, story: Story) -> None:
    port = server.rsplit(":", 1)[1].strip("/")
    result = story.teddy.exits(1, story.repo, "serve", "--port", port)
    assert "error: cannot listen on 127.0.0.1:" in result.stderr
    assert "hint:" in result.stderr and "Traceback" not in result.stderr
