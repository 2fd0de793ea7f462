"""Settings: `git config teddy.*`, overridden by `TEDDY_*` environment variables.

`teddy.refPrefix` is overridden by `TEDDY_REF_PREFIX`, `teddy.execute.timeout` by
`TEDDY_EXECUTE_TIMEOUT`: dots and camel-case humps become underscores.
"""

import os
import re
from collections.abc import Mapping

from git_teddy.errors import TeddyError

DEFAULT_REF_PREFIX = "teddy/"


def env_name(key: str) -> str:
    """`teddy.refPrefix` -> `TEDDY_REF_PREFIX`."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", key).replace(".", "_").upper()


class Settings:
    """A read-only view of the teddy.* settings of one repository."""

    def __init__(self, git_values: Mapping[str, list[str]], environ: Mapping[str, str]) -> None:
        self._git = git_values
        self._environ = environ

    @classmethod
    def from_env(cls, git_values: Mapping[str, list[str]]) -> "Settings":
        return cls(git_values, os.environ)

    def get_all(self, key: str) -> list[str]:
        override = self._environ.get(env_name(key))
        if override is not None:
            return [override]
        return list(self._git.get(key.lower(), []))

    def get(self, key: str, default: str | None = None) -> str | None:
        values = self.get_all(key)
        return values[-1] if values else default  # git's rule: the last value wins

    def get_int(self, key: str, default: int) -> int:
        value = self.get(key)
        if value is None:
            return default
        try:
            return int(value)
        except ValueError:
            raise TeddyError(
                f"{key} must be a whole number, not {value!r}",
                f"fix it with `git config {key} <number>` (or unset {env_name(key)})",
            ) from None

    @property
    def ref_prefix(self) -> str:
        prefix = (self.get("teddy.refPrefix", DEFAULT_REF_PREFIX) or DEFAULT_REF_PREFIX).strip("/")
        if not re.fullmatch(r"[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)*", prefix) or ".." in prefix:
            raise TeddyError(
                f"teddy.refPrefix {prefix!r} is not usable in a ref name",
                "use letters, digits, '-', '_', '.' and '/', e.g. `git config teddy.refPrefix ai/`",
            )
        return prefix + "/"
