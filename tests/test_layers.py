"""The package import graph, computed from the source: layers import only downwards (or
within their own layer) and no packages import each other in a cycle (docs/architecture.md)."""

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).parent.parent / "git_teddy"

# Bottom to top. A unit is a package or a module directly under git_teddy/.
LAYERS: list[set[str]] = [
    {
        "errors",
        "settings",
        "redact",
        "secret_formats",
        "ui",
        "prompts",
        "artifacts",
        "faultpoint",
        "printable",
    },
    {"gitstore", "llm", "web"},
    {"session", "index", "review"},
    {"planning", "execute", "workflow", "learn", "hooks"},
    {"loop"},
    {"cli", "__main__"},
]
LAYER_OF = {unit: level for level, units in enumerate(LAYERS) for unit in units}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path) -> Iterator[str]:
    """Every git_teddy module `path` imports, at any depth of the file (lazy imports too)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1]
            module = ".".join([*base, node.module or ""]) if node.level else node.module or ""
            yield module.rstrip(".")
            yield from (f"{module}.{alias.name}" for alias in node.names)


def unit_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if parts[0] == "git_teddy" and len(parts) > 1 else None


def unit_graph() -> dict[str, set[str]]:
    """unit -> the other units it imports (names that are not units, such as
    `git_teddy.__version__`, are left out)."""
    graph: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        unit = unit_of(module_name(path))
        if unit is None:
            continue
        targets = {unit_of(m) for m in imported_modules(path)}
        graph.setdefault(unit, set()).update(t for t in targets if t in LAYER_OF and t != unit)
    return graph


def test_every_unit_has_a_layer() -> None:
    units = {unit_of(module_name(path)) for path in PACKAGE.rglob("*.py")} - {None}
    assert units <= set(LAYER_OF), f"add to LAYERS: {sorted(units - set(LAYER_OF))}"


@pytest.mark.parametrize("unit", sorted(LAYER_OF))
def test_no_upward_imports(unit: str) -> None:
    upward = {t for t in unit_graph().get(unit, set()) if LAYER_OF.get(t, 99) > LAYER_OF[unit]}
    assert not upward, f"git_teddy.{unit} (layer {LAYER_OF[unit]}) imports upwards: {upward}"


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle in `graph` as a path that ends where it starts, or None."""
    state: dict[str, str] = {}

    def visit(node: str, path: list[str]) -> list[str] | None:
        state[node] = "open"
        for target in sorted(graph.get(node, set())):
            if state.get(target) == "open":
                return [*path[path.index(target) :], target] if target in path else [target]
            if target not in state and (cycle := visit(target, [*path, target])):
                return cycle
        state[node] = "done"
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node, [node])):
            return cycle
    return None


def test_no_import_cycles_between_units() -> None:
    assert find_cycle(unit_graph()) is None, f"import cycle: {find_cycle(unit_graph())}"


def is_child(package: Path, name: str) -> bool:
    return (package / name).is_dir() or (package / f"{name}.py").exists()


def test_subpackages_have_no_import_cycles() -> None:
    """Inside each package, its subpackages and modules do not import each other in a
    cycle either (at the level of the package's direct children)."""
    for package in [p for p in PACKAGE.iterdir() if (p / "__init__.py").exists()]:
        prefix = f"git_teddy.{package.name}."
        graph: dict[str, set[str]] = {}
        for path in package.rglob("*.py"):
            child = module_name(path).removeprefix(prefix).split(".")[0]
            if module_name(path) == prefix.rstrip("."):
                continue  # the package's own __init__ re-exports its children
            for module in imported_modules(path):
                if module.startswith(prefix):
                    target = module.removeprefix(prefix).split(".")[0]
                    if target != child and is_child(package, target):
                        graph.setdefault(child, set()).add(target)
        assert find_cycle(graph) is None, f"cycle in {package.name}: {find_cycle(graph)}"


def test_the_cycle_finder_finds_cycles() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


@pytest.mark.parametrize(
    "path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: p.relative_to(PACKAGE).as_posix()
)
def test_each_module_says_what_it_owns(path: Path) -> None:
    docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
    assert docstring and docstring.strip(), f"{path}: start with a docstring saying what it owns"
