"""Real HTTP servers on 127.0.0.1 that speak the model APIs, for provider and end-to-end tests.

    from testing.llm_servers import OpenAIServer, AnthropicServer, Reply, model_reply, error_reply

Servers
    OpenAIServer()     POST {server.url}/chat/completions   (server.url ends in /v1, as
                       `teddy.baseUrl` does). Answers a streaming request (`"stream": true`)
                       with server-sent events, a plain request with one JSON completion;
                       usage is sent in the stream only when `stream_options.include_usage`.
    AnthropicServer()  POST {server.url}/v1/messages        (Messages API, streamed if asked).
    Use them as context managers, `with OpenAIServer() as server: ...`, or as the fixtures
    `openai_server` and `anthropic_server` (started, stopped after the test) once
    conftest.py registers this module: `pytest_plugins = ["testing.llm_servers"]`. (Importing the
    fixture functions into a test module works too but trips ruff's F811.)

Scripting: each request takes the next reply from the queue; when the queue is empty, the
`server.default` reply is served (initially `model_reply("OK")`).
    server.push(error_reply(429, "slow down", retry_after=0), model_reply("the plan"))
    server.default = error_reply(500, "down")             # 500 forever
    server.push(Reply(delay=5))                           # slow: answers after 5 s
    server.push(Reply(hold=gate, completion=...))         # answers once gate.set() is called
    server.push(Reply(drop=True))                         # connection reset, no answer
    model_reply(text, tokens_in=11, tokens_out=7, model=None, chunk_delay=0.0,
                finish_reason="stop", keepalive=0.0)
        a successful completion in the server's dialect (model: the one requested);
        finish_reason="length" is a reply cut off at the output limit (Anthropic:
        stop_reason "max_tokens"); keepalive=S streams the first chunk, then a `: keep-alive`
        comment every S seconds, forever (OpenAI streams only);
    error_reply(status, message, retry_after=None, delay=0.0)
        an error with the API's error body ({"error": {"message": ...}}) and Retry-After;
    Reply(status=200, json=None, body=None, headers={}, delay=0.0, drop=False)
        anything else, byte for byte.

Inspection: `server.requests` is the list of RecordedRequest(method, path, headers, body)
received, in order; `.json` parses the body; headers are keyed in lower case.
`server.env(model="test-model")` gives the TEDDY_*/key variables that point git teddy at it.
"""

import itertools
import json
import socket
import struct
import sys
import threading
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

TEST_KEY = "sk-test-0123456789abcdef-SECRET"


@dataclass
class Reply:
    status: int = 200
    json: Any = None
    body: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds before the status line is sent
    hold: threading.Event | None = None  # no answer until it is set (a race, without timing)
    drop: bool = False  # reset the connection instead of answering
    completion: "ModelReply | None" = None  # rendered in the server's dialect


@dataclass
class ModelReply:
    text: str
    tokens_in: int = 11
    tokens_out: int = 7
    model: str | None = None
    chunk_delay: float = 0.0  # between streamed chunks
    finish_reason: str = "stop"  # "length": cut off at the output limit
    keepalive: float = 0.0  # > 0: after the first chunk, only keep-alive comments, forever


def model_reply(
    text: str,
    tokens_in: int = 11,
    tokens_out: int = 7,
    model: str | None = None,
    chunk_delay: float = 0.0,
    finish_reason: str = "stop",
    keepalive: float = 0.0,
) -> Reply:
    return Reply(
        completion=ModelReply(
            text, tokens_in, tokens_out, model, chunk_delay, finish_reason, keepalive
        )
    )


def error_reply(
    status: int, message: str, retry_after: float | None = None, delay: float = 0.0
) -> Reply:
    headers = {} if retry_after is None else {"Retry-After": f"{retry_after:g}"}
    body = {"type": "error", "error": {"type": "api_error", "message": message}}
    return Reply(status=status, json=body, headers=headers, delay=delay)


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body)


