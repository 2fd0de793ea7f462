"""Issue 17, `git teddy export`: the golden story session (testing/session_story.py) as one
static, self-contained HTML page: every turn with its message, plan, approvals and
rejections with reasons, report, the context the model saw (collapsed), tokens and cost, and
its change as diff hunks; the session log with every callout kind styled; the conversation
branches as a tree; no request to any other host; redacted secrets stay redacted."""

import json
import re
from html import unescape
from html.parser import HTMLParser
from pathlib import Path

import pytest

from testing.commands import Teddy, git
from testing.fake_secrets import fake
from testing.plans import create, plan_text
from testing.session_story import CHAT_REPLY, MESSAGES, MODEL, REJECTION_REASON, Story
from testing.sessions import queue

VOID = frozenset({"meta", "br", "hr", "img", "input", "link"})


def unpack(pieces: list[str], turns: dict[str, list[int]], name: str) -> str:
    """What the page's script puts together for turn `name`."""
    return "".join(pieces[i] for i in turns[name])


class Elements(HTMLParser):
    """Every start tag with its attributes, and whether the document is well nested."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.open: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {k: v or "" for k, v in attrs}))
        if tag not in VOID:
            self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        assert self.open and self.open[-1] == tag, f"</{tag}> closes {self.open[-1:]}"
        self.open.pop()

    def with_class(self, name: str) -> list[dict[str, str]]:
        return [a for _, a in self.tags if name in a.get("class", "").split()]


def parse(page: str) -> Elements:
    elements = Elements()
    elements.feed(page)
    elements.close()
    assert not elements.open, f"unclosed: {elements.open}"
    return elements


@pytest.fixture(scope="module")
def page(story: Story) -> str:
    result = story.teddy.ok(story.repo, "export", story.session, "--html")
    return result.stdout


def section(page: str, turn: str) -> str:
    match = re.search(rf'<section class="turn" id="turn-{turn}">(.*?)</section>', page, re.S)
    assert match, f"no section for turn {turn}"
    return match.group(1)


def test_the_page_is_self_contained(page: str) -> None:
    elements = parse(page)
    for tag, attrs in elements.tags:
        for name in ("src", "href", "action", "srcset", "data"):
            value = attrs.get(name, "")
            assert not re.match(r"\s*(https?:)?//", value), f"<{tag} {name}={value!r}>"
        assert tag not in ("link", "iframe", "img", "object", "embed"), tag
    assert "@import" not in page and "url(" not in page  # nothing loaded by the CSS either
    assert "<style>" in page and "<script>" in page  # inline


def test_every_turn_with_its_message_plan_report_and_context(page: str, story: Story) -> None:
    for turn, message in MESSAGES.items():
        body = section(page, turn)
        assert unescape(message) in unescape(body), turn
        assert "<h4>Report" in body and "not executed yet" not in body, turn
        plan = story.file(f"{turn}/plan.md")
        assert plan.splitlines()[0].lstrip("# ") in unescape(body), turn  # the plan's title
        collapsed = f'<details class="context" data-turn="{turn}"><summary>'
        assert collapsed in body, turn  # collapsed, filled when opened
        pieces, turns = contexts_of(page)
        assert unpack(pieces, turns, turn) == story.file(f"{turn}/_context.log"), turn  # exactly


def contexts_of(page: str) -> tuple[list[str], dict[str, list[int]]]:
    """The contexts block the page's script reads."""
    match = re.search(r'<script type="application/json" id="teddy-contexts">(.*?)</script>', page)
    assert match
    data = json.loads(match.group(1))
    return data["pieces"], data["turns"]


def test_contexts_are_stored_once_per_distinct_piece(page: str, story: Story) -> None:
    pieces, turns = contexts_of(page)
    assert len(pieces) == len(set(pieces))
    system_prompts = [p for p in pieces if p.startswith("\n## 1. System Prompt")]
    used = {i for indexes in turns.values() for i in indexes}
    assert used == set(range(len(pieces)))  # nothing stored that no turn uses
    total = sum(len(story.file(f"{t}/_context.log")) for t in turns)
    assert sum(map(len, pieces)) < total  # the turns share pieces (the system prompt at least)
    assert 0 < len(system_prompts) < len(turns)
    block = page[page.index('id="teddy-contexts">') :]
    assert "</" not in block.split("</script>", 1)[0]  # no text can close the block early


def test_tokens_cost_model_and_author(page: str) -> None:
    body = section(page, "02")
    assert "tokens in 2,000 / out 200" in body or "tokens in 3,000 / out 300" in body
    assert "cost $" in body and MODEL in body
    assert "by Test Author · agent " in body  # who planned it (the plan commit's author)


def test_approvals_and_rejections_with_reasons(page: str) -> None:
    body = unescape(section(page, "02"))
    assert f"rejected: {REJECTION_REASON}" in body
    assert 'class="approval-rejected"' in section(page, "02")
    assert "approved" in body
    assert f"replied: {CHAT_REPLY}" in text_of(page)  # the user's answer to the model


