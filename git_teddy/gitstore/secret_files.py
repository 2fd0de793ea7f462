"""Which of the user's untracked files look like secrets, so that snapshots leave them out
as they leave out ignored files; and how bytes are read as text to look for secrets.

A file is secret-looking by its name (the defaults below and the `teddy.secretFiles`
globs) or by its content (what the redactor flags). Only untracked files are judged:
tracked and staged files are the user's choice and stay in snapshots. Standard library
and the redactor only: the context cache and the pre-push hook import this too.
"""

import codecs
import fnmatch
from collections.abc import Sequence
from pathlib import Path

from git_teddy.gitstore import plumbing
from git_teddy.settings import SECRET_FILES, Settings

# Names of files that hold keys and passwords by convention. A glob without `/` is matched
# against the file's name, one with `/` against its path from the top (as in .gitignore).
DEFAULT_SECRET_FILES = (
    ".env",
    ".env.*",
    "*.pem",
    "*.key",
    "*.p12",
    "*.pfx",
    "id_rsa*",
    "id_dsa*",
    "id_ecdsa*",
    "id_ed25519*",
    ".npmrc",
    ".pypirc",
    ".netrc",
    ".git-credentials",
    "credentials*",
    "*creds*",
)
# Templates that document a .env without values: they are meant to be shared.
NOT_SECRET_FILES = (".env.example", ".env.sample", ".env.template")
MAX_SCANNED_BYTES = 1024 * 1024  # a bigger untracked file is judged by its name alone
BINARY_SNIFF = 8000  # a NUL byte in the first this many bytes (and no UTF-16 form): binary


def configured_globs(cwd: Path, known: Sequence[str] | None = None) -> list[str]:
    """`teddy.secretFiles` (git config or TEDDY_SECRET_FILES): globs added to the defaults;
    `known` when the caller has read them already (one config read per command)."""
    if known is not None:
        return list(known)
    return Settings.from_env(plumbing.read_config(cwd, "teddy")).paths(SECRET_FILES)


def has_secret_name(path: str, globs: Sequence[str] = ()) -> bool:
    name = path.rsplit("/", 1)[-1]
    if name in NOT_SECRET_FILES:
        return False
    for glob in (*DEFAULT_SECRET_FILES, *globs):
        subject = path if "/" in glob.strip("/") else name
        if fnmatch.fnmatchcase(subject, glob.strip("/")):
            return True
    return False


def has_token_in_name(path: str) -> bool:
    """A token in the file's path (`backups/ghp_....txt`): the name alone would leak it."""
    from git_teddy.redact import find_secrets

    return bool(find_secrets(path))


def as_text(content: bytes) -> str | None:
    """The text in `content`: UTF-8, UTF-16 with a byte-order mark, or UTF-16 without one
    (ASCII with a NUL after or before each character); None for binary content."""
    for bom, codec in ((codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be")):
        if content.startswith(bom):
            return content[len(bom) :].decode(codec, errors="replace")
    head = content[:BINARY_SNIFF]
    if b"\0" not in head:
        return content.decode("utf-8", errors="replace")
    for codec, nuls in (("utf-16-le", head[1::2]), ("utf-16-be", head[0::2])):
        if len(head) > 1 and nuls.count(0) >= len(nuls) * 0.9:  # NUL-interleaved ASCII
            return content.decode(codec, errors="replace")
    return None


def has_secret_content(file: Path) -> bool:
    from git_teddy.redact import find_secrets  # the hooks' fast paths need no regexes

    try:
        if file.is_symlink() or not file.is_file() or file.stat().st_size > MAX_SCANNED_BYTES:
            return False
        text = as_text(file.read_bytes())
    except OSError:
        return False  # unreadable: git add reports it as it would without teddy
    return text is not None and bool(find_secrets(text))


def untracked_secrets(top: Path, listed: Sequence[str], globs: Sequence[str]) -> list[str]:
    """Those of the untracked, unignored files `listed` (paths from the top of the working
    tree at `top`, as `git ls-files --others --full-name` lists them) that look like secrets."""
    return [
        rel
        for rel in listed
        if not rel.endswith("/")  # a nested repository: recorded as a gitlink, never read
        and (
            has_secret_name(rel, globs)
            or has_token_in_name(rel)
            or has_secret_content(Path(top, *rel.split("/")))
        )
    ]