class _Handler(BaseHTTPRequestHandler):
    server: "_HTTPServer"
    protocol_version = "HTTP/1.1"  # streams go out chunked, as the real APIs send them

    def do_POST(self) -> None:
        owner = self.server.owner
        length = int(self.headers.get("Content-Length") or 0)
        request = RecordedRequest(
            "POST",
            self.path,
            {k.lower(): v for k, v in self.headers.items()},
            self.rfile.read(length),
        )
        reply = owner.record(request)
        if reply.delay and owner.stopped.wait(reply.delay):
            return
        while reply.hold is not None and not reply.hold.wait(0.05):
            if owner.stopped.is_set():
                return
        if reply.drop:
            # SO_LINGER 0: close() sends a TCP reset, as a crashed or overloaded proxy would.
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.close_connection = True
            return
        if request.path != owner.path:
            self._send(error_reply(404, f"no route {request.path}"))
        elif reply.completion is not None:
            owner.render(self, request, reply.completion)
        else:
            self._send(reply)

    def _send(self, reply: Reply) -> None:
        body = reply.body if reply.body is not None else json.dumps(reply.json).encode()
        self.send_response(reply.status)
        for name, value in {"Content-Type": "application/json", **reply.headers}.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep test output clean


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    owner: "ScriptedServer"

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hangs up once it has its answer (as streaming clients do after
        `data: [DONE]`) is not an error worth a traceback in the test output."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class ScriptedServer:
    """A server on 127.0.0.1 (a free port) answering POSTs to `path` from a queue."""

    path = "/"
    prefix = ""  # part of the path that belongs in `url` (e.g. /v1)

    def __init__(self) -> None:
        self.requests: list[RecordedRequest] = []
        self.queue: deque[Reply] = deque()
        self.default = model_reply("OK")
        self.stopped = threading.Event()
        self._lock = threading.Lock()
        self._server = _HTTPServer(("127.0.0.1", 0), _Handler)
        self._server.owner = self
        # A short poll interval: stopping a server would otherwise take up to half a second.
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}{self.prefix}"

    def push(self, *replies: Reply) -> None:
        with self._lock:
            self.queue.extend(replies)

    def record(self, request: RecordedRequest) -> Reply:
        with self._lock:
            self.requests.append(request)
            return self.queue.popleft() if self.queue else self.default

    def render(self, handler: _Handler, request: RecordedRequest, reply: ModelReply) -> None:
        raise NotImplementedError

    def send_chunks(self, handler: _Handler, lines: list[str], delay: float) -> None:
        """A chunked body, one chunk a line, `delay` seconds apart (cut short when the server
        stops)."""
        for line in lines:
            data = line.encode()
            handler.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            handler.wfile.flush()
            if delay and self.stopped.wait(delay):
                handler.close_connection = True
                return
        handler.wfile.write(b"0\r\n\r\n")

    def start(self) -> "ScriptedServer":
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopped.set()  # ends pending delays
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> Any:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class OpenAIServer(ScriptedServer):
    path = "/v1/chat/completions"
    prefix = "/v1"

    def env(self, model: str = "test-model", key: str | None = TEST_KEY) -> dict[str, str]:
        variables = {
            "TEDDY_PROVIDER": "openai",
            "TEDDY_BASE_URL": self.url,
            "TEDDY_MODEL": model,
            "TEDDY_RETRY_DELAY": "0.01",
        }
        return variables | ({"OPENAI_API_KEY": key} if key else {})

    def render(self, handler: _Handler, request: RecordedRequest, reply: ModelReply) -> None:
        asked = request.json
        model = reply.model or asked.get("model", "unknown")
        usage = {
            "prompt_tokens": reply.tokens_in,
            "completion_tokens": reply.tokens_out,
            "total_tokens": reply.tokens_in + reply.tokens_out,
        }
        base = {"id": "chatcmpl-test", "created": 1_790_000_000, "model": model}
        if not asked.get("stream"):
            message = {"role": "assistant", "content": reply.text}
            choice = {"index": 0, "message": message, "finish_reason": reply.finish_reason}
            body = base | {"object": "chat.completion", "choices": [choice], "usage": usage}
            handler._send(Reply(json=body))
            return
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        chunk = base | {"object": "chat.completion.chunk"}
        pieces = [reply.text[i : i + 5] for i in range(0, len(reply.text), 5)]
        deltas = [{"role": "assistant", "content": ""}] + [{"content": p} for p in pieces]
        events = [
            chunk | {"choices": [{"index": 0, "delta": d, "finish_reason": None}]} for d in deltas
        ]
        last = {"index": 0, "delta": {}, "finish_reason": reply.finish_reason}
        events.append(chunk | {"choices": [last]})
        if (asked.get("stream_options") or {}).get("include_usage"):
            events.append(chunk | {"choices": [], "usage": usage})
        lines = [f"data: {json.dumps(event)}\n\n" for event in events] + ["data: [DONE]\n\n"]
        if reply.keepalive:
            self._keep_alive(handler, lines[0], reply.keepalive)
            return
        self.send_chunks(handler, lines, reply.chunk_delay)

    def _keep_alive(self, handler: _Handler, first: str, every: float) -> None:
        """The first event, then a server-sent-events comment every `every` seconds until
        the server stops or the client hangs up: a stream that never ends."""
        handler.close_connection = True
        try:
            for line in itertools.chain([first], itertools.repeat(": keep-alive\n\n")):
                data = line.encode()
                handler.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                handler.wfile.flush()
                if self.stopped.wait(every):
                    return
        except OSError:
            return  # the client gave up


