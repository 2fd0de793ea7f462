"""The replay provider: canned replies for demos and tests, one file per call.

Replies are the files of `teddy.replayDir` sorted by name (hidden files skipped). The next
position is kept under `<derived>/replay/`, keyed by the folder's resolved path, so that a
series of `git teddy plan` commands walks through the folder. Tokens and cost are None:
nothing was counted, and a guess would end up in commit trailers as if it were measured.
"""

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from git_teddy.llm.base import ChatMessage, Completion, ProviderError


@dataclass
class ReplayProvider:
    folder: Path  # resolved
    state_dir: Path  # derived_dir / "replay"
    name: str = "replay"
    model: str = "replay"

    @property
    def state_file(self) -> Path:
        key = hashlib.sha256(str(self.folder).encode()).hexdigest()[:16]
        return self.state_dir / f"{key}.json"

    def replies(self) -> list[Path]:
        return sorted(
            (p for p in self.folder.iterdir() if p.is_file() and not p.name.startswith(".")),
            key=lambda p: p.name,
        )

    def position(self) -> int:
        try:
            state = json.loads(self.state_file.read_text())
            return int(state["next"]) if state.get("folder") == str(self.folder) else 0
        except (OSError, ValueError, KeyError, TypeError):
            return 0

    def complete(self, system: str, messages: list[ChatMessage]) -> Completion:
        replies, position = self.replies(), self.position()
        if position >= len(replies):
            raise ProviderError(
                f"no replies left in {self.folder} (all {len(replies)} were used)",
                f"add reply files there, or start again from the first: rm {self.state_file}",
            )
        try:
            text = replies[position].read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise ProviderError(
                f"cannot read the reply {replies[position]}: {error}",
                "replies must be readable UTF-8 text files",
            ) from error
        self._save(position + 1)
        return Completion(text=text, model=self.model, provider=self.name)

    def _save(self, position: int) -> None:
        self.state_dir.mkdir(parents=True, exist_ok=True)
        temporary = self.state_file.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_text(json.dumps({"folder": str(self.folder), "next": position}) + "\n")
        os.replace(temporary, self.state_file)  # never a half-written position
