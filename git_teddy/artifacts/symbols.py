"""The symbols of a source file with their lines (pure): what the repository map shows under a
file and what a READ of `path#name` resolves.

Python is read with the standard library's `ast`. JavaScript, TypeScript, Go, Rust, Java, C,
C++ and Ruby are read with tree-sitter grammars when the optional `map` extra
(tree-sitter-language-pack 0.x, whose wheel carries the compiled grammars) is installed; it
is imported on the first file that needs it, never at start-up. Without it, or for a file
a grammar cannot read, a line-by-line pattern finds the usual definitions
(`function`, `class`, `func`, `fn`, `def`...). The 1.x releases of the pack download each
grammar at first use; git-teddy runs offline, so they are not used.
"""

import ast
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import Any

MAX_LABEL = 100  # characters of a signature shown
MAX_DEPTH = 2  # members of members (a class in a namespace) at most

# File suffix -> tree-sitter grammar name.
GRAMMARS = {
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".c": "c",
    ".h": "c",
    ".cpp": "cpp",
    ".cc": "cpp",
    ".cxx": "cpp",
    ".hpp": "cpp",
    ".hh": "cpp",
    ".rb": "ruby",
}
PYTHON = (".py", ".pyi")

_JS_DEFS = {
    "function_declaration",
    "generator_function_declaration",
    "class_declaration",
    "abstract_class_declaration",
    "method_definition",
    "interface_declaration",
    "type_alias_declaration",
    "enum_declaration",
    "lexical_declaration",
    "method_signature",
}
# Per grammar: the node types that are symbols. Those holding others (classes, modules,
# namespaces, impl blocks) are searched for members.
DEFINITIONS: dict[str, set[str]] = {
    "javascript": _JS_DEFS,
    "typescript": _JS_DEFS,
    "tsx": _JS_DEFS,
    "go": {"function_declaration", "method_declaration", "type_declaration"},
    "rust": {
        "function_item",
        "function_signature_item",
        "struct_item",
        "enum_item",
        "trait_item",
        "impl_item",
        "mod_item",
        "macro_definition",
    },
    "java": {
        "class_declaration",
        "interface_declaration",
        "enum_declaration",
        "record_declaration",
        "method_declaration",
        "constructor_declaration",
    },
    "c": {"function_definition", "struct_specifier", "enum_specifier", "union_specifier"},
    "cpp": {
        "function_definition",
        "class_specifier",
        "struct_specifier",
        "enum_specifier",
        "namespace_definition",
    },
    "ruby": {"class", "module", "method", "singleton_method"},
}
# Node types searched for members: the bodies of the symbols above and what wraps a
# declaration (`export`, a template).
CONTAINERS = {
    "program",
    "source_file",
    "translation_unit",
    "module",
    "export_statement",
    "class_body",
    "interface_body",
    "enum_body",
    "declaration_list",
    "field_declaration_list",
    "template_declaration",
    "body_statement",
    "object_type",
    "linkage_specification",
}
_DECLARATORS = {"function_declarator", "pointer_declarator", "reference_declarator"}
_NAMES = {
    "identifier",
    "field_identifier",
    "property_identifier",
    "type_identifier",
    "constant",
    "qualified_identifier",
    "destructor_name",
    "operator_name",
}
_FUNCTION_VALUES = {"arrow_function", "function_expression", "function", "generator_function"}

# The fallback: a definition at the start of a line, its name in the group `name`.
_FALLBACK = re.compile(
    r"^\s*(?:(?:export|default|public|private|protected|static|final|abstract|async|pub"
    r"(?:\([^)]*\))?|unsafe|extern|inline|virtual|const|let|var)\s+)*"
    r"(?:function\*?|class|interface|enum|struct|trait|impl|mod|module|def|func|fn|type"
    r"|namespace)\s+(?:self\.|\([^)]*\)\s*)?(?P<name>[A-Za-z_$][\w$]*[?!]?)"
    r"|^\s*(?:export\s+)?(?:const|let|var)\s+(?P<arrow>[A-Za-z_$][\w$]*)\s*=\s*(?:async\s*)?"
    r"(?:\([^)]*\)|[A-Za-z_$][\w$]*)(?:\s*:[^=]+)?\s*=>"
    # a C function at the start of a line; a Java method after its modifiers
    r"|^[A-Za-z_][\w:<>,*& ]*[\s*&](?P<cfunc>[A-Za-z_]\w*)\s*\("
    r"|^\s+(?:(?:public|private|protected|static|final|abstract|synchronized)\s+)+"
    r"[\w<>\[\],.? ]+\s(?P<method>\w+)\s*\("
)
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class Symbol:
    name: str
    line: int  # the first line, from 1
    end: int  # the last line
    text: str  # the signature as written, on one line
    depth: int = 0  # 0 for a top-level symbol, 1 for a member...
    refs: frozenset[str] = field(default=frozenset(), compare=False)  # names its body uses


