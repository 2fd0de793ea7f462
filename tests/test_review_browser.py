"""Issue 17: the exported golden story page in a real headless Chromium, driven through
ChromeDriver's WebDriver protocol (plain HTTP on 127.0.0.1, spoken with requests).

The page loads from a file with no console errors and no request for any resource, its
context blocks open when clicked, "Expand all" runs its script, and a screenshot is kept
as a test artefact (build/test-artifacts/review-export.png). `.ci/run` installs Debian's
chromium and chromium-driver so CI always runs this; elsewhere it is skipped, saying why.
"""

import base64
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from testing.commands import Teddy
from testing.plans import create, plan_text
from testing.session_story import Story
from testing.sessions import queue

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
ARTIFACTS = Path(__file__).resolve().parent.parent / "build" / "test-artifacts"

pytestmark = pytest.mark.skipif(
    not (CHROMIUM and CHROMEDRIVER),
    reason="needs Chromium and ChromeDriver (apt-get install chromium chromium-driver; "
    ".ci/run installs them)",
)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Browser:
    """One WebDriver session: each method is one command of the W3C protocol."""

    def __init__(self, url: str, session: str) -> None:
        self.base = f"{url}/session/{session}"

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        reply = requests.request(method, self.base + path, json=body, timeout=60)
        value = reply.json()["value"]
        assert reply.ok, f"{method} {path}: {value}"
        return value

    def run(self, script: str, *args: Any) -> Any:
        return self.call("POST", "/execute/sync", {"script": script, "args": list(args)})

    def find(self, css: str) -> dict[str, str]:
        found = self.call("POST", "/element", {"using": "css selector", "value": css})
        assert isinstance(found, dict)
        return found

    def click(self, element: dict[str, str]) -> None:
        element_id = next(iter(element.values()))
        self.call("POST", f"/element/{element_id}/click", {})

    def console(self) -> list[dict[str, Any]]:
        entries = self.call("POST", "/se/log", {"type": "browser"})
        assert isinstance(entries, list)
        return entries


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    assert CHROMIUM and CHROMEDRIVER
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    driver = subprocess.Popen(
        [CHROMEDRIVER, f"--port={port}", "--allowed-ips=127.0.0.1"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if requests.get(f"{url}/status", timeout=5).json()["value"]["ready"]:
                    break
            except requests.ConnectionError:
                pass
            assert time.monotonic() < deadline, "chromedriver did not start"
            time.sleep(0.2)
        profile = tmp_path_factory.mktemp("chromium-profile")
        options = {
            "binary": CHROMIUM,
            "args": [
                "--headless=new",
                "--no-sandbox",  # CI runs as root
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--window-size=1280,1600",
                f"--user-data-dir={profile}",
            ],
        }
        capabilities = {
            "browserName": "chrome",
            "goog:chromeOptions": options,
            "goog:loggingPrefs": {"browser": "ALL"},
        }
        reply = requests.post(
            f"{url}/session",
            json={"capabilities": {"alwaysMatch": capabilities}},
            timeout=120,
        )
        assert reply.ok, reply.text
        session = reply.json()["value"]["sessionId"]
        yield Browser(url, session)
        requests.delete(f"{url}/session/{session}", timeout=60)
    finally:
        driver.terminate()
        driver.wait(timeout=30)


@pytest.fixture(scope="module")
def loaded(browser: Browser, story: Story, tmp_path_factory: pytest.TempPathFactory) -> Browser:
    page = tmp_path_factory.mktemp("export") / "session.html"
    story.teddy.ok(story.repo, "export", story.session, "--html", str(page))
    browser.call("POST", "/url", {"url": page.as_uri()})
    return browser


def test_the_page_loads_with_no_console_error_and_no_request(loaded: Browser, story: Story) -> None:
    assert loaded.run("return document.readyState") == "complete"
    assert story.session in loaded.run("return document.title")
    errors = [e for e in loaded.console() if e.get("level") == "SEVERE"]
    assert errors == []
    # nothing fetched: no script, style, image or font from anywhere
    assert loaded.run("return performance.getEntriesByType('resource').length") == 0
    turns = loaded.run("return document.querySelectorAll('section.turn').length")
    assert turns >= 6  # the story's turns, branches included


def test_a_context_block_opens_when_clicked(loaded: Browser) -> None:
    assert loaded.run("return document.querySelector('details.context').open") is False
    visible = "return document.querySelector('details.context pre').checkVisibility()"
    assert loaded.run(visible) is False  # collapsed: the context is not shown
    loaded.click(loaded.find("details.context > summary"))
    assert loaded.run("return document.querySelector('details.context').open") is True
    assert loaded.run(visible) is True
    text = loaded.run("return document.querySelector('details.context pre').innerText")
    assert "# Context Log" in text


def test_expand_all_runs_its_script_and_a_screenshot_is_kept(loaded: Browser) -> None:
    loaded.click(loaded.find("button[onclick='setAll(true)']"))
    closed = "return [...document.querySelectorAll('details')].filter(d => !d.open).length"
    assert loaded.run(closed) == 0
    assert [e for e in loaded.console() if e.get("level") == "SEVERE"] == []
    loaded.run("document.querySelector('section.turn .diff').scrollIntoView()")
    png = base64.b64decode(loaded.call("GET", "/screenshot"))
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 10_000
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    target = ARTIFACTS / "review-export.png"
    target.write_bytes(png)
    assert os.path.getsize(target) == len(png)


def test_a_steered_session_reads_like_a_pull_request(
    browser: Browser, repo: Path, teddy: Teddy, replies: Path, tmp_path: Path
) -> None:
    """Issue 28 item 8 in the browser: the user's steering shown as callouts, the whole
    session's "Files changed" with line numbers and a per-file collapse, the plan rendered
    and closed, each turn's author, agent and model."""
    queue(replies, plan_text(create("login.py", "def login():\n    return 'ok'\n")))
    session = teddy.ok(repo, "new", "steered-page").stdout.strip()
    teddy.ok(repo, "plan", "-m", "Add login")
    teddy.ok(repo, "execute", "-y")
    teddy.ok(repo, "add", "README.md")
    teddy.ok(repo, "undo")
    page = tmp_path / "steered.html"
    teddy.ok(repo, "export", session, "--html", str(page))
    browser.call("POST", "/url", {"url": page.as_uri()})

    said = browser.run(
        "return [...document.querySelectorAll('.callout-user')]"
        ".filter(c => c.checkVisibility()).map(c => c.innerText)"
    )
    assert any("git teddy add README.md" in text for text in said), said
    assert any("git teddy undo" in text for text in said), said
    files = "document.querySelector('#files-changed ~ .diff details.file-diff')"
    assert browser.run(f"return {files}.open") is True
    gutters = f"return [...{files}.querySelectorAll('.add .ln')].map(n => n.innerText)"
    assert browser.run(gutters) == ["", "1", "", "2"]  # login.py's new lines: old side, new
    browser.click(browser.find("#files-changed ~ .diff details.file-diff > summary"))
    assert browser.run(f"return {files}.open") is False  # collapsed by its header
    assert browser.run("return document.querySelector('details.plan').open") is False
    figures = browser.run("return document.querySelector('section.turn .figures').innerText")
    assert figures.startswith("by Test Author · agent dev")
    assert [e for e in browser.console() if e.get("level") == "SEVERE"] == []
