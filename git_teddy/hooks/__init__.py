"""The git hooks git-teddy ships, installed with the package as `git_teddy.hooks` data.

The Python halves of the hooks import only the standard library, gitstore's
standard-library modules (the runner, through named operations) and the redactor, so they
start in tens of milliseconds: no dulwich, no pydantic.
"""

import os
from pathlib import Path

HOOKS_DIR = Path(__file__).resolve().parent


def hook_source(name: str) -> bytes:
    return (HOOKS_DIR / name).read_bytes()


def ref_prefix() -> str:
    """`teddy/` unless the block was installed for another `teddy.refPrefix`."""
    prefix = os.environ.get("TEDDY_HOOK_REF_PREFIX", "teddy/").strip("/")
    return f"{prefix}/"
