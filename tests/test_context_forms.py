"""The files a turn's model reads are byte for byte what `git checkout` writes, whichever way
git-teddy reads them: blobs no conversion applies to straight from the object store (the
fast way `git teddy context` counts 10 MB in), the others through a checkout. Each case
compares `_context.log` with the working tree a fresh `git checkout` wrote.
"""

import subprocess
from pathlib import Path

import pytest

from testing.commands import Teddy, git
from testing.plans import create
from testing.sessions import start

ATTRIBUTES = (
    b"*.crlf text eol=crlf\n*.id ident\n*.bin binary\nnotext.txt -text\nauto.txt text=auto\n"
)
FILES = {
    "plain.txt": b"plain\nlines\n",
    "dos.crlf": b"one\ntwo\n",
    "v.id": b"version $Id$ here\n",
    "kept.bin": b"raw\r\nbytes\n",
    "notext.txt": b"no\r\nconversion\n",
    "auto.txt": b"auto\ndetected\n",
    " leading space.txt": b"leading\nspace\n",
}


def commit_as_stored(repo: Path, env: dict, autocrlf: str) -> None:
    """Commit the files, then let git write them afresh under `core.autocrlf`."""
    (repo / ".gitattributes").write_bytes(ATTRIBUTES)
    for name, data in FILES.items():
        (repo / name).write_bytes(data)
    (repo / ".teddy").mkdir()
    (repo / ".teddy" / "global.context").write_text("".join(f"/{n}\n" for n in FILES))
    git(repo, env, "add", "-A")
    git(repo, env, "commit", "-qm", "shapes")
    git(repo, env, "config", "core.autocrlf", autocrlf)
    for name in FILES:
        (repo / name).unlink()
    git(repo, env, "checkout", "--", *FILES)


def context_log(repo: Path, env: dict, session: str) -> bytes:
    args = ["git", "show", f"teddy/{session}/main:01/_context.log"]
    return subprocess.run(args, cwd=repo, env=env, capture_output=True, check=True).stdout


@pytest.mark.parametrize("autocrlf", ["false", "true", "input"])
def test_the_model_reads_every_file_as_checkout_writes_it(
    repo: Path, teddy: Teddy, env: dict, autocrlf: str
) -> None:
    commit_as_stored(repo, env, autocrlf)
    on_disk = {name: (repo / name).read_bytes() for name in FILES}
    assert on_disk["dos.crlf"] == b"one\r\ntwo\r\n"  # the shapes really differ from the blobs
    assert b"$Id: " in on_disk["v.id"]
    assert (on_disk["plain.txt"] == b"plain\r\nlines\r\n") == (autocrlf == "true")
    session = start(repo, teddy, create("new.txt", "new\n"))
    log = context_log(repo, env, session)
    for name, data in on_disk.items():
        assert data in log, name
    assert b"one\ntwo\n" not in log
    if autocrlf != "true":
        assert b"plain\r\n" not in log


def test_a_listed_gitattributes_file_still_gives_checkout_forms(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    commit_as_stored(repo, env, "false")
    (repo / ".teddy" / "global.context").write_text("/.gitattributes\n/dos.crlf\n/plain.txt\n")
    git(repo, env, "commit", "-qam", "list the attributes too")
    session = start(repo, teddy, create("new.txt", "new\n"))
    log = context_log(repo, env, session)
    assert b"one\r\ntwo\r\n" in log and b"plain\nlines\n" in log
