"""The ExecutionReport written as `report.md` (pure): pydantic models rendered as YAML."""

import re
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field
from yaml.emitter import ScalarAnalysis

from git_teddy.artifacts.yamlio import load_model

RunStatus = Literal["SUCCESS", "FAILURE", "ABORTED"]
ActionStatus = Literal["SUCCESS", "FAILURE", "SKIPPED", "REJECTED"]
Approval = Literal["approved", "auto", "rejected"]


class RunSummary(BaseModel):
    model_config = ConfigDict(defer_build=True)

    status: RunStatus
    start_time: str
    end_time: str
    base_snapshot: str
    snapshot: str | None = None
    applied: bool | str = False  # True, False, or why not ("conflict", "never", ...)
    notes: list[str] = Field(default_factory=list)  # what the result leaves out, and why
    committed: str | None = None  # the commit teddy.autoCommit made of the applied result
    # the tests a failed EXECUTE's runner named (`action 2: name (where): message`), first
    failed_tests: list[str] = Field(default_factory=list)


class MemoReport(BaseModel):
    model_config = ConfigDict(defer_build=True)

    proposed: list[str] = Field(default_factory=list)
    decision: Literal["approved", "rejected", "none"] = "none"


class ActionLog(BaseModel):
    model_config = ConfigDict(defer_build=True)

    index: int
    action_type: str
    description: str | None = None
    params: dict[str, Any] = Field(default_factory=dict)
    approval: Approval | None = None
    reason: str | None = None
    status: ActionStatus
    summary: str | None = None  # the one-line outcome, as the terminal showed it
    details: dict[str, Any] = Field(default_factory=dict)


class ExecutionReport(BaseModel):
    model_config = ConfigDict(defer_build=True)

    run_summary: RunSummary
    memos: MemoReport = Field(default_factory=MemoReport)
    action_logs: list[ActionLog] = Field(default_factory=list)
    redactions: list[dict[str, Any]] = Field(default_factory=list)  # secrets replaced, where


class _LiteralBlocks(yaml.SafeDumper):
    """Multi-line strings as `|` blocks, so command output stays readable in the report:
    also those PyYAML would escape into a quoted string for a line's trailing spaces or a
    tab, which a literal block holds exactly (the text is made printable first:
    output.readable)."""

    def analyze_scalar(self, scalar: str) -> ScalarAnalysis:
        found = super().analyze_scalar(scalar)
        if "\n" not in scalar or _UNBLOCKABLE.search(scalar):
            return found
        return ScalarAnalysis(
            scalar=scalar,
            empty=found.empty,
            multiline=found.multiline,
            allow_flow_plain=found.allow_flow_plain,
            allow_block_plain=found.allow_block_plain,
            allow_single_quoted=found.allow_single_quoted,
            allow_double_quoted=found.allow_double_quoted,
            allow_block=True,
        )


# What a literal block cannot hold as it is: characters YAML does not print, and those it
# reads as line breaks (\r, NEL, LS, PS); a byte order mark.
_UNBLOCKABLE = re.compile("[^\t\n\x20-\x7e\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]|\ufeff")


def _str_presenter(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_LiteralBlocks.add_representer(str, _str_presenter)


def render_report(report: ExecutionReport) -> str:
    data = report.model_dump(mode="json")
    for optional in ("notes", "failed_tests", "committed"):
        if not data["run_summary"][optional]:
            del data["run_summary"][optional]  # reports without them read as they always did
    return yaml.dump(data, Dumper=_LiteralBlocks, sort_keys=False, allow_unicode=True, width=100)


def parse_report(text: str | bytes) -> ExecutionReport:
    """The report `text` holds; yamlio.Unreadable (a ValueError) saying why when it is not one."""
    return load_model(ExecutionReport, text)


REGION_CONTEXT = 2  # unchanged lines shown around an edited region
REGION_LINES = 40  # lines shown of one region at most: its first and last half


def edited_regions(before: str, after: str) -> list[str]:
    """Each region an EDIT changed, as the file now reads there: a `lines A-B of N` header,
    then its lines with their numbers (`>` marks a changed line), a few unchanged ones
    around; a region that only removed lines says after which line."""
    import difflib  # only an EDIT's report needs it

    old, new = before.splitlines(), after.splitlines()
    width = len(str(len(new)))
    regions = []
    for tag, _, _, first, last in difflib.SequenceMatcher(None, old, new, False).get_opcodes():
        if tag == "equal":
            continue
        if first == last:
            head = f"lines removed after line {first} of {len(new)}"
        elif last == first + 1:
            head = f"line {last} of {len(new)}"
        else:
            head = f"lines {first + 1}-{last} of {len(new)}"
        start, end = max(first - REGION_CONTEXT, 0), min(last + REGION_CONTEXT, len(new))
        shown = [
            f"{n + 1:>{width}}{'>' if first <= n < last else ' '} {new[n]}"
            for n in range(start, end)
        ]
        if len(shown) > REGION_LINES:
            half = REGION_LINES // 2
            cut = len(shown) - 2 * half
            shown = [*shown[:half], f"[... {cut} lines not shown ...]", *shown[-half:]]
        regions.append("\n".join([head, *shown]) + "\n")
    return regions