def test_every_callout_kind_is_styled(page: str) -> None:
    elements = parse(page)
    for kind in ("decision", "error", "user", "subagent"):
        assert elements.with_class(f"callout-{kind}"), kind
        assert f".callout-{kind}{{" in page, kind  # and its style is there


def text_of(html: str) -> str:
    """What a reader sees of some HTML: tags dropped, entities read."""
    return unescape(re.sub(r"<[^>]+>", "", html))


def test_each_executed_turn_shows_its_change_as_hunks(page: str, story: Story) -> None:
    parse_once = parse(page)
    assert parse_once.with_class("hunk") and parse_once.with_class("add")
    body = text_of(section(page, "02"))
    assert "diff --git a/check.py b/check.py" in body
    assert "-sys.exit('check failed: VALUE is 1')" in body
    assert "+print('check passed')" in body
    assert 'class="del"' in section(page, "02") and 'class="add"' in section(page, "02")
    assert "+tag, then publish" in text_of(section(page, "06"))
    assert "no changes to the project" in section(page, "03")  # a chat changes nothing


def test_hunks_are_syntax_highlighted(page: str) -> None:
    """check.py's lines are Python: its strings are coloured, and the colours are styled."""
    hunks = section(page, "02")
    assert '<span class="s">&#x27;check passed&#x27;</span>' in hunks
    numbers = r'<span class="ln"></span><span class="ln">\d+</span>'  # old, new line
    assert re.search(rf'<div class="add">{numbers}\+print\(<span class="s">', hunks)
    for token in ("k", "s", "c", "n"):
        assert f".diff .{token}{{" in page, token
    # the file header and hunk header are never coloured as code
    assert '<summary class="file">diff --git a/check.py b/check.py</summary>' in hunks


def test_the_session_log_and_frontmatter(page: str, story: Story) -> None:
    assert 'class="meta frontmatter"' in page
    assert "pathfinder" in page.lower() and "architect" in page.lower()
    assert f"Session {story.session}" in page


def test_out_to_a_folder_and_a_file(story: Story, tmp_path: Path) -> None:
    out = tmp_path / "review"
    story.teddy.ok(story.repo, "export", story.session, "-o", str(out))
    written = (out / "index.html").read_text()
    into_file = tmp_path / "page.html"
    story.teddy.ok(story.repo, "export", story.session, "--html", str(into_file))
    assert written == into_file.read_text()
    assert [p.name for p in out.iterdir()] == ["index.html"]  # no temporary left


@pytest.mark.parametrize(
    ("args", "message"),
    [([], "say where the page goes"), (["-o", "x", "--html"], "say where the page goes")],
)
def test_refusals(story: Story, args: list[str], message: str) -> None:
    refused = story.teddy.exits(1, story.repo, "export", story.session, *args)
    assert "error: " in refused.stderr and message in refused.stderr
    assert "hint: " in refused.stderr and "Traceback" not in refused.stderr


def test_a_folder_in_the_way_is_refused_before_anything(story: Story, tmp_path: Path) -> None:
    (tmp_path / "page.html").mkdir()
    refused = story.teddy.exits(
        1, story.repo, "export", story.session, "--html", str(tmp_path / "page.html")
    )
    assert "is a folder" in refused.stderr and "hint: " in refused.stderr


def test_branches_are_a_tree(
    repo: Path, teddy: Teddy, env: dict, replies: Path, tmp_path: Path
) -> None:
    queue(
        replies,
        plan_text(create("one.txt", "1\n")),
        plan_text(create("two.txt", "2\n")),
        plan_text(create("alt.txt", "alternative\n")),
    )
    session = teddy.ok(repo, "new", "tree").stdout.strip()
    for message in ("first", "second"):
        teddy.ok(repo, "plan", "-m", message)
        teddy.ok(repo, "execute", "-y")
    teddy.ok(repo, "branch", "02", "-m", "another way")
    page = teddy.ok(repo, "export", session, "--html").stdout
    tree = page.split('<div class="branches">', 1)[1].split("</div>", 1)[0]
    # 02 and 02-branch-01 both follow 01: siblings in the list under it
    under_one = tree.split('href="#turn-01"', 1)[1]
    assert under_one.index('href="#turn-02"') < under_one.index('href="#turn-02-branch-01"')
    assert "02-branch-01 · planned" in tree
    assert "not executed yet" in section(page, "02-branch-01")
    assert "branches: 02-branch-01, main" in tree
    git(repo, env, "fsck")


def test_redacted_secrets_stay_redacted(repo: Path, teddy: Teddy, env: dict, replies: Path) -> None:
    secret = "ghp_" + fake(36, seed=17)
    queue(replies, plan_text(create("notes.txt", "nothing secret\n")))
    session = teddy.ok(repo, "new", "secret").stdout.strip()
    teddy.ok(repo, "plan", "-m", f"use the key {secret}")
    teddy.ok(repo, "execute", "-y")
    page = teddy.ok(repo, "export", session, "--html").stdout
    assert secret not in page and "[REDACTED:" in page
