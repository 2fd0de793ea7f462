"""Reading YAML with libyaml's C parser when PyYAML has it (several times faster than the
pure-Python one: session.md is rebuilt from every turn's YAML on each session commit)."""

from typing import Any

import yaml

_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_yaml(text: str | bytes) -> Any:
    """Like `yaml.safe_load`: plain data only."""
    return yaml.load(text, Loader=_LOADER)
