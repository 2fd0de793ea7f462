"""`.teddy/memos.yaml`: the team's long-term memory for the model, a YAML list of strings."""

import yaml

from git_teddy.artifacts.plan.models import Memo
from git_teddy.artifacts.yamlio import Refused, load_yaml
from git_teddy.errors import TeddyError

MEMOS_PATH = ".teddy/memos.yaml"


def parse_memos(text: str) -> list[str]:
    try:
        data = load_yaml(text) if text.strip() else []
    except Refused as refused:  # an alias bomb in a teammate's commit: never expanded
        raise TeddyError(
            f"{MEMOS_PATH} is refused: {refused}",
            f"write each memo out in full (no `&anchor`/`*alias`); see `git log -- {MEMOS_PATH}`",
        ) from None
    except yaml.YAMLError as error:
        raise TeddyError(
            f"{MEMOS_PATH} is not valid YAML: {error}",
            "make it a YAML list of strings, one memo each",
        ) from None
    if not isinstance(data, list) or not all(isinstance(m, str) for m in data):
        raise TeddyError(
            f"{MEMOS_PATH} must be a YAML list of strings",
            "e.g. `- Use pnpm for all package management.`",
        )
    return data


def apply_memo_changes(current: list[str], changes: list[Memo]) -> list[str]:
    """Additions are appended once; deletions remove the memo with the same text."""
    memos = list(current)
    for change in changes:
        if change.op == "+" and change.text not in memos:
            memos.append(change.text)
        elif change.op == "-":
            memos = [m for m in memos if m.strip() != change.text.strip()]
    return memos


def render_memos(memos: list[str]) -> str:
    return yaml.safe_dump(memos, allow_unicode=True, width=1000) if memos else "[]\n"