def has_symbols(path: str) -> bool:
    """Whether `file_symbols` reads files of this kind."""
    return path.endswith(PYTHON) or _suffix(path) in GRAMMARS


def file_symbols(path: str, text: str) -> list[Symbol]:
    """The definitions of a source file in line order: classes and their members, functions,
    types; none for a file of another kind. Python's private members (`_name`) are left
    out."""
    if path.endswith(PYTHON):
        return _python(text)
    grammar = GRAMMARS.get(_suffix(path))
    if grammar is None:
        return []
    parser = _parser(grammar)
    if parser is not None:
        found = _tree_symbols(parser, grammar, text)
        if found is not None:
            return found
    return pattern_symbols(text)


def find(symbols: Iterable[Symbol], name: str) -> list[Symbol]:
    """The symbols `name` names: `split_into`, or a member as `Class.method`."""
    *outer, last = name.split(".")
    found = []
    parents: list[Symbol] = []
    for symbol in symbols:
        parents = [*parents[: symbol.depth], symbol]
        if symbol.name != last:
            continue
        chain = [p.name for p in parents[:-1]]
        if not outer or chain[-len(outer) :] == outer:
            found.append(symbol)
    return found


def ranked(symbols: list[Symbol], names: frozenset[str], limit: int) -> list[Symbol]:
    """At most `limit` symbols in line order: those `names` names first, then those that use
    one (their callers), then the others from the top of the file."""
    order = sorted(
        range(len(symbols)),
        key=lambda i: (
            symbols[i].name not in names,
            not (symbols[i].refs & names),
            i,
        ),
    )
    return [symbols[i] for i in sorted(order[:limit])]


def mentioned_names(text: str) -> frozenset[str]:
    """The identifiers a message names as code: in backticks, called (`name(`), or shaped
    as code (`snake_case`, `camelCase`, `Class.method`); plain words are not."""
    found: set[str] = set()
    for match in re.finditer(r"`([^`\n]{1,200})`|([\w.]+)\(|([\w.]*[A-Za-z][\w.]*)", text):
        quoted, called, word = match.groups()
        if quoted or called:
            found.update(_WORD.findall(quoted or called))
        elif word and ("_" in word.strip("_") or "." in word.strip(".") or _camel(word)):
            found.update(part for part in _WORD.findall(word) if not part.isdigit())
    return frozenset(name for name in found if len(name) >= 3)


def _camel(word: str) -> bool:
    return re.search(r"[a-z][A-Z]", word) is not None


