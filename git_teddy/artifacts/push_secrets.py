"""The secrets the pre-push hook refuses, as it hands them to `git teddy push`: one JSON
list in the file `git teddy push` names (gitstore.changes.SECRETS_FILE_ENV), read back as
the same records, so no message is parsed. Standard library only: the hook starts fast."""

import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass

SHORT = 12  # characters of an object id in messages; --allow-secret takes any prefix of 7+


@dataclass(frozen=True)
class Secret:
    ref: str
    where: str  # a path, or "commit <id> message"
    line: int
    kind: str
    object_id: str  # the blob, commit or tag holding it

    def allowed_by(self, allowed: Iterable[str]) -> bool:
        for token in allowed:
            is_id = len(token) >= 7 and all(c in "0123456789abcdef" for c in token.lower())
            if (is_id and self.object_id.startswith(token.lower())) or token == self.where:
                return True
        return False

    def finding(self) -> str:
        """The line that names it (after `error: `, in the hook's and push's messages)."""
        return f"{self.ref}: {self.where}:{self.line} contains a secret ({self.kind})" + (
            f" [{self.object_id[:SHORT]}]"
        )


def secrets_json(secrets: list[Secret]) -> str:
    return json.dumps([asdict(secret) for secret in secrets])


def parse_secrets(text: str) -> list[Secret]:
    """The records `secrets_json` wrote; anything else (a hook of another version) is none."""
    try:
        items = json.loads(text)
        return [Secret(**item) for item in items] if isinstance(items, list) else []
    except (ValueError, TypeError):
        return []
