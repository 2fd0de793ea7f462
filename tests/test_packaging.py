"""The wheel ships every package and its data (hooks, prompts, the man page): a missing one
works in an editable install and breaks a real one, so a real wheel is built and read."""

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).parent.parent


def test_the_wheel_ships_every_module_and_data_file(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path), str(ROOT)],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("git_teddy-*.whl")
    shipped = set(zipfile.ZipFile(wheel).namelist())
    sources = {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "git_teddy").rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.name != "README.md"
    }
    assert sources - shipped == set()
    assert any(name.endswith("share/man/man1/git-teddy.1") for name in shipped)
