"""Which resources a turn's context lists (pure). Lines are paths, globs or URLs; `#` starts
a comment. A turn inherits the previous turn's list, plus what it READ, minus what it PRUNEd."""

from git_teddy.execute.report import ExecutionReport


def parse_context(text: str) -> list[str]:
    entries = []
    for line in text.splitlines():
        entry = (
            line.split("#", 1)[0].strip() if not line.lstrip().startswith("http") else line.strip()
        )
        if entry and entry not in entries:
            entries.append(entry)
    return entries


def render_context(entries: list[str]) -> str:
    return "".join(f"{entry}\n" for entry in entries)


def next_turn_context(previous: list[str], report: ExecutionReport | None) -> list[str]:
    """The previous turn's resources with its successful READs added and PRUNEs removed."""
    entries = list(previous)
    for log in report.action_logs if report else []:
        resource = log.params.get("resource")
        if log.status != "SUCCESS" or not isinstance(resource, str):
            continue
        if log.action_type == "READ" and resource not in entries:
            entries.append(resource)
        elif log.action_type == "PRUNE" and resource in entries:
            entries.remove(resource)
    return entries