class AnthropicServer(ScriptedServer):
    path = "/v1/messages"

    def env(self, model: str = "test-model", key: str | None = TEST_KEY) -> dict[str, str]:
        variables = {
            "TEDDY_PROVIDER": "anthropic",
            "TEDDY_BASE_URL": self.url,
            "TEDDY_MODEL": model,
            "TEDDY_RETRY_DELAY": "0.01",
        }
        return variables | ({"ANTHROPIC_API_KEY": key} if key else {})

    def render(self, handler: _Handler, request: RecordedRequest, reply: ModelReply) -> None:
        body = {
            "id": "msg_test",
            "type": "message",
            "role": "assistant",
            "model": reply.model or request.json.get("model", "unknown"),
            "content": [{"type": "text", "text": reply.text}],
            "stop_reason": "max_tokens" if reply.finish_reason == "length" else "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": reply.tokens_in, "output_tokens": reply.tokens_out},
        }
        if not request.json.get("stream"):
            handler._send(Reply(json=body))
            return
        # The Messages API's stream: message_start (input tokens), text deltas, message_delta
        # (stop reason, output tokens), message_stop; a ping between, as the API sends.
        start = body | {"content": [], "stop_reason": None}
        start["usage"] = {"input_tokens": reply.tokens_in, "output_tokens": 1}
        pieces = [reply.text[i : i + 5] for i in range(0, len(reply.text), 5)]
        events = [
            {"type": "message_start", "message": start},
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
            {"type": "ping"},
            *(
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "text_delta", "text": p},
                }
                for p in pieces
            ),
            {"type": "content_block_stop", "index": 0},
            {
                "type": "message_delta",
                "delta": {"stop_reason": body["stop_reason"], "stop_sequence": None},
                "usage": {"output_tokens": reply.tokens_out},
            },
            {"type": "message_stop"},
        ]
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        lines = [f"event: {event['type']}\ndata: {json.dumps(event)}\n\n" for event in events]
        self.send_chunks(handler, lines, reply.chunk_delay)


@pytest.fixture
def openai_server() -> Iterator[OpenAIServer]:
    with OpenAIServer() as server:
        yield server


@pytest.fixture
def anthropic_server() -> Iterator[AnthropicServer]:
    with AnthropicServer() as server:
        yield server
