"""One JSON POST to a model API with a timeout, bounded retries and errors a user can act on.

Retried: 429, 5xx and connections lost mid-way (waits `retry_delay * 2**n`, or the server's
`Retry-After` when it asks for at most a minute). Not retried: a refused connection and a
timeout (the server is not there, or is already slow; waiting again would only double the
wait). `timeout` bounds each wait for the server (connecting, and every read while
streaming); `reply_timeout` bounds the whole reply (a stream of keep-alives, or a body that
trickles in, would otherwise be waited on forever): the body is read through `Body`, which
checks it on every piece that arrives.
"""

import json
import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from git_teddy.llm.base import ProviderError

if TYPE_CHECKING:
    import requests

T = TypeVar("T")
MAX_RETRY_AFTER = 60.0  # seconds; a server asking for longer gets a clear error instead
DETAIL_CHARS = 500


@dataclass(frozen=True)
class HttpPolicy:
    timeout: float = 120.0
    retries: int = 3
    retry_delay: float = 1.0
    reply_timeout: float = 600.0  # the whole of one reply, from the request to its end


@dataclass(frozen=True)
class Endpoint:
    """Where a provider posts, and what its errors should say."""

    provider: str  # "openai" or "anthropic"
    url: str
    model: str
    key_env: str  # the variable to suggest, e.g. OPENAI_API_KEY
    secret: str | None = None  # redacted from every message
    headers: dict[str, str] = field(default_factory=dict)

    def redact(self, text: str) -> str:
        return text.replace(self.secret, "***") if self.secret else text

    def error(self, message: str, hint: str) -> ProviderError:
        return ProviderError(self.redact(message), self.redact(hint))


class Body:
    """A response's body, read before the reply's deadline or not at all."""

    def __init__(self, response: "requests.Response", endpoint: Endpoint, policy: HttpPolicy):
        self.response = response
        self.headers = response.headers
        self.endpoint = endpoint
        self.policy = policy
        self.deadline = time.monotonic() + policy.reply_timeout

    def pieces(self) -> Iterator[bytes]:
        """The body as it arrives (a streamed answer chunk by chunk), up to the deadline."""
        for piece in self.response.iter_content(chunk_size=None):
            if time.monotonic() > self.deadline:
                seconds = f"{self.policy.reply_timeout:g}"
                raise self.endpoint.error(
                    f"{self.endpoint.provider} did not finish its reply within {seconds} s "
                    "(teddy.replyTimeout)",
                    "try again, or give the model more time: `git config teddy.replyTimeout 1200`",
                )
            yield piece

    def lines(self) -> Iterator[bytes]:
        """Lines without their line ends (server-sent events end them with LF or CRLF)."""
        pending = b""
        for piece in self.pieces():
            *complete, pending = (pending + piece).split(b"\n")
            yield from (line.removesuffix(b"\r") for line in complete)
        if pending:
            yield pending.removesuffix(b"\r")

    def content(self) -> bytes:
        return b"".join(self.pieces())

    def text(self) -> str:
        return self.content().decode(self.response.encoding or "utf-8", "replace")


class _Retry(Exception):
    """A failure worth another attempt: `message` describes it if none is left."""

    def __init__(self, message: str, hint: str, wait: float | None = None) -> None:
        super().__init__(message)
        self.message, self.hint, self.wait = message, hint, wait


def post_json(
    endpoint: Endpoint,
    body: dict[str, Any],
    policy: HttpPolicy,
    read: Callable[[Body], T],
) -> T:
    """POST `body` and return `read(answer)` for the first 2xx answer."""
    attempts = policy.retries + 1
    for attempt in range(attempts):
        try:
            return _attempt(endpoint, body, policy, read)
        except _Retry as failure:
            if attempt + 1 == attempts:
                raise endpoint.error(
                    f"{failure.message} (after {attempts} attempt{'s' if attempts > 1 else ''})",
                    failure.hint,
                ) from None
            # Doubling stops at a minute (or the configured delay): never a wait of days.
            backoff = min(policy.retry_delay * 2**attempt, max(policy.retry_delay, 60.0))
            time.sleep(failure.wait if failure.wait is not None else backoff)
    raise AssertionError("unreachable")


def _attempt(
    endpoint: Endpoint,
    body: dict[str, Any],
    policy: HttpPolicy,
    read: Callable[[Body], T],
) -> T:
    import requests

    try:
        response = requests.post(
            endpoint.url,
            json=body,
            headers=endpoint.headers,
            timeout=(policy.timeout, policy.timeout),
            stream=True,  # the body is read through Body, within the reply's deadline
        )
    except requests.RequestException as error:
        raise _transport_error(endpoint, policy, error) from None
    with response:
        answer = Body(response, endpoint, policy)
        try:
            if response.ok:
                return read(answer)
            raise _status_error(endpoint, answer)
        except requests.RequestException as error:
            raise _transport_error(endpoint, policy, error) from None


