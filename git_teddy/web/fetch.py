"""Fetch a URL as text for a model's context: HTML reduced to its readable text, plain text
and markdown as they are, anything binary refused. Network problems come back as `error`,
never as exceptions, so one bad URL never aborts assembling a context.

Fetched as a careful browser extension would (DESIGN.md section 3): http(s) only, no
credentials (no `~/.netrc`, nothing from the environment: a session with `trust_env` off),
no proxy (the address checked must be the address connected to; a proxy would resolve the
name itself), redirects followed here, at most MAX_REDIRECTS, each new address checked.
Unless `allow_private` (teddy.web.allowPrivate), every address a host resolves to must be
public (no loopback, private, link-local, shared or metadata range), and so must the
address each connection is actually made to, which a DNS answer changed between the check
and the connection (rebinding) cannot get past."""

import re
import socket
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urlsplit

from git_teddy import __version__
from git_teddy.web.addresses import PRIVATE_HINT, Refused, address_problem

CHUNK = 64 * 1024
SNIFF_BYTES = 8000
HTML_TYPES = {"text/html", "application/xhtml+xml"}
TEXT_TYPES = {
    "application/json",
    "application/xml",
    "application/javascript",
    "application/x-javascript",
    "application/ecmascript",
    "application/x-yaml",
    "application/yaml",
    "application/toml",
    "application/x-sh",
    "application/sql",
}
UNKNOWN_TYPES = {"", "application/octet-stream", "binary/octet-stream"}  # decided by sniffing
MAX_REDIRECTS = 5


@dataclass(frozen=True)
class Fetched:
    url: str
    text: str | None  # None when nothing usable was fetched
    error: str | None  # why not, or a note on what was returned (e.g. cut at the size cap)
    status: int | None  # the HTTP status, when a response came back


def fetch_text(
    url: str, timeout: float = 20, max_bytes: int = 2_000_000, allow_private: bool = False
) -> Fetched:
    """GET `url` and return its text; `timeout` bounds the whole fetch, not just each read."""
    if not re.match(r"https?://", url, re.IGNORECASE):
        return Fetched(url, None, "only http and https URLs are fetched", None)
    import requests
    import urllib3

    deadline = time.monotonic() + timeout
    try:
        with (
            _session(allow_private) as session,
            _get(session, url, timeout, allow_private) as response,
        ):
            return _read_response(url, response, deadline, timeout, max_bytes)
    except Refused as exc:
        return Fetched(url, None, str(exc), None)
    except (requests.RequestException, urllib3.exceptions.HTTPError, OSError) as exc:
        # Reads past the headers raise urllib3's errors (or requests' ConnectionError wrapping
        # a read timeout), so timeouts are recognised by their message too.
        if isinstance(exc, requests.Timeout) or "timed out" in str(exc):
            return Fetched(url, None, f"timed out after {timeout:g} s", None)
        return Fetched(url, None, _describe(exc), None)


def probe(url: str, timeout: float, allow_private: bool = False) -> tuple[int | None, str | None]:
    """Whether `url` answers, fetched as `fetch_text` fetches (its body unread): (the HTTP
    status, None) or (None, why not)."""
    import requests
    import urllib3

    try:
        with _session(allow_private) as session, _get(session, url, timeout, allow_private) as got:
            return int(got.status_code), None
    except Refused as exc:
        return None, str(exc)
    except (requests.RequestException, urllib3.exceptions.HTTPError, OSError) as exc:
        return None, _describe(exc)


def url_problem(url: str, allow_private: bool) -> str | None:
    """Why `url` may not be fetched (not http(s), a host resolving to an address that is not
    public); None when it may. A name that does not resolve is left to the fetch to report."""
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return f"only http and https URLs are fetched, not {url}"
    if allow_private:
        return None
    try:
        port = parts.port or (443 if parts.scheme.lower() == "https" else 80)
        found = socket.getaddrinfo(parts.hostname, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, ValueError, UnicodeError):
        return None
    for *_, address in found:
        problem = address_problem(str(address[0]))
        if problem:
            same = parts.hostname == str(address[0])
            return problem if same else f"{parts.hostname}: {problem}"
    return None


def _session(allow_private: bool) -> Any:
    """A requests session that sends no credentials and uses no proxy (`trust_env` off), and
    whose connections refuse addresses that are not public (unless `allow_private`)."""
    import requests

    from git_teddy.web.guard import PublicOnlyAdapter

    session = requests.Session()
    session.trust_env = False  # no ~/.netrc, no *_PROXY, no REQUESTS_CA_BUNDLE
    session.max_redirects = MAX_REDIRECTS
    session.headers.update(
        {
            "User-Agent": f"git-teddy/{__version__}",
            "Accept": "text/html, text/markdown, text/plain;q=0.9, */*;q=0.5",
        }
    )
    if not allow_private:
        session.mount("http://", PublicOnlyAdapter())
        session.mount("https://", PublicOnlyAdapter())
    return session


