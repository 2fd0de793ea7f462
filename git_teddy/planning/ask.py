"""Asking a model for a reply that must check out (a plan, a refined workflow): the reply is
validated and, while it is not valid, sent back with its precise problems up to `retries`
more times; every attempt is kept, for the turn folder or, when none was valid, for the
user in the derived-state folder. Used by planning (turn.py), pipelines and codify --refine.
"""

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

from git_teddy.artifacts.plan import Plan, Problem, check_plan, format_problems
from git_teddy.gitstore.permissions import Shared
from git_teddy.llm import ChatMessage, Completion, Provider
from git_teddy.ui import UI

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


@dataclass
class Attempt:
    completion: Completion
    problems: list[Problem]  # none for the valid reply


@dataclass(frozen=True)
class Wanted(Generic[T_co]):
    """What a reply must be: `check` reads it (the value, or every problem), `noun` names it
    in progress lines ("the plan"), `retry` is the message that sends the problems back."""

    noun: str
    check: Callable[[str], tuple[T_co | None, list[Problem]]]
    retry: Callable[[list[Problem]], str]


class FileReply:
    """The reply is a file the user already has (`--from-file`): no model is called, and
    nobody is re-prompted (the file is what it is)."""

    name, model = "manual", "manual"

    def __init__(self, text: str) -> None:
        self.text = text

    def complete(self, system: str, messages: list[ChatMessage]) -> Completion:
        return Completion(text=self.text, model=self.model, provider=self.name)


def ask(
    provider: Provider,
    system: str,
    payload: str,
    wanted: Wanted[T],
    retries: int,
    ui: UI,
) -> tuple[T | None, list[Attempt]]:
    """The first valid reply (None when `retries` re-prompts did not give one) and every
    attempt, oldest first. Provider errors propagate."""
    messages = [ChatMessage(role="user", content=payload)]
    attempts: list[Attempt] = []
    for number in range(retries + 1):
        completion = provider.complete(system, messages)
        value, problems = _checked(completion, wanted)
        attempts.append(Attempt(completion, problems))
        if value is not None:
            return value, attempts
        if isinstance(provider, FileReply) or number == retries:
            break  # nobody to re-prompt, or the budget is spent
        ui.progress(
            f"attempt {number + 1}: {wanted.noun} has {len(problems)} problem(s); asking again"
        )
        messages += [
            ChatMessage(role="assistant", content=completion.text),
            ChatMessage(role="user", content=wanted.retry(problems)),
        ]
    return None, attempts


def _checked(completion: Completion, wanted: Wanted[T]) -> tuple[T | None, list[Problem]]:
    """The reply read once; a reply cut off at the model's output limit is never used, even
    when what arrived happens to read as a shorter valid one."""
    if not completion.truncated:
        return wanted.check(completion.text)
    return None, [
        Problem(
            completion.text.count("\n") + 1,
            f"the reply was cut off: it reached the model's output limit, so {wanted.noun} "
            "is incomplete",
            "reply again, shorter and complete to its end: fewer or smaller actions; the "
            "rest can come in a later turn",
        )
    ]


def retry_message(problems: list[Problem], what: str, document: str) -> str:
    """The re-prompt: `Your <what> could not be used...`, then every problem and its hint."""
    return (
        f"Your {what} could not be used. Fix every problem below and reply with the complete "
        f"corrected {document}, nothing else.\n\n" + format_problems(problems)
    )


PLAN: Wanted[Plan] = Wanted("the plan", check_plan, lambda p: retry_message(p, "plan", "plan"))


def ask_for_plan(
    provider: Provider,
    system: str,
    payload: str,
    retries: int,
    ui: UI,
    refuse: Callable[[Plan, str], list[Problem]] | None = None,
) -> tuple[Plan | None, list[Attempt]]:
    """`refuse(plan, text)` finds problems that depend on the repository or the turn (a
    CREATE inside a submodule, a header naming another agent), sent back to the model like
    those of the plan's form."""
    return ask(provider, system, payload, _plan_wanted(refuse) if refuse else PLAN, retries, ui)


def _plan_wanted(refuse: Callable[[Plan, str], list[Problem]]) -> Wanted[Plan]:
    def check(text: str) -> tuple[Plan | None, list[Problem]]:
        plan, problems = check_plan(text)
        if plan is not None:
            problems = refuse(plan, text)
        return (None if problems else plan), problems

    return Wanted(PLAN.noun, check, PLAN.retry)


def count_unreported(
    attempts: list[Attempt], system: str, payload: str, count: Callable[[str], int]
) -> None:
    """Tokens for the attempts whose provider reported none (manual, replay, a reply file):
    counted with the tokenizer over what each attempt was sent (the system prompt, the
    payload, and every earlier reply with the problems sent back) and what it replied, and
    marked as counted. A figure that is only unknown to the provider is not 0."""
    sent = count(system) + count(payload)
    for attempt in attempts:
        completion = attempt.completion
        replied = count(completion.text)
        if completion.tokens_in is None and completion.tokens_out is None:
            completion.tokens_in, completion.tokens_out = sent, replied
            completion.tokens_counted = True
        if attempt.problems:
            sent += replied + count(PLAN.retry(attempt.problems))


# ---- keeping the attempts --------------------------------------------------------------------


def attempt_files(attempts: list[Attempt]) -> dict[str, bytes]:
    """Every reply and its problems: `01.md`, `01.problems.txt`, `02.md`, ..."""
    files = {}
    for number, attempt in enumerate(attempts, start=1):
        files[f"{number:02d}.md"] = attempt.completion.text.encode()
        if attempt.problems:
            files[f"{number:02d}.problems.txt"] = format_problems(attempt.problems).encode()
    return files


def keep_failed(parent: Path, stem: str, attempts: list[Attempt], shared: Shared) -> Path:
    """Replies cost tokens: when none was valid, every attempt is kept (never pushed) in the
    first free `parent/<stem>-<n>/` for the user to fix, with the modes core.sharedRepository
    asks for (`shared`). The folder is returned."""
    number = 1
    while (parent / f"{stem}-{number}").exists():
        number += 1
    folder = parent / f"{stem}-{number}"
    shared.make_folders(folder.parent)
    folder.mkdir()
    shared.adjust(folder)
    for name, data in attempt_files(attempts).items():
        (folder / name).write_bytes(data)
        shared.adjust(folder / name)
    return folder
