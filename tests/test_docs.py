"""The generated docs are current and complete, and a real install puts the man page where
`git help teddy` finds it."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from git_teddy.cli.commands import COMMANDS
from testing.commands import run

ROOT = Path(__file__).resolve().parent.parent
GEN_DOCS = ROOT / "scripts" / "gen_docs.py"
MAN_PAGE = ROOT / "docs" / "git-teddy.1"
# Left out of the copy a test installs from: big, private or rebuilt by the build.
NOT_SOURCE = shutil.ignore_patterns(
    ".git", ".venv", "build", "*.egg-info", "__pycache__", ".*_cache", ".cache", ".hypothesis"
)


def gen_docs(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(GEN_DOCS), *args], capture_output=True, text=True, timeout=120
    )


def reference_section() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    begin = readme.index("<!-- BEGIN COMMAND REFERENCE")
    return readme[begin : readme.index("<!-- END COMMAND REFERENCE -->")]


def test_docs_are_current() -> None:
    result = gen_docs("--check")
    assert result.returncode == 0, f"run `make docs`:\n{result.stderr}"


def test_every_command_is_documented() -> None:
    section = reference_section()
    cli_md = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    man = MAN_PAGE.read_text(encoding="utf-8")
    for name in COMMANDS:
        assert f"### `git teddy {name}`" in section
        assert f"Usage: git teddy {name} " in section
        assert f"## `git teddy {name}`" in cli_md
        assert f'.SS "git teddy {name}"' in man


def test_man_page_sections() -> None:
    man = MAN_PAGE.read_text(encoding="utf-8")
    for section in ("NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "CONFIGURATION"):
        assert f"\n.SH {section}\n" in man
    assert '.SH "EXIT STATUS"' in man and '.SH "SEE ALSO"' in man
    assert "TEDDY_REF_PREFIX" in man  # the env override of teddy.refPrefix, as settings.py names it
    for code in ("0", "1", "2", "3", "130"):
        assert f"\n.B {code}\n" in man


def test_check_detects_stale_docs(tmp_path: Path) -> None:
    shutil.copy(ROOT / "README.md", tmp_path / "README.md")
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    assert "out of date" not in gen_docs("--check", "--root", str(tmp_path)).stderr
    man = tmp_path / "docs" / "git-teddy.1"
    man.write_text(man.read_text(encoding="utf-8").replace("list", "lost"), encoding="utf-8")
    result = gen_docs("--check", "--root", str(tmp_path))
    assert result.returncode == 1
    assert "docs/git-teddy.1 is out of date" in result.stderr
    # Regenerating repairs only what is stale and leaves README's other text alone.
    assert gen_docs("--root", str(tmp_path)).stdout.strip() == "wrote docs/git-teddy.1"
    assert (tmp_path / "README.md").read_bytes() == (ROOT / "README.md").read_bytes()
    assert "out of date" not in gen_docs("--check", "--root", str(tmp_path)).stderr


def test_check_detects_a_stale_settings_table(tmp_path: Path) -> None:
    """The settings table (README.md) and section (man page) come from the registry."""
    shutil.copy(ROOT / "README.md", tmp_path / "README.md")
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    readme, man = tmp_path / "README.md", tmp_path / "docs" / "git-teddy.1"
    readme.write_text(readme.read_text(encoding="utf-8").replace("| `teddy.apply` |", "| x |"))
    man.write_text(man.read_text(encoding="utf-8").replace("Default: 300.", "Default: 30."))
    result = gen_docs("--check", "--root", str(tmp_path))
    assert result.returncode == 1
    assert "README.md is out of date" in result.stderr
    assert "docs/git-teddy.1 is out of date" in result.stderr
    gen_docs("--root", str(tmp_path))
    assert readme.read_bytes() == (ROOT / "README.md").read_bytes()
    assert man.read_bytes() == MAN_PAGE.read_bytes()


@pytest.mark.skipif(shutil.which("groff") is None, reason="groff is not installed")
def test_man_page_renders_without_warnings() -> None:
    result = subprocess.run(
        ["groff", "-man", "-Tutf8", "-ww", "-z", str(MAN_PAGE)], capture_output=True, text=True
    )
    assert result.returncode == 0 and result.stderr == ""


def test_installed_man_page_is_found_by_git_help(tmp_path: Path, env: dict[str, str]) -> None:
    # An editable install (`make`'s .venv) skips data files, so install for real into a prefix.
    # --ignore-installed keeps pip from uninstalling the editable copy in the running venv.
    source, prefix = tmp_path / "src", tmp_path / "prefix"
    shutil.copytree(ROOT, source, ignore=NOT_SOURCE)
    pip = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--ignore-installed"]
    pip += ["--prefix", str(prefix), str(source)]
    run(pip, cwd=tmp_path, env=dict(os.environ), check=True)
    installed = prefix / "share" / "man" / "man1" / "git-teddy.1"
    assert installed.read_bytes() == MAN_PAGE.read_bytes()
    if shutil.which("man") is None:
        pytest.skip("`man` is not installed, so `git help teddy` cannot be run here")
    # git maps `help teddy` to the page git-teddy only when git-teddy is on PATH.
    help_env = {
        **env,
        "PATH": f"{prefix / 'bin'}{os.pathsep}{env['PATH']}",
        "MANPATH": str(prefix / "share" / "man"),
        "MANPAGER": "cat",
        "PAGER": "cat",
        "MANWIDTH": "80",
    }
    result = run(["git", "help", "-m", "teddy"], cwd=tmp_path, env=help_env, check=True)
    assert "GIT-TEDDY(1)" in result.stdout
    assert "EXIT STATUS" in result.stdout
    where = run(["man", "-w", "git-teddy"], cwd=tmp_path, env=help_env, check=True)
    assert Path(where.stdout.strip()) == installed
