"""YAML frontmatter of Markdown documents such as `session.md` (pure)."""

from typing import Any

import yaml

from git_teddy.artifacts.yamlio import Refused, load_yaml


def render(frontmatter: dict[str, Any], body: str) -> str:
    header = yaml.safe_dump(frontmatter, sort_keys=False, allow_unicode=True, width=1000)
    return f"---\n{header}---\n{body}"


def parse(text: str) -> tuple[dict[str, Any], str]:
    """Split a document into its frontmatter mapping and body; no frontmatter gives {}.
    Refused (from yamlio) for a frontmatter with aliases or too large: not read at all."""
    if not text.startswith("---\n"):
        return {}, text
    end = text.find("\n---\n", 3)
    if end < 0:
        return {}, text
    try:
        data = load_yaml(text[4 : end + 1]) or {}
    except Refused:
        raise
    except yaml.YAMLError:
        return {}, text  # edited by hand into something else: read as no frontmatter
    if not isinstance(data, dict):
        return {}, text
    return data, text[end + 5 :]
