"""EDIT in files of every shape (issue 13): only the matched lines change; each file keeps its
line endings (CRLF, LF, a mix, no final newline) byte for byte and its indentation style,
the REPLACE re-indented the way the whitespace-tolerant match mapped the FIND. End to end
through the real `git teddy plan --from-file` + `execute -y`, then the rule itself, pure."""

import sys
from pathlib import Path

import pytest

from git_teddy.execute.edit import apply_edit
from git_teddy.execute.indentation import indent_unit, reindent
from testing.commands import Teddy, git, run
from testing.plans import edit, plan_text
from testing.sessions import report_of, start


def commit_bytes(repo: Path, env: dict, name: str, data: bytes) -> None:
    (repo / name).write_bytes(data)  # bytes: write_text would translate the line endings
    git(repo, env, "add", name)
    git(repo, env, "commit", "-qm", f"add {name}")


def edit_pairs(path: str, *pairs: tuple[str, str]) -> str:
    """One EDIT action with several FIND/REPLACE pairs."""
    first, *rest = (edit(path, find, replace) for find, replace in pairs)
    return first + "".join(block.split("\n\n", 1)[1] for block in rest)


def execute_edit(repo: Path, teddy: Teddy, env: dict, action: str) -> None:
    session = start(repo, teddy, action)
    teddy.ok(repo, "execute", "-y")
    (log,) = report_of(repo, env, session)["action_logs"]
    assert log["status"] == "SUCCESS", log
    git(repo, env, "fsck", "--strict", "--no-progress")


TABBED = (
    b"def total(items):\n\tresult = 0\n\tfor item in items:\n\t\tresult += item\n\treturn result\n"
)


def test_spaces_edit_of_a_tab_indented_file_stays_tabs(repo: Path, teddy: Teddy, env: dict) -> None:
    commit_bytes(repo, env, "calc.py", TABBED)
    find = "    for item in items:\n        result += item"
    replace = "    for item in items:\n        if item > 0:\n            result += item"
    execute_edit(repo, teddy, env, edit("calc.py", find, replace))
    assert (repo / "calc.py").read_bytes() == (
        b"def total(items):\n\tresult = 0\n\tfor item in items:\n"
        b"\t\tif item > 0:\n\t\t\tresult += item\n\treturn result\n"
    )
    check = "import ast, sys; ast.parse(open('calc.py').read()); print('parsed')"
    assert run([sys.executable, "-c", check], repo, env, check=True).stdout == "parsed\n"


def test_crlf_file_keeps_crlf_on_every_line(repo: Path, teddy: Teddy, env: dict) -> None:
    commit_bytes(repo, env, "notes.txt", b"one\r\ntwo\r\nthree\r\nfour\r\nfive\r\n")
    execute_edit(repo, teddy, env, edit("notes.txt", "two\nthree", "2\n3\n3.5"))
    assert (repo / "notes.txt").read_bytes() == b"one\r\n2\r\n3\r\n3.5\r\nfour\r\nfive\r\n"


def test_mixed_endings_keep_each_line_and_region(repo: Path, teddy: Teddy, env: dict) -> None:
    data = b"alpha\r\nbeta\r\ngamma\r\ndelta\nepsilon\nzeta\n"
    commit_bytes(repo, env, "mixed.txt", data)
    pairs = [("beta\ngamma", "beta\nbeta two\ngamma"), ("epsilon", "epsilon\nepsilon two")]
    execute_edit(repo, teddy, env, edit_pairs("mixed.txt", *pairs))
    assert (repo / "mixed.txt").read_bytes() == (
        b"alpha\r\nbeta\r\nbeta two\r\ngamma\r\ndelta\nepsilon\nepsilon two\nzeta\n"
    )


def test_no_final_newline_stays_missing(repo: Path, teddy: Teddy, env: dict) -> None:
    commit_bytes(repo, env, "last.py", b"def f():\n    return 1")
    commit_bytes(repo, env, "last.txt", b"first\r\nlast")
    # a tab-indented FIND onto a 4-space file: the REPLACE lands 4-space
    execute_edit(
        repo, teddy, env, edit("last.py", "def f():\n\treturn 1", "def f():\n\tx = 1\n\treturn x")
    )
    assert (repo / "last.py").read_bytes() == b"def f():\n    x = 1\n    return x"
    plan_file = repo.parent / "plan2.md"
    plan_file.write_text(plan_text(edit("last.txt", "last", "last\nafter")))
    teddy.ok(repo, "plan", "-m", "again", "--from-file", str(plan_file))
    teddy.ok(repo, "execute", "-y")
    assert (repo / "last.txt").read_bytes() == b"first\r\nlast\r\nafter"
    git(repo, env, "fsck", "--strict", "--no-progress")


# The rule, pure: apply_edit on text, reindent on lines.


