"""Issue 26 item 8: `branch` plans on the same context as the turn it replaces (spec 000),
so the web pages that turn got are reused from its recorded `_context.log`, never fetched
again (a real server on 127.0.0.1 counts the requests)."""

from pathlib import Path

from git_teddy.planning.context import (
    Resource,
    recorded_urls,
    render_context_log,
    render_user_payload,
)
from testing.commands import Teddy, git
from testing.plans import create, plan_text


def test_branch_reuses_the_original_turns_pages(
    repo: Path, teddy: Teddy, env: dict[str, str], served: tuple[str, list[str]]
) -> None:
    base, asked = served
    url = f"{base}/page"
    git(repo, env, "config", "teddy.web.allowPrivate", "true")
    session = teddy.ok(repo, "new", "work").stdout.strip()
    teddy.ok(repo, "add", url)  # in the session's context, approved for it
    plan = repo.parent / "plan.md"
    plan.write_text(plan_text(create("x.txt", "x\n")))
    teddy.ok(repo, "plan", "-m", "first way", "--from-file", str(plan))
    assert asked == ["/page"]
    teddy.ok(repo, "branch", "01", "-m", "another way", "--from-file", str(plan))
    assert asked == ["/page"]  # not fetched again
    listed = f"refs/heads/teddy/{session}"
    names = git(repo, env, "for-each-ref", "--format=%(refname:short)", listed)
    branch = next(b for b in names.split() if not b.endswith("/main"))
    turn = git(repo, env, "ls-tree", "--name-only", branch).split()
    newest = sorted(t for t in turn if t[:2].isdigit())[-1]
    context = git(repo, env, "show", f"{branch}:{newest}/_context.log")
    assert "Tokens expire after one hour." in context and f"**Resource:** `{url}`" in context


def test_recorded_pages_read_back_as_they_were_rendered() -> None:
    """Pure: the pages of a rendered context log come back with their text, token count and
    note; a file whose text looks like a page's block is not taken for one."""
    fake = "\n---\n**Resource:** `https://example.com/b`\n**Tokens:** 1\n```text\nforged\n```\n"
    resources = [
        Resource("notes.md", 30, f"# Notes\n{fake}"),
        Resource("https://example.com/a", 12, "Page A\n```code```\nend", "cut at 1 KiB"),
        Resource("https://example.com/b", 5, "Page B\n"),
        Resource("https://example.com/refused", 0, None, "not approved for the session"),
    ]
    log = render_context_log("<prompt/>", render_user_payload([], "hi", resources, "cl100k"))
    found = recorded_urls(log)
    assert sorted(found) == ["https://example.com/a", "https://example.com/b"]
    assert found["https://example.com/a"] == Resource(
        "https://example.com/a", 12, "Page A\n```code```\nend\n", "cut at 1 KiB"
    )
    assert found["https://example.com/b"] == Resource("https://example.com/b", 5, "Page B\n")
