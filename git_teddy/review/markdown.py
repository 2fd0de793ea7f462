"""A plan's Markdown as HTML for the review page (pure): CommonMark, as the plan parser reads
it, rendered so that nothing reaches out of the page. Raw HTML is left out (commonmark's
safe mode), a link keeps its text and shows where it pointed without being one, an image
is its alt text. A plan larger than RENDERED_LIMIT is shown as text: the page must open
whatever a teammate's session holds."""

from html import escape
from typing import Any

RENDERED_LIMIT = 200_000  # characters of a plan rendered as Markdown

Node = Any  # commonmark.node.Node carries no type hints


def _renderer() -> Any:
    from commonmark.render.html import HtmlRenderer  # slow to import: only for a page

    class Contained(HtmlRenderer):  # type: ignore[misc]  # commonmark has no types
        """commonmark's HTML renderer with no link or image to anywhere."""

        def link(self, node: Node, entering: bool) -> None:
            if entering:
                self.lit('<span class="link">')
            else:
                self.lit(f' <span class="target">({escape(node.destination or "")})</span></span>')

        def image(self, node: Node, entering: bool) -> None:
            if entering:
                self.lit('<span class="image">[')
            else:
                self.lit("]</span>")

    return Contained({"safe": True})


def markdown_html(text: str) -> str:
    """`text` as HTML: rendered Markdown, or escaped in a <pre> past RENDERED_LIMIT."""
    if len(text) > RENDERED_LIMIT:
        return f'<pre class="plan">{escape(text)}</pre>'
    import commonmark

    document = commonmark.Parser().parse(text)
    return f'<div class="markdown plan">{_renderer().render(document)}</div>'
