"""A real web server on 127.0.0.1 for READ, RESEARCH and context URLs: the `server` fixture
gives its base URL. `/page` is an HTML page, `/search?q=..&format=json` answers like SearxNG
(seven hits per query), `/notes.txt` is plain text, anything else is a 404."""

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

import pytest

PAGE = (
    b"<html><head><title>Docs</title></head><body><article><h1>Using the API</h1>"
    b"<p>Call the endpoint with a token. Tokens expire after one hour.</p></article></body></html>"
)


class Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        url = urlparse(self.path)
        if url.path == "/page":
            self._send(200, "text/html", PAGE)
        elif url.path == "/notes.txt":
            self._send(200, "text/plain", b"Release notes: nothing yet.\n")
        elif url.path == "/search":
            query = parse_qs(url.query)["q"][0]
            hits = [
                {
                    "title": f"About {query}",
                    "url": f"https://example.com/{i}",
                    "content": f"{query} result {i}",
                }
                for i in range(7)
            ]
            self._send(200, "application/json", json.dumps({"results": hits}).encode())
        else:
            self._send(404, "text/plain", b"missing")

    def _send(self, code: int, kind: str, body: bytes) -> None:
        self.send_response(code)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server(served: tuple[str, list[str]]) -> str:
    return served[0]


@pytest.fixture
def served() -> Iterator[tuple[str, list[str]]]:
    """The server's base URL and the paths it was asked for, in order (a test that counts
    fetches: a page reused must not be asked again)."""
    asked: list[str] = []

    class Counting(Handler):
        def do_GET(self) -> None:
            asked.append(self.path)
            super().do_GET()

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Counting)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", asked
    httpd.shutdown()
