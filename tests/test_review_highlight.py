"""Syntax colours of the review page's diff lines: per language family, escaped, and never
colouring what is not code."""

import pytest

from git_teddy.review.highlight import highlight, language_of


@pytest.mark.parametrize(
    ("path", "family"),
    [
        ("app.py", ".py"),
        ("src/Main.JAVA", ".java"),
        ("web/x y.ts", ".ts"),
        ("Makefile", "Makefile"),
        ("notes.txt", None),
        ("README", None),
    ],
)
def test_language_of(path: str, family: str | None) -> None:
    assert language_of(path) == family


def test_python_tokens() -> None:
    html = highlight("def f(x): return 'a#b' + 12  # why", ".py")
    assert html == (
        '<span class="k">def</span> f(x): <span class="k">return</span> '
        '<span class="s">&#x27;a#b&#x27;</span> + <span class="n">12</span>  '
        '<span class="c"># why</span>'
    )


def test_c_like_comments_and_strings() -> None:
    html = highlight('if (a < b) { s = "x//y"; } // done', ".js")
    assert '<span class="k">if</span> (a &lt; b)' in html
    assert '<span class="s">&quot;x//y&quot;</span>' in html
    assert html.endswith('<span class="c">// done</span>')


def test_unknown_language_is_only_escaped() -> None:
    assert highlight("<b>if</b> 'x'", None) == "&lt;b&gt;if&lt;/b&gt; &#x27;x&#x27;"


def test_an_unclosed_string_or_comment_runs_to_the_end_of_the_line() -> None:
    assert highlight('x = "open', ".py") == 'x = <span class="s">&quot;open</span>'
    assert highlight("a /* open", ".c") == 'a <span class="c">/* open</span>'
