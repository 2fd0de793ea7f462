"""The wheel ships every package: each folder of git_teddy with an __init__.py is listed in
pyproject.toml (a missing one works in an editable install and breaks a real one)."""

import tomllib
from pathlib import Path

ROOT = Path(__file__).parent.parent


def test_every_package_is_listed_in_pyproject() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"]) - set(config.get("package-dir", {}))
    found = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for init in (ROOT / "git_teddy").rglob("__init__.py")
    }
    assert found == listed
