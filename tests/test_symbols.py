"""Issue 27 item 3: the symbols of a source file with their lines, for the languages people
use (tree-sitter grammars of the `map` extra; Python by `ast`), the line patterns used without
a grammar, and which symbols a message names. Pure: small real source files, no repository."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from git_teddy.artifacts.symbols import (
    file_symbols,
    find,
    mentioned_names,
    pattern_symbols,
    ranked,
)

FIXTURES = Path(__file__).parent / "fixtures" / "symbols"

# Per file: (depth, first line, last line, signature) of symbols it must give.
EXPECTED = {
    "shapes.py": [
        (0, 6, 11, "class Shape"),
        (1, 7, 8, "def area(self)"),
        (0, 14, 19, "class Circle(Shape)"),
        (0, 22, 23, "def total_area(shapes)"),
        (0, 26, 27, "def report(shapes)"),
    ],
    "shapes.js": [
        (0, 2, 10, "class Circle"),
        (1, 7, 9, "area()"),
        (0, 12, 14, "function totalArea(shapes)"),
        (0, 16, 18, "const report = (shapes) =>"),
    ],
    "shapes.ts": [
        (0, 2, 4, "interface Shape"),
        (0, 6, 12, "class Circle implements Shape"),
        (1, 9, 11, "area(): number"),
        (0, 14, 16, "function totalArea(shapes: Shape[]): number"),
        (0, 18, 19, "const report = (shapes: Shape[]): string =>"),
    ],
    "shapes.go": [
        (0, 10, 12, "type Shape interface"),
        (0, 20, 22, "func (c Circle) Area() float64"),
        (0, 25, 31, "func TotalArea(shapes []Shape) float64"),
        (0, 34, 36, "func Report(shapes []Shape) string"),
    ],
    "shapes.rs": [
        (0, 4, 6, "pub trait Shape"),
        (0, 8, 10, "pub struct Circle"),
        (0, 12, 16, "impl Shape for Circle"),
        (1, 13, 15, "fn area(&self) -> f64"),
        (0, 18, 20, "pub fn total_area(shapes: &[Box<dyn Shape>]) -> f64"),
    ],
    "Shapes.java": [
        (0, 6, 34, "public class Shapes"),
        (1, 11, 21, "public static class Circle implements Shape"),
        (2, 18, 20, "public double area()"),
        (1, 23, 29, "public static double totalArea(List<Shape> shapes)"),
    ],
    "shapes.c": [
        (0, 6, 8, "struct circle"),
        (0, 10, 13, "static double circle_area(const struct circle *c)"),
        (0, 15, 21, "double total_area(const struct circle *circles, size_t count)"),
        (0, 23, 26, "void report(const struct circle *circles, size_t count)"),
    ],
    "shapes.cpp": [
        (0, 6, 31, "namespace shapes"),
        (1, 14, 21, "class Circle : public Shape"),
        (2, 17, 17, "double area() const override"),
        (1, 23, 29, "double total_area(const std::vector<std::unique_ptr<Shape>>& shapes)"),
    ],
    "shapes.rb": [
        (0, 2, 20, "module Shapes"),
        (1, 3, 11, "class Circle"),
        (2, 8, 10, "def area"),
        (1, 13, 15, "def self.total_area(shapes)"),
    ],
}


def symbols_of(name: str) -> list[tuple[int, int, int, str]]:
    text = (FIXTURES / name).read_text()
    return [(s.depth, s.line, s.end, s.text) for s in file_symbols(f"src/{name}", text)]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_language_gives_its_symbols_with_their_lines(name: str) -> None:
    found = symbols_of(name)
    for symbol in EXPECTED[name]:
        assert symbol in found
    assert [line for _, line, _, _ in found] == sorted(line for _, line, _, _ in found)


def test_python_leaves_private_members_out_and_other_files_have_none() -> None:
    names = [text for _, _, _, text in symbols_of("shapes.py")]
    assert not any("_cache" in n or "__init__" in n for n in names)
    assert file_symbols("README.md", "# def not_code():\n") == []
    assert file_symbols("broken.py", "def (:\n") == []


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("shapes.js", [(12, "totalArea"), (16, "report")]),
        ("shapes.ts", [(14, "totalArea"), (18, "report")]),
        ("shapes.go", [(25, "TotalArea"), (34, "Report")]),
        ("shapes.rs", [(18, "total_area"), (22, "report")]),
        ("Shapes.java", [(23, "totalArea"), (31, "report")]),
        ("shapes.c", [(15, "total_area"), (23, "report")]),
        ("shapes.cpp", [(14, "Circle")]),
        ("shapes.rb", [(13, "total_area"), (17, "report")]),
    ],
)
def test_without_a_grammar_line_patterns_find_the_definitions(
    name: str, expected: list[tuple[int, str]]
) -> None:
    found = [(s.line, s.name) for s in pattern_symbols((FIXTURES / name).read_text())]
    for symbol in expected:
        assert symbol in found


def test_a_symbol_is_found_by_name_or_as_a_member() -> None:
    symbols = file_symbols("shapes.py", (FIXTURES / "shapes.py").read_text())
    assert [(s.line, s.end) for s in find(symbols, "total_area")] == [(22, 23)]
    assert [s.line for s in find(symbols, "area")] == [7, 18]
    assert [s.line for s in find(symbols, "Circle.area")] == [18]
    assert find(symbols, "Square.area") == [] and find(symbols, "perimeter") == []


def test_named_symbols_and_their_callers_are_kept_first() -> None:
    symbols = file_symbols("shapes.go", (FIXTURES / "shapes.go").read_text())
    kept = ranked(symbols, frozenset({"TotalArea"}), 2)
    assert [s.name for s in kept] == ["TotalArea", "Report"]  # Report calls it; line order
    assert [s.name for s in ranked(symbols, frozenset(), 2)] == ["Shape", "Circle"]


def test_a_message_names_code_not_plain_words() -> None:
    names = mentioned_names(
        "Why does `split_into` drop the tail? totalArea and Stack.push() look fine, "
        "but fix the tests please; see line 120 of parse_args"
    )
    assert {"split_into", "totalArea", "Stack", "push", "parse_args"} <= names
    assert not names & {"Why", "does", "drop", "the", "tests", "please", "fix", "line"}


def test_without_the_grammars_the_map_falls_back_to_ast_and_line_patterns() -> None:
    code = (
        "import json, sys\n"
        "sys.modules['tree_sitter_language_pack'] = None  # makes its import fail\n"
        "from git_teddy.artifacts.symbols import file_symbols\n"
        "print(json.dumps({name: [[s.line, s.name] for s in file_symbols(name, open(path).read())]"
        f" for name, path in {[(p.name, str(p)) for p in (FIXTURES.glob('shapes.*'))]!r}}}))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    found = json.loads(done.stdout)
    assert [7, "area"] in found["shapes.py"]  # ast: members too
    assert [25, "TotalArea"] in found["shapes.go"] and [18, "total_area"] in found["shapes.rs"]
    assert [15, "total_area"] in found["shapes.c"] and [13, "total_area"] in found["shapes.rb"]


def test_start_up_does_not_load_the_grammars() -> None:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "git_teddy", "--help"],
        capture_output=True,
        text=True,
        check=True,
    )
    imported = [line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()]
    assert "git_teddy.cli.main" in imported
    assert not [
        name for name in imported if name.startswith(("tree_sitter", "git_teddy.artifacts.symbols"))
    ]
