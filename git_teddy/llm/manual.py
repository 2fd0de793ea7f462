"""The manual provider: you are the API. The payload goes to a file (and the clipboard), you
paste it into any chat, and paste the model's reply back (the UI reads it: stdin on the CLI)."""

from dataclasses import dataclass
from pathlib import Path

from git_teddy.llm.base import ChatMessage, Completion, ProviderError
from git_teddy.llm.clipboard import copy_to_clipboard
from git_teddy.ui import UI

TITLES = {"user": "User", "assistant": "Assistant (your model's earlier reply)"}


def render_payload(system: str, messages: list[ChatMessage]) -> str:
    """The conversation as Markdown to paste into a chat, system prompt first."""
    parts = [
        "# System prompt\n\n" + system.strip("\n"),
        *(f"# {TITLES[m.role]}\n\n" + m.content.strip("\n") for m in messages),
    ]
    return "\n\n".join(parts) + "\n"


def _new_file(folder: Path, text: str) -> Path:
    """`payload-0001.md`, `payload-0002.md`, ...: created exclusively, so never overwritten."""
    folder.mkdir(parents=True, exist_ok=True)
    number = len(list(folder.glob("payload-*.md"))) + 1
    while True:
        path = folder / f"payload-{number:04d}.md"
        try:
            with path.open("x", encoding="utf-8") as file:
                file.write(text)
            return path
        except FileExistsError:
            number += 1


@dataclass
class ManualProvider:
    folder: Path  # derived_dir / "manual"
    ui: UI  # where the user is told what to do, and pastes the reply
    name: str = "manual"
    model: str = "manual"

    def complete(self, system: str, messages: list[ChatMessage]) -> Completion:
        payload = render_payload(system, messages)
        path = _new_file(self.folder, payload)
        self.ui.progress(f"the request for the model is in {path}")
        tool = copy_to_clipboard(payload)
        if tool:
            self.ui.progress(f"it is also in the clipboard ({tool})")
        self.ui.progress(
            "paste the model's reply here, then press Ctrl-D on a line of its own "
            "(or save it and run `git teddy plan -m MSG --from-file REPLY.md`)"
        )
        text = read_reply(self.ui)
        return Completion(text=text, model=self.model, provider=self.name)


def read_reply(ui: UI) -> str:
    try:
        data = ui.read_paste()
    except OSError as error:
        raise ProviderError(f"cannot read the reply from stdin: {error}") from error
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ProviderError(
            f"the reply on stdin is not UTF-8 text (byte {error.start})",
            "save the reply as UTF-8 and use `git teddy plan -m MSG --from-file REPLY.md`",
        ) from error
    if not text.strip():
        raise ProviderError(
            "no reply on stdin: the model's answer is needed to plan the turn",
            "paste the reply and press Ctrl-D, or use `git teddy plan -m MSG --from-file REPLY.md`",
        )
    return text
