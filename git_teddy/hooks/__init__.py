"""The git hooks git-teddy ships, installed with the package as `git_teddy.hooks` data."""

from pathlib import Path

HOOKS_DIR = Path(__file__).resolve().parent


def hook_source(name: str) -> bytes:
    return (HOOKS_DIR / name).read_bytes()