def _suffix(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    dot = name.rfind(".")
    return name[dot:].lower() if dot > 0 else ""


def _label(text: str) -> str:
    line = " ".join(text.split())
    line = line.rstrip("{:( ").rstrip()
    return line if len(line) <= MAX_LABEL else line[: MAX_LABEL - 3] + "..."


# ---- Python --------------------------------------------------------------------------------------


def _python(text: str) -> list[Symbol]:
    try:
        module = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return []
    return list(_python_body(module.body, 0, text.splitlines()))


def _python_body(body: list[ast.stmt], depth: int, lines: list[str]) -> Iterator[Symbol]:
    for node in body:
        if not isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        if depth and node.name.startswith("_"):
            continue
        end = node.end_lineno or node.lineno
        line = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        refs = _words(lines[node.lineno : end])  # the body's, not the name's own line
        if isinstance(node, ast.ClassDef):
            bases = ", ".join(ast.unparse(base) for base in node.bases)
            head = f"class {node.name}({bases})" if bases else f"class {node.name}"
            yield Symbol(node.name, line, end, head, depth, refs)
            if depth + 1 <= MAX_DEPTH:
                yield from _python_body(node.body, depth + 1, lines)
        else:
            params = ", ".join(arg.arg for arg in node.args.args)
            head = f"{'async def' if isinstance(node, ast.AsyncFunctionDef) else 'def'}"
            yield Symbol(node.name, line, end, f"{head} {node.name}({params})", depth, refs)


def _words(lines: list[str]) -> frozenset[str]:
    """The names a body uses (a regular expression is ten times faster than a tree walk;
    a name in a string or a comment counts too)."""
    return frozenset(_WORD.findall("\n".join(lines)))


# ---- tree-sitter ---------------------------------------------------------------------------------


@cache
def _parser(grammar: str) -> Any:
    """The grammar's parser, None without the `map` extra (or with a pack that would download
    its grammars)."""
    from importlib import metadata

    try:
        if int(metadata.version("tree-sitter-language-pack").split(".")[0]) >= 1:
            return None
        from tree_sitter_language_pack import get_parser

        return get_parser(grammar)  # type: ignore[arg-type]
    except Exception:  # not installed, or a grammar it lacks: the fallback reads the file
        return None


def _tree_symbols(parser: Any, grammar: str, text: str) -> list[Symbol] | None:
    try:
        tree = parser.parse(text.encode("utf-8", "surrogateescape"))
    except Exception:  # a parser that fails on this input: the fallback reads it
        return None
    symbols: list[Symbol] = []
    _collect(tree.root_node, grammar, 0, symbols)
    return symbols


def _collect(node: Any, grammar: str, depth: int, out: list[Symbol]) -> None:
    for child in node.named_children:
        if child.type in DEFINITIONS[grammar]:
            symbol = _definition(child, grammar, depth)
            if symbol is not None:
                out.append(symbol)
                if depth < MAX_DEPTH:
                    _members(child, grammar, depth + 1, out)
        elif child.type in CONTAINERS:
            _collect(child, grammar, depth, out)


def _members(node: Any, grammar: str, depth: int, out: list[Symbol]) -> None:
    body = node.child_by_field_name("body")
    if body is None and node.type in ("class", "module"):  # ruby: the body is the node
        body = node
    if body is not None and node.type not in ("function_definition", "method", "function_item"):
        _collect(body, grammar, depth, out)


def _definition(node: Any, grammar: str, depth: int) -> Symbol | None:
    name, value = _name(node)
    if name is None:
        return None
    body = node.child_by_field_name("body")
    if body is None and value is not None:  # the function a const holds
        body = value.child_by_field_name("body")
    start, stop = node.start_byte, body.start_byte if body is not None else node.end_byte
    head = node.text[: stop - start].decode("utf-8", "replace")
    head = head.split("\n", 1)[0] if body is None else head
    return Symbol(
        name,
        node.start_point[0] + 1,
        node.end_point[0] + 1,
        _label(head),
        depth,
        _words([(body if body is not None else node).text.decode("utf-8", "replace")]),
    )


def _name(node: Any) -> tuple[str | None, Any]:
    """The symbol's name, and the function a `const f = () => ...` holds."""
    if node.type == "lexical_declaration":  # a const holding a function
        for declarator in node.named_children:
            value = declarator.child_by_field_name("value")
            if value is not None and value.type in _FUNCTION_VALUES:
                return _text(declarator.child_by_field_name("name")), value
        return None, None
    if node.type == "type_declaration":  # go: `type Name struct`
        spec = next((c for c in node.named_children if c.type == "type_spec"), None)
        return _text(spec.child_by_field_name("name") if spec else None), None
    if node.type == "impl_item":  # rust: `impl Trait for Type`
        return _text(node.child_by_field_name("type")), None
    target = node.child_by_field_name("name")
    declarator = node.child_by_field_name("declarator")
    while target is None and declarator is not None:  # c, c++: int *name(args)
        if declarator.type in _NAMES:
            target = declarator
        else:
            declarator = declarator.child_by_field_name("declarator")
    return _text(target), None


def _text(node: Any) -> str | None:
    if node is None:
        return None
    name: str = node.text.decode("utf-8", "replace")
    return name.rsplit("::", 1)[-1] or None


# ---- without a grammar ---------------------------------------------------------------------------


def pattern_symbols(text: str) -> list[Symbol]:
    """Definitions found line by line; each ends where the next begins."""
    lines = text.splitlines()
    starts: list[tuple[int, str, int, str]] = []  # line, name, depth, label
    for number, line in enumerate(lines, start=1):
        match = _FALLBACK.match(line)
        if match and not line.rstrip().endswith(";"):
            depth = 0 if line[:1] not in (" ", "\t") else 1
            name = match["name"] or match["arrow"] or match["cfunc"] or match["method"]
            starts.append((number, name, depth, _label(line)))
    symbols = []
    for index, (number, name, depth, label) in enumerate(starts):
        after = (start for start, _, d, _ in starts[index + 1 :] if d <= depth)
        end = next(after, len(lines) + 1) - 1
        refs = _words(lines[number:end])
        symbols.append(Symbol(name, number, max(end, number), label, depth, refs))
    return symbols
