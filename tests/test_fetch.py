"""fetch_text against a real HTTP server on 127.0.0.1: the real requests code runs."""

import contextlib
import gzip
import socket
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from git_teddy.web.fetch import fetch_text

ARTICLE = """<!doctype html>
<html><head><title>Kettles</title><style>body { color: red }</style>
<script>var tracking = "do not include me";</script></head>
<body><nav><a href="/">Home</a> | <a href="/about">About</a></nav>
<article><h1>How a kettle works</h1>
<p>A kettle heats water with an element at its base. When the water boils, steam reaches a
bimetallic strip that bends and switches the element off, so the kettle stops on its own.</p>
<p>Limescale on the element slows heating down; descaling with citric acid removes it and
brings the boiling time back to what it was when the kettle was new.</p>
<p>Cordless kettles sit on a base with a central connector, so they can be lifted from any
angle; the base stays plugged in and the kettle itself carries no cable.</p>
</article><footer>Copyright Kettle Facts</footer></body></html>
"""
BIG = 3_000_000

Handler = Callable[[BaseHTTPRequestHandler], None]


def send(
    status: int, content_type: str | None, body: bytes, headers: dict[str, str] | None = None
) -> Handler:
    def handle(request: BaseHTTPRequestHandler) -> None:
        request.send_response(status)
        if content_type:
            request.send_header("Content-Type", content_type)
        for name, value in (headers or {}).items():
            request.send_header(name, value)
        request.send_header("Content-Length", str(len(body)))
        request.end_headers()
        request.wfile.write(body)

    return handle


def slow(request: BaseHTTPRequestHandler) -> None:
    time.sleep(3)  # longer than the client's timeout, before any byte is sent
    send(200, "text/plain", b"too late")(request)


def trickle(request: BaseHTTPRequestHandler) -> None:
    """Headers at once, then a byte every 0.1 s: every single read is quick."""
    request.send_response(200)
    request.send_header("Content-Type", "text/plain")
    request.send_header("Content-Length", "100")
    request.end_headers()
    for _ in range(100):
        request.wfile.write(b"x")
        request.wfile.flush()
        time.sleep(0.1)


def endless(request: BaseHTTPRequestHandler) -> None:
    """A body of BIG bytes streamed in pieces, counting what was sent before the client left."""
    request.send_response(200)
    request.send_header("Content-Type", "text/plain; charset=utf-8")
    request.end_headers()
    line = b"the same line of text again and again\n"
    for _ in range(BIG // len(line)):
        request.wfile.write(line)
        request.server.sent += len(line)  # type: ignore[attr-defined]


ROUTES: dict[str, Handler] = {
    "/article": send(200, "text/html; charset=utf-8", ARTICLE.encode()),
    "/short": send(200, "text/html", b"<html><body><p>Just a line.</p></body></html>"),
    "/plain": send(200, "text/plain; charset=utf-8", "plain text, caf\u00e9\n".encode()),
    "/latin1": send(200, "text/plain; charset=ISO-8859-1", "caf\u00e9\n".encode("latin-1")),
    "/readme.md": send(200, "text/markdown", b"# Title\n\n- item <b>kept</b>\n"),
    "/data.json": send(200, "application/json", b'{"a": 1}'),
    "/gzip": send(200, "text/plain", gzip.compress(b"unzipped\n"), {"Content-Encoding": "gzip"}),
    "/missing": send(404, "text/html", b"<html><body>Not here</body></html>"),
    "/boom": send(500, "text/plain", b"oops"),
    "/image.png": send(200, "image/png", b"\x89PNG\r\n\x1a\n" + bytes(100)),
    "/blob": send(200, "application/octet-stream", b"ELF\0\0\0binary"),
    "/untyped": send(200, None, b"text without a declared type\n"),
    "/big": send(200, "text/plain", b"0123456789\n" * (BIG // 11)),
    "/endless": endless,
    "/slow": slow,
    "/trickle": trickle,
}


class Server(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        # The client stopping to read is what some tests check.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            ROUTES[self.path](self)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[ThreadingHTTPServer]:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(name, raising=False)  # 127.0.0.1 must be reached directly
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Server)
    httpd.daemon_threads = True
    httpd.block_on_close = False
    httpd.sent = 0  # type: ignore[attr-defined]
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


def url(server: ThreadingHTTPServer, path: str) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}{path}"


def test_html_is_reduced_to_its_main_text(server: ThreadingHTTPServer) -> None:
    fetched = fetch_text(url(server, "/article"), allow_private=True)
    assert fetched.error is None and fetched.status == 200
    assert fetched.text is not None
    assert "bimetallic strip" in fetched.text and "citric acid" in fetched.text
    assert "tracking" not in fetched.text and "color: red" not in fetched.text
    assert "<p>" not in fetched.text


def test_page_without_main_content_falls_back_to_its_plain_text(
    server: ThreadingHTTPServer,
) -> None:
    fetched = fetch_text(url(server, "/short"), allow_private=True)
    assert fetched.error is None
    assert fetched.text is not None and "Just a line." in fetched.text
    assert "<p>" not in fetched.text


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("/plain", "plain text, caf\u00e9\n"),
        ("/latin1", "caf\u00e9\n"),
        ("/readme.md", "# Title\n\n- item <b>kept</b>\n"),
        ("/data.json", '{"a": 1}'),
        ("/gzip", "unzipped\n"),
        ("/untyped", "text without a declared type\n"),
    ],
)
def test_text_passes_through_unchanged(server: ThreadingHTTPServer, path: str, text: str) -> None:
    fetched = fetch_text(url(server, path), allow_private=True)
    assert (fetched.text, fetched.error, fetched.status) == (text, None, 200)


