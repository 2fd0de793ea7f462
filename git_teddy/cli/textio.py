"""Text in and out of the commands: JSON on stdout, and a plan's text (or any UTF-8 text)
from a file or from stdin (`-`)."""

import json
import sys
from pathlib import Path
from typing import Any

import click

from git_teddy.errors import TeddyError
from git_teddy.printable import json_printable


def echo_json(data: Any) -> None:
    click.echo(json_printable(json.dumps(data, indent=2, ensure_ascii=False)))


def read_text(file: str) -> str:
    """The text of FILE, or of stdin for "-", as UTF-8."""
    name = "stdin" if file == "-" else file
    try:
        data = sys.stdin.buffer.read() if file == "-" else Path(file).read_bytes()
    except OSError as error:
        raise TeddyError(
            f"cannot read {name}: {error.strerror or error}",
            "give the path of a plan file, or - to read the plan from stdin",
        ) from error
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise TeddyError(
            f"{name} is not UTF-8 text (byte {error.start})", "save the plan as UTF-8"
        ) from error
