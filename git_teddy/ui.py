"""The one interface between library code and the person running git-teddy: what it is told
and what it is asked. Library code receives a `UI` and never prints, prompts or reads stdin
itself; the CLI implements it for a terminal and for pipes (git_teddy.cli.terminal), tests
with scripted answers (testing/scripted_ui.py)."""

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

if TYPE_CHECKING:  # pydantic models: only the type checker needs them (`--version` stays fast)
    from git_teddy.artifacts.plan.models import Action, Memo

# How an action was approved, as its report records it: asked and approved, approved
# without asking (-y, --yolo, or after "all remaining"), rejected, or the user quit.
Verdict = Literal["approved", "auto", "rejected", "quit"]


@dataclass(frozen=True)
class Decision:
    verdict: Verdict
    reason: str | None = None  # why an action was rejected, if the user said
    approve_rest: bool = False  # "all remaining": the rest of this plan without asking


class Interrupted(Exception):
    """The person stopped at a question (Ctrl-C or end of input): the command stops as on
    Ctrl-C (the loop pauses its session first)."""


class UI(Protocol):
    """Everything library code tells or asks the person running git-teddy."""

    # Nobody answers approvals (-y, --yolo): the loop then needs its first message up front,
    # and stops when the model asks a question that goes unanswered.
    unattended: bool

    def progress(self, text: str) -> None:
        """A line about what is happening (planning attempts, notes): stderr on the CLI."""

    def show(self, text: str) -> None:
        """A line of the command's own output (plans, actions and their results): stdout."""

    def step(self, text: str) -> None:
        """A line of the command's own output that follows its steps as they go (each
        action of a plan run without approvals): stdout, left out with -q."""

    def command_output(self, data: bytes) -> None:
        """Output of a running EXECUTE command (stdout and stderr), as it comes: shown live
        on a terminal, not at all in a pipe or with -q (the report keeps it either way)."""

    def status(self, text: str) -> None:
        """Replace the passing status line (a model's streaming progress) with `text`;
        shown on a terminal only."""

    def end_status(self) -> None:
        """End the status line (a newline on a terminal)."""

    def approve_memos(self, memos: "list[Memo]") -> bool:
        """Whether the memo changes (already shown) are approved."""

    def approve_action(self, action: "Action") -> Decision:
        """yes / no with a reason / show the diff / all remaining / quit, for one action
        (already shown)."""

    def chat_reply(self) -> str | None:
        """The person's reply to the model's CHAT_WITH_USER message (already shown); None
        for no reply."""

    def approve_url(self, url: str, source: str) -> bool | None:
        """Whether a URL nobody approved for the session yet (named by `source`, such as the
        committed `.teddy/global.context`) may be fetched for it; None when there is nobody
        to ask (no terminal, -y): the URL is then left out with a note."""

    def approve_apply(self) -> bool:
        """Whether the turn's result goes into the working tree (`teddy.apply=ask`)."""

    def first_message(self) -> str | None:
        """The message of a session's first turn; None stops the loop."""

    def next_message(self) -> str | None:
        """A comment for the next plan: "" to go on without one, None to stop the loop."""

    def read_paste(self) -> bytes:
        """Everything the person pastes (the manual provider's reply), up to end of input.
        May raise OSError."""