@pytest.mark.parametrize(
    ("text", "find", "replace", "expected"),
    [
        pytest.param(  # spaces onto tabs, a continuation line keeps its alignment spaces
            "if a:\n\tcall(x,\n\t     y)\n",
            "    call(x,\n         y)",
            "    call(x,\n         y)\n    other()",
            "if a:\n\tcall(x,\n\t     y)\n\tother()\n",
            id="spaces-onto-tabs",
        ),
        pytest.param(  # tabs onto a 4-space file
            "if a:\n    b()\n    if c:\n        d()\n",
            "\tif c:\n\t\td()",
            "\tif c:\n\t\td()\n\t\te()",
            "if a:\n    b()\n    if c:\n        d()\n        e()\n",
            id="tabs-onto-spaces",
        ),
        pytest.param(  # 2 columns onto 4, the REPLACE repeating FIND lines as written
            "if x:\n    foo()\n",
            "if x:\n  foo()",
            "if x:\n  foo()\n  if y:\n    bar()",
            "if x:\n    foo()\n    if y:\n        bar()\n",
            id="two-onto-four",
        ),
        pytest.param(  # a method quoted without its class's indentation
            "class A:\n    def f(self):\n        return 1\n",
            "def f(self):\n    return 1",
            "def f(self):\n    x = 2\n    return x",
            "class A:\n    def f(self):\n        x = 2\n        return x\n",
            id="dedented-find",
        ),
        pytest.param(  # a slip in the FIND alone: the REPLACE is already in the file's style
            "def main():\n    print('hi')   \n",
            "def main():\n  print('hi')",
            "def main():\n    print('bye')",
            "def main():\n    print('bye')\n",
            id="find-slip-only",
        ),
        pytest.param(  # lines already in the file's tabs stay as written
            "if a:\n\tb()\n",
            "    b()",
            "    b()\n\tc()",
            "if a:\n\tb()\n\tc()\n",
            id="replace-partly-in-file-style",
        ),
        pytest.param(  # only trailing whitespace differed: the REPLACE is taken verbatim
            "if a:  \n    b()\n",
            "if a:\n    b()",
            "if a:\n  c()",
            "if a:\n  c()\n",
            id="same-indentation",
        ),
        pytest.param(  # an exact match inside a tab line: exact, no re-indentation
            "if a:\n\tx = 1\n",
            "x = 1",
            "x = 2\n    y = 3",
            "if a:\n\tx = 2\n    y = 3\n",
            id="exact-stays-exact",
        ),
    ],
)
def test_reindentation_rule(text: str, find: str, replace: str, expected: str) -> None:
    assert apply_edit(text, find, replace) == expected


def test_inconsistent_mapping_leaves_the_replace_verbatim() -> None:
    # one FIND line maps a level deeper, the other two: no single shift, nothing is guessed
    found = ["\tif a:", "\t\t\tb()"]
    assert reindent(["    if a:", "    b()"], found, ["    if a:", "    c()"], "\t") == [
        "    if a:",
        "    c()",
    ]


def test_indent_unit() -> None:
    assert indent_unit(["a", "\tb", "\t\tc"]) == "\t"
    assert indent_unit(["a", "    b", "        c", "    d"]) == "    "
    assert indent_unit(["a", "  b", "    c", "      d", "  e"]) == "  "
    assert indent_unit(["        only"]) == "    "  # no steps: the usual width dividing it
    assert indent_unit(["    call(x,", "         y)"]) == "    "  # 5 is alignment
    assert indent_unit(["flat", "", "text"]) is None


@pytest.mark.parametrize(
    ("text", "find", "replace", "expected"),
    [
        pytest.param("a\r\nb\r\nc\r\n", "b\nc", "B\nC\nD", "a\r\nB\r\nC\r\nD\r\n", id="crlf"),
        pytest.param("a\r\nb\r\nc", "c", "c\nd", "a\r\nb\r\nc\r\nd", id="crlf-no-final-newline"),
        pytest.param("a\nb\nc", "b\nc", "b", "a\nb", id="lf-no-final-newline"),
        pytest.param("a\r\nb\nc\r\n", "b", "b1\nb2", "a\r\nb1\nb2\nc\r\n", id="mixed-region"),
        pytest.param(  # lines the REPLACE keeps keep their own ending
            "a\nb\r\nc\nd\n", "a\nb\nc", "a\nb\nx\nc", "a\nb\r\nx\nc\nd\n", id="kept-lines"
        ),
        pytest.param("a\r\nb\r\nc\r\n", "b\r\n", "", "a\r\nc\r\n", id="crlf-find-deletes"),
        pytest.param(  # tolerant match in a CRLF file with trailing spaces
            "x  \r\n  y\r\nz\r\n",
            "x\n  y",
            "x\n  y2\n  y3",
            "x\r\n  y2\r\n  y3\r\nz\r\n",
            id="tolerant",
        ),
        pytest.param("a\rb\n", "a\rb", "c", "c\n", id="lone-cr-is-content"),
    ],
)
def test_line_endings(text: str, find: str, replace: str, expected: str) -> None:
    assert apply_edit(text, find, replace) == expected
