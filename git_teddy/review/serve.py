"""`git teddy serve`: the review pages of every session in the repository over HTTP on
127.0.0.1 only, read-only, for a browser on the same machine.

Each request reads the repository afresh (a session fetched while the server runs shows up
on the next reload). Only GET and HEAD are answered; the server never writes to the
repository (the session index, a cache, may be brought up to date as `list` does).
"""

from collections.abc import Callable
from html import escape
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, HTTPServer
from urllib.parse import parse_qs, unquote, urlsplit

from git_teddy.errors import TeddyError
from git_teddy.index.query import select
from git_teddy.index.refresh import refresh
from git_teddy.review.html import render_page
from git_teddy.review.listing import FILTERS, render_list
from git_teddy.review.reading import read_session_page
from git_teddy.session.store import SessionStore

HOST = "127.0.0.1"


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


class _Server(HTTPServer):
    def __init__(self, store: SessionStore, port: int) -> None:
        super().__init__((HOST, port), _Pages)
        self.store = store


class _Pages(BaseHTTPRequestHandler):
    """GET and HEAD of the pages; every other method is refused (501, by http.server)."""

    server: _Server

    def do_GET(self) -> None:
        self._reply(body=True)

    def do_HEAD(self) -> None:
        self._reply(body=False)

    def _reply(self, body: bool) -> None:
        url = urlsplit(self.path)
        query = {k: v[-1] for k, v in parse_qs(url.query).items()}
        try:
            status, page = _answer(self.server.store, url.path, query)
        except TeddyError as error:
            status, page = HTTPStatus.INTERNAL_SERVER_ERROR, _message(str(error))
        data = page.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        if body:
            self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:
        pass  # quiet: the terminal shows only the address and errors
