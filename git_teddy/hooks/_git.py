"""What the hooks share: running git quietly, and the ref prefix the installed block passes.

The hooks import only the standard library (and, for pre-push, the redactor), so they start
in tens of milliseconds: no dulwich, no pydantic.
"""

import os
import subprocess


class GitFailed(RuntimeError):
    """A git command the hook needs did not work."""


def git(*args: str, input: str | None = None, check: bool = True) -> str:
    proc = subprocess.run(
        ["git", *args],
        input=input,
        capture_output=True,
        check=False,
        encoding="utf-8",
        errors="surrogateescape",  # paths byte for byte
    )
    if check and proc.returncode != 0:
        raise GitFailed(f"git {args[0]} failed: {proc.stderr.strip()}")
    return proc.stdout


def git_bytes(*args: str, input: bytes | None = None) -> bytes:
    proc = subprocess.run(["git", *args], input=input, capture_output=True, check=False)
    if proc.returncode != 0:
        raise GitFailed(f"git {args[0]} failed: {proc.stderr.decode(errors='replace').strip()}")
    return proc.stdout


def ref_prefix() -> str:
    """`teddy/` unless the block was installed for another `teddy.refPrefix`."""
    prefix = os.environ.get("TEDDY_HOOK_REF_PREFIX", "teddy/").strip("/")
    return f"{prefix}/"


def is_null(sha: str) -> bool:
    return set(sha) == {"0"}


def is_object_id(text: str) -> bool:
    return len(text) in (40, 64) and all(c in "0123456789abcdef" for c in text)