def _chain(error: BaseException) -> list[object]:
    """The error, what it wraps (args, `reason`, causes), and so on: urllib3 nests deeply."""
    seen: list[object] = []
    todo: list[object] = [error]
    while todo and len(seen) < 50:
        item = todo.pop()
        if item is None or any(item is s for s in seen):
            continue
        seen.append(item)
        if isinstance(item, BaseException):
            todo += [*item.args, getattr(item, "reason", None), item.__cause__, item.__context__]
    return seen


def _transport_error(
    endpoint: Endpoint, policy: HttpPolicy, error: "requests.RequestException"
) -> Exception:
    import requests
    from urllib3.exceptions import NewConnectionError, ReadTimeoutError

    if isinstance(
        error,
        (
            requests.exceptions.InvalidURL,
            requests.exceptions.InvalidSchema,
            requests.exceptions.MissingSchema,
        ),
    ):
        return endpoint.error(
            f"{endpoint.url} is not a usable URL: {error}",
            "set an http(s) URL: `git config teddy.baseUrl http://localhost:11434/v1`",
        )
    chain = _chain(error)
    if isinstance(error, requests.Timeout) or any(isinstance(e, ReadTimeoutError) for e in chain):
        return endpoint.error(
            f"no answer from {endpoint.url} within {policy.timeout:g} s (teddy.timeout)",
            "give the model more time: `git config teddy.timeout 300`",
        )
    if any(isinstance(e, ConnectionRefusedError) for e in chain):
        return endpoint.error(
            f"cannot connect to {endpoint.url}: connection refused",
            "is the server running? check the URL with `git config teddy.baseUrl`",
        )
    if any(isinstance(e, NewConnectionError) for e in chain):
        reason = next(e for e in chain if isinstance(e, NewConnectionError))
        return endpoint.error(
            f"cannot connect to {endpoint.url}: {reason}",
            "check the network and the URL (`git config teddy.baseUrl`)",
        )
    return _Retry(
        f"the connection to {endpoint.url} was lost: {type(error).__name__}",
        "check the network, or try again later",
    )


def _status_error(endpoint: Endpoint, answer: Body) -> Exception:
    response = answer.response
    status, detail = response.status_code, endpoint.redact(_detail(answer))
    name = endpoint.provider
    if status == 429 or status >= 500:
        wait = _retry_after(response.headers.get("Retry-After"))
        what = "is rate-limiting requests" if status == 429 else "failed"
        if wait is not None and wait > MAX_RETRY_AFTER:
            return endpoint.error(
                f"{name} {what} (HTTP {status}) and asks to wait {wait:g} s: {detail}",
                "try again later",
            )
        return _Retry(
            f"{name} {what} (HTTP {status}): {detail}",
            "try again later; `git config teddy.httpRetries N` sets how often to retry",
            wait,
        )
    if status in (401, 403):
        if endpoint.secret is None:
            return endpoint.error(
                f"{endpoint.url} needs an API key (HTTP {status}): {detail}",
                f"export {endpoint.key_env}=... (or TEDDY_API_KEY)",
            )
        return endpoint.error(
            f"{name} rejected the API key (HTTP {status}): {detail}",
            f"check {endpoint.key_env} (or TEDDY_API_KEY) in your environment",
        )
    if status == 404:
        return endpoint.error(
            f"{name} does not know model {endpoint.model!r} at {endpoint.url} (HTTP 404): {detail}",
            "check the model id (`git config teddy.model`) and `git config teddy.baseUrl`",
        )
    return endpoint.error(
        f"{name} refused the request (HTTP {status}): {detail}",
        "check `git config teddy.model`, teddy.baseUrl and teddy.maxTokens",
    )


def _detail(answer: Body) -> str:
    """The provider's own error message: both APIs use {"error": {"message": ...}}."""
    text = answer.text().strip()
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, dict):
        error = data.get("error", data)
        if isinstance(error, dict):
            error = error.get("message") or error.get("detail") or text
        text = str(error)
    text = " ".join(text.split()) or answer.response.reason or "no details"
    return text if len(text) <= DETAIL_CHARS else text[:DETAIL_CHARS] + "..."


def _retry_after(value: str | None) -> float | None:
    """Seconds from a `Retry-After: <seconds>` header; the HTTP-date form, and a value that is
    no number of seconds (nan, inf), fall back to backoff; a negative one means now."""
    try:
        seconds = float(value) if value is not None else None
    except ValueError:
        return None
    if seconds is None or not math.isfinite(seconds):
        return None
    return max(seconds, 0.0)
