"""Fences by file type: what the model and a Markdown viewer are told each file is."""

import pytest

from git_teddy.artifacts.languages import fence_language
from git_teddy.planning.context import Resource, render_resources


@pytest.mark.parametrize(
    ("path", "language"),
    [
        ("src/index.mjs", "javascript"),
        ("lib/loader.cjs", "javascript"),
        ("ui/App.jsx", "jsx"),
        ("ui/App.tsx", "tsx"),
        ("src/mod.mts", "typescript"),
        ("src/mod.cts", "typescript"),
        ("app.py", "python"),
        ("stubs/app.pyi", "python"),
        ("main.go", "go"),
        ("src/lib.rs", "rust"),
        ("Dockerfile", "dockerfile"),
        ("build/Makefile", "makefile"),
        ("README.MD", "markdown"),
        ("notes.txt", "text"),
        ("LICENSE", "text"),
        ("archive.tar.gz", "text"),
    ],
)
def test_fence_language(path: str, language: str) -> None:
    assert fence_language(path) == language


def test_the_context_fences_each_file_by_its_type_and_pages_as_text() -> None:
    rendered = render_resources(
        [
            Resource(name="src/index.mjs", tokens=3, text="export default 1;\n"),
            Resource(name="https://example.com/guide.html", tokens=2, text="A guide.\n"),
        ]
    )
    assert "```javascript\nexport default 1;\n```" in rendered
    assert "```text\nA guide.\n```" in rendered
