"""The review page read like a pull request (pure: the renderers, no repository)."""

import re

from git_teddy.review.html import SessionPage, TurnPage, diff_html, render_page
from git_teddy.review.markdown import RENDERED_LIMIT, markdown_html

PATCH = """diff --git a/x.py b/x.py
index 1111111..2222222 100644
--- a/x.py
+++ b/x.py
@@ -10,3 +10,3 @@ def f():
 a
-b
+c
 d
diff --git a/y.txt b/y.txt
new file mode 100644
--- /dev/null
+++ b/y.txt
@@ -0,0 +1 @@
+y
"""


def numbers(html: str, kind: str) -> list[list[str]]:
    rows = re.findall(rf'<div class="{kind}">((?:<span class="ln">\d*</span>)+)', html)
    return [re.findall(r'<span class="ln">(\d*)</span>', row) for row in rows]


def test_a_diff_has_a_collapsible_block_per_file_and_line_numbers() -> None:
    html = diff_html(PATCH)
    summaries = re.findall(r'<details open class="file-diff"><summary class="file">([^<]*)', html)
    assert summaries == ["diff --git a/x.py b/x.py", "diff --git a/y.txt b/y.txt"]
    assert numbers(html, "ctx") == [["10", "10"], ["12", "12"]]
    assert numbers(html, "del") == [["11", ""]]
    assert numbers(html, "add") == [["", "11"], ["", "1"]]


def test_a_plan_is_markdown_with_no_link_or_raw_html_leaving_the_page() -> None:
    plan = (
        "# Fix it\n\n### `EDIT`\n- **File Path:** [a.py](/a.py)\n\n"
        "<script>alert(1)</script>\n\n[out](https://example.com) ![pic](http://example.com/p.png)\n"
    )
    html = markdown_html(plan)
    assert "<h1>Fix it</h1>" in html and "<strong>File Path:</strong>" in html
    assert "<script" not in html and "<a " not in html and "<img" not in html
    assert "(https://example.com)" in html  # where the link pointed, as text
    huge = "x" * (RENDERED_LIMIT + 1)
    assert markdown_html(huge).startswith('<pre class="plan">')


def turn(name: str) -> TurnPage:
    plan = "# Fix it\n\nSome *text*.\n"
    return TurnPage(name, "main", None, "dev", "gpt-4.1", "success", "do it", plan, "", None)


def test_the_page_has_the_sessions_files_changed_and_plans_collapsed() -> None:
    page = render_page(SessionPage("s", None, [turn("01")], ["main"], None, PATCH))
    files = page.index('<h2 id="files-changed">Files changed</h2>')
    assert files < page.index("<h2>Turns</h2>")
    assert page.index('<div class="diff">', files) < page.index("<h2>Conversation branches</h2>")
    assert '<details class="plan"><summary>Plan: Fix it</summary>' in page  # closed
    assert "<em>text</em>" in page
    empty = render_page(SessionPage("s", None, [turn("01")], ["main"]))
    assert "no changes to the project yet" in empty


def test_the_session_list_has_a_cost_column() -> None:
    from git_teddy.index.rows import SessionRow
    from git_teddy.review.listing import render_list

    values = dict.fromkeys(SessionRow._fields, "")
    values.update(id="2026-01-01-x", status="active", tokens=1200, cost=0.0125, turns=2)
    page = render_list([SessionRow(**values)], {}, 1)  # type: ignore[arg-type]
    assert "<th>tokens</th><th>cost</th></tr>" in page
    assert "<td>1,200</td><td>$0.0125</td></tr>" in page


def test_the_session_list_has_title_and_author_columns() -> None:
    from git_teddy.index.rows import SessionRow
    from git_teddy.review.listing import render_list

    values = dict.fromkeys(SessionRow._fields, "")
    values.update(id="x", status="paused", tokens=0, cost=0.0, turns=1)
    titled = SessionRow(**values)._replace(title="Add <login>", author="Ann")  # type: ignore[arg-type]
    page = render_list([titled], {}, 1)
    assert "<th>session</th><th>title</th><th>author</th><th>status</th>" in page
    assert '">x</a></td><td>Add &lt;login&gt;</td><td>Ann</td><td class="status-paused">' in page


def test_a_turn_names_who_planned_it() -> None:
    authored = TurnPage(
        "01", "main", None, "dev", "gpt-4.1", "success", "do it", "# P\n", "", None, author="Ann"
    )
    page = render_page(SessionPage("s", None, [authored], ["main"]))
    assert '<p class="figures">by Ann · agent dev · branch main · gpt-4.1</p>' in page
