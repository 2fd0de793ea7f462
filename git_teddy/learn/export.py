"""Learning cases as files (pure): chat-format jsonl for fine-tuning, one readable Markdown
document, or one Markdown file per case whose frontmatter is its metadata.
"""

import json
from collections.abc import Iterator

from git_teddy.artifacts import frontmatter
from git_teddy.artifacts.plan.fences import fence_for
from git_teddy.artifacts.sessionlog.build import one_line
from git_teddy.artifacts.sessionlog.reading import blockquote
from git_teddy.learn.cases import Case

EXPORTS: tuple[str, ...] = ("jsonl", "markdown", "puzzle")


def system_prompt(case: Case) -> str:
    agent = case.metadata.agent.split("@")[0]
    return (
        f"You are {agent}, an AI agent pair-programming with a user in git-teddy: you plan "
        "each turn as actions (READ, CREATE, EDIT, EXECUTE, CHAT_WITH_USER, INVOKE...) that "
        "the user approves."
    )


def user_prompt(case: Case) -> str:
    parts = [f"Task: {case.title}"]
    parts += [f"The user's request:\n{blockquote(case.request)}"] if case.request else []
    parts += [_decisions(case)] if case.decisions else []
    if case.metadata.type == "puzzle":
        parts += [f"This failed:\n{case.behaviour}", "What do you do next?"]
    else:
        parts += [f"You did this:\n{case.behaviour}"]
        parts += [f"The user answered:\n{blockquote(case.correction or '')}", "What do you do now?"]
    return "\n\n".join(parts)


def _decisions(case: Case) -> str:
    return "Decisions so far:\n" + "\n".join(f"- {one_line(d)}" for d in case.decisions)


def jsonl_line(case: Case) -> str | None:
    """One chat-format fine-tuning example; None when no correct behaviour is known."""
    if case.expected is None:
        return None
    messages = [
        {"role": "system", "content": system_prompt(case)},
        {"role": "user", "content": user_prompt(case)},
        {"role": "assistant", "content": case.expected},
    ]
    record = {"messages": messages, "metadata": case.metadata.model_dump()}
    return json.dumps(record, ensure_ascii=False)


def export_jsonl(cases: list[Case]) -> str:
    lines = [line for line in map(jsonl_line, cases) if line is not None]
    return "".join(line + "\n" for line in lines)


def _sections(case: Case, level: int) -> Iterator[str]:
    heading = "#" * level
    context = [f"Task: {case.title}"]
    context += [f"Request:\n\n{blockquote(case.request)}"] if case.request else []
    context += [_decisions(case)] if case.decisions else []
    yield f"{heading} Context\n\n" + "\n\n".join(context)
    if case.metadata.type == "puzzle":
        yield f"{heading} Failure\n\n{fenced(case.behaviour)}"
        yield f"{heading} Expected behaviour\n\n{case.expected or 'Unresolved: not known yet.'}"
    else:
        yield f"{heading} Agent behaviour\n\n{case.behaviour}"
        yield f"{heading} User correction\n\n{blockquote(case.correction or '')}"
        expected = case.expected or "Not known: the session ends here."
        yield f"{heading} Correct behaviour\n\n{expected}"


def fenced(text: str) -> str:
    """A failure's output as a code block, whatever backticks it holds."""
    fence = fence_for(text)
    return f"{fence}text\n{text}\n{fence}"


def _metadata_line(case: Case) -> str:
    meta = case.metadata
    fields = [f"session {meta.session}", f"turn {meta.turn}", f"@{meta.agent}", f"#{meta.channel}"]
    fields += [f"model {meta.model}"] if meta.model else []
    return "*" + " · ".join(fields) + "*"


def case_title(case: Case) -> str:
    return f"{case.metadata.type.capitalize()}: {case.title}"


def export_markdown(cases: list[Case]) -> str:
    parts = ["# Learning cases", f"{len(cases)} case(s) from git-teddy session logs."]
    for case in cases:
        parts += [f"## {case_title(case)}", _metadata_line(case), *_sections(case, 3)]
    return "\n\n".join(parts) + "\n"


def puzzle_file(case: Case) -> str:
    """One case as a Markdown file; its frontmatter is the metadata (for filtering)."""
    meta = case.metadata.model_dump(exclude_none=True)
    meta |= {"resolved_in": case.resolved_in} if case.resolved_in else {}
    body = "\n\n".join([f"# {case_title(case)}", *_sections(case, 2)])
    return frontmatter.render(meta, "\n" + body + "\n")


def number_cases(cases: list[Case]) -> list[tuple[str, Case]]:
    """Unique names: `<session>-<turn>-<type>-<n>`, n counting within the turn."""
    counts: dict[str, int] = {}
    named = []
    for case in cases:
        counts[case.name] = counts.get(case.name, 0) + 1
        named.append((f"{case.name}-{counts[case.name]}", case))
    return named


def export_puzzles(cases: list[Case]) -> dict[str, str]:
    """File name -> content: one Markdown file per case."""
    return {f"{name}.md": puzzle_file(case) for name, case in number_cases(cases)}