def _get(session: Any, url: str, timeout: float, allow_private: bool) -> Any:
    """The response at the end of `url`'s redirects, each hop checked before it is asked;
    `timeout` bounds them all together."""
    import requests

    deadline = time.monotonic() + timeout
    for _ in range(MAX_REDIRECTS + 1):
        problem = url_problem(url, allow_private)
        if problem:
            raise Refused(problem)
        left = deadline - time.monotonic()
        if left <= 0:
            raise requests.Timeout(f"timed out after {timeout:g} s")
        response = session.get(url, timeout=left, stream=True, allow_redirects=False)
        if not response.is_redirect:
            return response
        response.close()
        url = urljoin(url, response.headers["Location"])
    raise Refused(f"too many redirects (more than {MAX_REDIRECTS})")


def _read_response(
    url: str, response: Any, deadline: float, timeout: float, max_bytes: int
) -> Fetched:
    status = int(response.status_code)
    if status >= 400:
        return Fetched(url, None, f"HTTP {status} {response.reason or ''}".strip(), status)
    content_type, charset = _content_type(response.headers.get("Content-Type", ""))
    if _is_binary_type(content_type):
        return Fetched(url, None, f"binary content ({content_type}) is not fetched", status)
    body, cut, timed_out = _read_capped(response, deadline, max_bytes)
    if timed_out:
        return Fetched(url, None, f"timed out after {timeout:g} s", status)
    kind = _kind(content_type, body)
    if kind == "binary":
        return Fetched(url, None, "binary content is not fetched", status)
    note = f"cut at {max_bytes} bytes (size cap)" if cut else None
    text = _html_text(body, url) if kind == "html" else _decode(body, charset)
    if not text.strip():
        return Fetched(url, None, "no text could be extracted from the page", status)
    return Fetched(url, text, note, status)


def _content_type(header: str) -> tuple[str, str | None]:
    """`text/html; charset=ISO-8859-1` -> ("text/html", "ISO-8859-1")."""
    mime, _, params = header.partition(";")
    match = re.search(r"charset=\"?([\w.:-]+)", params, re.IGNORECASE)
    return mime.strip().lower(), match.group(1) if match else None


def _is_binary_type(content_type: str) -> bool:
    """Images, audio, video, fonts, PDFs, archives, ...: anything not declared as text."""
    textual = HTML_TYPES | TEXT_TYPES | UNKNOWN_TYPES
    return not (
        content_type in textual
        or content_type.startswith("text/")
        or content_type.endswith(("+json", "+xml"))
    )


def _kind(content_type: str, body: bytes) -> str:
    """ "html", "text" or "binary": by the declared type, or by sniffing when there is none."""
    if content_type in HTML_TYPES:
        return "html"
    if content_type not in UNKNOWN_TYPES:
        return "text"
    head = body[:SNIFF_BYTES]
    if b"\0" in head:
        return "binary"
    if re.match(rb"\s*(<!doctype html|<html)", head, re.IGNORECASE):
        return "html"
    return "text"


def _read_capped(response: Any, deadline: float, max_bytes: int) -> tuple[bytes, bool, bool]:
    """The body up to `max_bytes`: (body, cut, timed_out). Reading stops at the cap, so a huge
    download costs no more than the cap; the deadline stops a server that trickles bytes."""
    chunks: list[bytes] = []
    size = 0
    for chunk in _chunks(response):
        chunks.append(chunk)
        size += len(chunk)
        if size > max_bytes:
            return b"".join(chunks)[:max_bytes], True, False
        if time.monotonic() > deadline:
            return b"", False, True
    return b"".join(chunks), False, False


def _chunks(response: Any) -> Iterator[bytes]:
    """Bytes as they arrive (read1), so the deadline is checked even when a server trickles;
    requests' iter_content would wait for a whole chunk first."""
    read1 = getattr(response.raw, "read1", None)
    if read1 is None:  # urllib3 1.x
        yield from response.iter_content(CHUNK)
        return
    while chunk := read1(CHUNK, decode_content=True):
        yield chunk


def _decode(body: bytes, charset: str | None) -> str:
    try:
        return body.decode(charset or "utf-8", "replace")
    except LookupError:  # a charset Python doesn't know
        return body.decode("utf-8", "replace")


def _html_text(body: bytes, url: str) -> str:
    """The page's main text by trafilatura; all its visible text when trafilatura finds no
    main content (short pages, listings)."""
    import trafilatura

    text = trafilatura.extract(body, url=url, include_comments=False, include_tables=True)
    if text and text.strip():
        return str(text)
    return str(trafilatura.html2txt(body) or "")


def _describe(exc: Exception) -> str:
    """A one-line cause a user can act on, instead of urllib3's nested repr."""
    text = str(exc)
    if PRIVATE_HINT in text:  # refused by the connection's own check, wrapped by urllib3
        return f"the connection reached an address that is {PRIVATE_HINT}"
    for marker, meaning in (
        ("Connection refused", "connection refused"),
        ("Failed to resolve", "host name could not be resolved"),
        ("Name or service not known", "host name could not be resolved"),
        ("Unable to connect to proxy", "could not connect to the proxy"),
        ("CERTIFICATE_VERIFY_FAILED", "TLS certificate could not be verified"),
        ("Exceeded", "too many redirects"),
    ):
        if marker in text:
            return meaning
    return f"{type(exc).__name__}: {text.splitlines()[0][:200] if text else 'request failed'}"