@pytest.mark.parametrize(("path", "status"), [("/missing", 404), ("/boom", 500)])
def test_http_errors_are_reported(server: ThreadingHTTPServer, path: str, status: int) -> None:
    fetched = fetch_text(url(server, path), allow_private=True)
    assert fetched.text is None and fetched.status == status
    assert fetched.error is not None and fetched.error.startswith(f"HTTP {status}")


@pytest.mark.parametrize("path", ["/image.png", "/blob"])
def test_binary_content_is_refused(server: ThreadingHTTPServer, path: str) -> None:
    fetched = fetch_text(url(server, path), allow_private=True)
    assert fetched.text is None and fetched.status == 200
    assert fetched.error is not None and "binary" in fetched.error


def test_size_cap_cuts_the_text_and_says_so(server: ThreadingHTTPServer) -> None:
    fetched = fetch_text(url(server, "/big"), max_bytes=100_000, allow_private=True)
    assert fetched.text == ("0123456789\n" * (BIG // 11))[:100_000]
    assert fetched.error == "cut at 100000 bytes (size cap)"


def test_size_cap_stops_reading(server: ThreadingHTTPServer) -> None:
    fetched = fetch_text(url(server, "/endless"), max_bytes=50_000, allow_private=True)
    assert fetched.text is not None and len(fetched.text) == 50_000
    time.sleep(0.5)  # let the server notice the closed connection
    assert server.sent < BIG // 2  # type: ignore[attr-defined]


@pytest.mark.parametrize("path", ["/slow", "/trickle"])
def test_timeout_bounds_the_whole_fetch(server: ThreadingHTTPServer, path: str) -> None:
    # both would answer after 3 s or more
    fetched = fetch_text(url(server, path), timeout=0.5, allow_private=True)
    assert fetched.text is None and fetched.error == "timed out after 0.5 s"


def test_connection_refused_is_an_error_not_an_exception() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again below: nothing listens there
    fetched = fetch_text(f"http://127.0.0.1:{port}/", allow_private=True)
    assert (fetched.text, fetched.status, fetched.error) == (None, None, "connection refused")


@pytest.mark.parametrize("bad", ["file:///etc/passwd", "ftp://example.com/x", "not a url"])
def test_only_http_urls_are_fetched(bad: str) -> None:
    fetched = fetch_text(bad)
    assert fetched.text is None and fetched.error == "only http and https URLs are fetched"
