"""`git teddy serve`: the review pages of every session in the repository over HTTP on
127.0.0.1 only, read-only, for a browser on the same machine.

Each request reads the repository afresh (a session fetched while the server runs shows up
on the next reload). Only GET and HEAD are answered; the server never writes to the
repository (the session index, a cache, may be brought up to date as `list` does).

Each connection has a thread of its own and a socket timeout (CONNECTION_TIMEOUT), so an
idle or slow client never holds up the others; pages are still made one at a time (one
repository reader). A request whose `Host` is not the address listened on
(127.0.0.1:PORT or localhost:PORT) is refused, so a web page whose name was rebound to
127.0.0.1 (DNS rebinding) cannot read the sessions. A client that goes away is not an error.
"""

import sys
import threading
from collections.abc import Callable
from html import escape
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from git_teddy.errors import TeddyError
from git_teddy.index.query import select
from git_teddy.index.refresh import refresh
from git_teddy.review.html import render_page
from git_teddy.review.listing import FILTERS, render_list
from git_teddy.review.reading import read_session_page
from git_teddy.session.store import SessionStore

HOST = "127.0.0.1"
CONNECTION_TIMEOUT = 10.0  # seconds a connection may stay silent


def serve(store: SessionStore, port: int, ready: Callable[[str], None]) -> None:
    """Answer requests until interrupted; `ready` gets the address once it listens."""

    try:
        server = _Server(store, port)
    except OSError as error:
        raise TeddyError(
            f"cannot listen on {HOST}:{port}: {error.strerror}",
            "choose another port with --port, or --port 0 for any free one",
        ) from error
    with server:
        ready(f"http://{HOST}:{server.server_address[1]}/")
        server.serve_forever()


def _answer(store: SessionStore, path: str, query: dict[str, str]) -> tuple[int, str]:
    if path == "/":
        filters = {k: v for k, v in query.items() if k in FILTERS and v.strip()}
        index = refresh().index  # the repository of the current folder, as `list`
        rows = select(index, **filters)
        return HTTPStatus.OK, render_list(rows, filters, len(index.sessions))
    if path.startswith("/session/"):
        session = unquote(path.removeprefix("/session/")).strip("/")
        store.reread()  # each request reads the repository as it is now
        if session not in store.session_ids():
            return HTTPStatus.NOT_FOUND, _message(f"no session {session}")
        return HTTPStatus.OK, render_page(read_session_page(store, session))
    return HTTPStatus.NOT_FOUND, _message(f"nothing at {path}")


def _message(text: str) -> str:
    return (
        f'<!DOCTYPE html><html lang="en"><meta charset="utf-8"><p>{escape(text)}</p>'
        '<a href="/">sessions</a>'
    )


class _Server(ThreadingHTTPServer):
    daemon_threads = True  # Ctrl-C stops the server without waiting for idle connections

    def __init__(self, store: SessionStore, port: int) -> None:
        super().__init__((HOST, port), _Pages)
        self.store = store
        self.reading = threading.Lock()  # one page made at a time: one reader of the store
        listened = self.server_address[1]
        self.hosts = {f"{HOST}:{listened}", f"localhost:{listened}"}
        if listened == 80:  # a browser leaves the default port out
            self.hosts |= {HOST, "localhost"}

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that disconnected or went silent is no error; anything else is."""
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)


class _Pages(BaseHTTPRequestHandler):
    """GET and HEAD of the pages; every other method is refused (501, by http.server)."""

    server: _Server
    timeout = CONNECTION_TIMEOUT

    def do_GET(self) -> None:
        self._reply(body=True)

    def do_HEAD(self) -> None:
        self._reply(body=False)

    def _reply(self, body: bool) -> None:
        status, page = self._page()
        data = page.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        if body:
            self.wfile.write(data)

    def _page(self) -> tuple[int, str]:
        if (self.headers.get("Host") or "").lower() not in self.server.hosts:
            return HTTPStatus.MISDIRECTED_REQUEST, _message(
                f"this server answers only http://{HOST}:{self.server.server_address[1]}/"
            )
        url = urlsplit(self.path)
        query = {k: v[-1] for k, v in parse_qs(url.query).items()}
        try:
            with self.server.reading:
                return _answer(self.server.store, url.path, query)
        except TeddyError as error:
            return HTTPStatus.INTERNAL_SERVER_ERROR, _message(str(error))

    def log_message(self, format: str, *args: object) -> None:
        pass  # quiet: the terminal shows only the address and errors
