"""`ScriptedUI`: git_teddy.ui.UI with answers given up front, for tests that call the library
in this process. It records everything it is told and asked; a question with no answer
left is Interrupted, as end of input at a terminal prompt is."""

from dataclasses import dataclass, field
from typing import TypeVar

from git_teddy.artifacts.plan.models import Action, Memo
from git_teddy.ui import Decision, Interrupted

T = TypeVar("T")

# The terminal's one-letter answers to an action's approval.
ANSWERS = {
    "y": Decision("approved"),
    "n": Decision("rejected"),
    "a": Decision("approved", approve_rest=True),
    "q": Decision("quit"),
}


@dataclass
class ScriptedUI:
    """Answers come from the lists, in order: `actions` (a Decision, or y, n, a, q as typed),
    `memos` and `applies` (bool), `replies` (chat replies), `messages` (first and next
    messages, "" to go on, None to stop), `pastes` (the manual provider's replies) and
    `urls` (whether to fetch a URL not approved yet; None: nobody to ask)."""

    actions: list[Decision | str] = field(default_factory=list)
    memos: list[bool] = field(default_factory=list)
    applies: list[bool] = field(default_factory=list)
    replies: list[str | None] = field(default_factory=list)
    messages: list[str | None] = field(default_factory=list)
    pastes: list[bytes] = field(default_factory=list)
    urls: list[bool | None] = field(default_factory=list)  # fetch a URL nobody approved yet?
    unattended: bool = False
    shown: list[str] = field(default_factory=list)  # stdout lines on the CLI
    notes: list[str] = field(default_factory=list)  # progress lines (stderr on the CLI)
    statuses: list[str] = field(default_factory=list)
    output: list[bytes] = field(default_factory=list)  # EXECUTE output, as it came
    asked: list[str] = field(default_factory=list)  # which questions, in order

    def progress(self, text: str) -> None:
        self.notes.append(text)

    def show(self, text: str) -> None:
        self.shown.append(text)

    def step(self, text: str) -> None:
        self.shown.append(text)

    def command_output(self, data: bytes) -> None:
        self.output.append(data)

    def status(self, text: str) -> None:
        self.statuses.append(text)

    def end_status(self) -> None:
        self.statuses.append("<end>")

    def approve_memos(self, memos: list[Memo]) -> bool:
        return self._next("memos", self.memos)

    def approve_action(self, action: Action) -> Decision:
        answer = self._next(f"action {action.type}", self.actions)
        return ANSWERS[answer] if isinstance(answer, str) else answer

    def chat_reply(self) -> str | None:
        return self._next("reply", self.replies)

    def approve_url(self, url: str, source: str) -> bool | None:
        return self._next(f"url {url}", self.urls)

    def approve_apply(self) -> bool:
        return self._next("apply", self.applies)

    def first_message(self) -> str | None:
        return self._next("first message", self.messages)

    def next_message(self) -> str | None:
        return self._next("next message", self.messages)

    def read_paste(self) -> bytes:
        return self._next("paste", self.pastes)

    def _next(self, question: str, answers: list[T]) -> T:
        self.asked.append(question)
        if not answers:
            raise Interrupted(f"no scripted answer left for {question!r}")
        return answers.pop(0)
