"""Generate the command reference (README.md, docs/cli.md) and the man page docs/git-teddy.1
from the CLI's own click help, and the settings table (README.md, the man page) from the
settings registry (git_teddy.settings), so the documentation cannot drift from the code.

    python scripts/gen_docs.py           # rewrite the three files
    python scripts/gen_docs.py --check   # exit 1 if any of them is out of date
"""

import argparse
import importlib
import inspect
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import click

from git_teddy import __version__
from git_teddy.cli.commands import COMMANDS
from git_teddy.cli.main import cli
from git_teddy.errors import EXIT_BUG, EXIT_INTERRUPTED, EXIT_USAGE, EXIT_USER_ERROR
from git_teddy.settings import REGISTRY, Setting, is_template

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = "COMMAND REFERENCE"  # README's generated sections, between BEGIN and END marks
SETTINGS = "SETTINGS"
PROG = "git teddy"
WIDTH = 80  # fixed, so the output does not depend on the terminal that runs `make docs`

EXIT_CODES: list[tuple[int, str]] = [
    (0, "Success."),
    (EXIT_USER_ERROR, "An error the user can fix; printed as error: and hint: lines."),
    (EXIT_USAGE, "Invalid command line (unknown command or option, missing argument)."),
    (EXIT_BUG, "A bug in git-teddy; a traceback is printed."),
    (EXIT_INTERRUPTED, "Interrupted (Ctrl-C); state is left consistent."),
]


@dataclass
class Loaded:
    commands: dict[str, click.Command]
    skipped: dict[str, str]  # name -> why


def load_commands() -> Loaded:
    """Every command of COMMANDS; a command whose own module does not exist (yet) is skipped
    and reported, any other import error is a real bug and propagates."""
    loaded = Loaded({}, {})
    for name, target in COMMANDS.items():
        module_name, attr = target.split(":")
        try:
            command = getattr(importlib.import_module(module_name), attr)
        except ModuleNotFoundError as error:
            if error.name != module_name:
                raise
            loaded.skipped[name] = f"module {module_name} not found"
            continue
        assert isinstance(command, click.Command)
        loaded.commands[name] = command
    return loaded


class OrderedGroup(click.Group):
    """Lists commands in COMMANDS order, as the real lazy group does (click would sort)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.commands)


def root_context(commands: dict[str, click.Command]) -> click.Context:
    # A group holding the loaded commands renders like the lazy one, minus missing modules.
    group = OrderedGroup(
        name=cli.name,
        commands=commands,
        help=cli.help,
        epilog=cli.epilog,
        params=cli.params,
        context_settings=cli.context_settings,
    )
    settings = {**cli.context_settings, "terminal_width": WIDTH, "max_content_width": WIDTH}
    return click.Context(group, info_name=PROG, **settings)


def sub_context(parent: click.Context, name: str, command: click.Command) -> click.Context:
    return click.Context(command, parent=parent, info_name=name)


# ---------------------------------------------------------------- Markdown


def markdown_reference(loaded: Loaded, level: int) -> str:
    ctx = root_context(loaded.commands)
    head = "#" * level
    parts = [f"{head} `{PROG}`\n\n```text\n{ctx.get_help()}\n```\n"]
    for name, command in loaded.commands.items():
        help_text = sub_context(ctx, name, command).get_help()
        parts.append(f"{head} `{PROG} {name}`\n\n```text\n{help_text}\n```\n")
    return "\n".join(parts)


def replace_section(current: str, name: str, body: str) -> str:
    """`current` with what lies between its BEGIN and END `name` marks replaced by `body`."""
    begin = re.search(rf"<!-- BEGIN {name}[^\n]*-->\n", current)
    end = current.find(f"<!-- END {name} -->")
    if begin is None or end < begin.end():
        raise SystemExit(f"error: README.md lacks the {name} markers")
    return current[: begin.end()] + "\n" + body + "\n" + current[end:]


def readme_text(current: str, loaded: Loaded) -> str:
    text = replace_section(current, SETTINGS, markdown_settings())
    return replace_section(text, REFERENCE, markdown_reference(loaded, level=3))


def markdown_settings() -> str:
    def cell(text: str) -> str:  # <model> would be taken for an HTML tag
        return text.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")

    lines = ["| Setting | Type | Default | What it does |", "| --- | --- | --- | --- |"]
    for setting in REGISTRY:
        default = cell(setting.shown_default)
        default = default if default.startswith("(") or is_template(setting) else f"`{default}`"
        what = f"{cell(setting.help)} Environment: `{setting.env}`."
        lines.append(f"| `{setting.key}` | {cell(setting.kind)} | {default} | {what} |")
    return "\n".join(lines) + "\n"


def cli_md_text(loaded: Loaded) -> str:
    intro = (
        "# Command reference\n\n"
        "Generated from the CLI's own help by `make docs`; do not edit. "
        "Every command also answers `-h`.\n\n"
    )
    return intro + markdown_reference(loaded, level=2)


# ---------------------------------------------------------------- man page


def roff(text: str) -> str:
    """Escape text for roff: backslashes, dashes (so options copy as ASCII), and a leading
    dot or quote that roff would take for a request."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return re.sub(r"^([.'])", r"\\&\1", text, flags=re.MULTILINE)


def paragraphs(help_text: str | None) -> list[str]:
    blocks = re.split(r"\n\s*\n", inspect.cleandoc(help_text or ""))
    return [" ".join(b.split()) for b in blocks if b.strip() and b.strip() != "\b"]


def man_options(ctx: click.Context) -> list[str]:
    lines: list[str] = []
    for param in ctx.command.get_params(ctx):
        # Arguments have no help text in click; the usage line shows them.
        record = param.get_help_record(ctx) if isinstance(param, click.Option) else None
        if record:
            lines += [".TP", f".B {roff(record[0])}", roff(record[1] or "")]
    return lines


def man_usage(ctx: click.Context) -> str:
    pieces = ctx.command.collect_usage_pieces(ctx)
    return f"\\fB{roff(ctx.command_path)}\\fR " + roff(" ".join(pieces))


def man_command(parent: click.Context, name: str, command: click.Command) -> list[str]:
    ctx = sub_context(parent, name, command)
    lines = [f'.SS "{roff(PROG)} {roff(name)}"', man_usage(ctx), ".PP"]
    for paragraph in paragraphs(command.help):
        lines += [roff(paragraph), ".PP"]
    lines += [".RS 4", *man_options(ctx), ".RE"]
    return lines


def man_configuration() -> list[str]:
    lines = [
        ".SH CONFIGURATION",
        roff(
            "Settings are read with git config from the keys teddy.*, and an environment "
            "variable overrides each key: TEDDY_ followed by the rest of the key in upper case, "
            "where dots and camel-case humps become underscores (teddy.refPrefix is overridden "
            "by TEDDY_REF_PREFIX). When a key has several values, the last one wins; an empty "
            "text means the default. Whole numbers take git's suffixes k, m and g (times 1024). "
            "A bad value stops any command before it does anything, with an error naming the "
            "key. git teddy config lists every key, its value and where that comes from."
        ),
    ]
    for setting in REGISTRY:
        lines += [".TP", f".B {roff(setting.key)}", man_setting(setting)]
    return lines


def man_setting(setting: Setting) -> str:
    facts = f"Type: {setting.kind}. Default: {setting.shown_default}."
    return f"{roff(setting.help)} {roff(facts)} Environment: \\fB{roff(setting.env)}\\fR."


def man_text(loaded: Loaded) -> str:
    ctx = root_context(loaded.commands)
    summary = paragraphs(cli.help)[0]
    lines = [
        f'.TH GIT\\-TEDDY 1 "" "git\\-teddy {roff(__version__)}" "Git Manual"',
        ".SH NAME",
        f"git\\-teddy \\- {roff(summary)}",
        ".SH SYNOPSIS",
        ".nf",
        f"\\fB{roff(PROG)}\\fR [\\-h | \\-\\-help] [\\-\\-version]",
        f"\\fB{roff(PROG)}\\fR \\fIcommand\\fR [\\fIoptions\\fR] [\\fIarguments\\fR]",
        ".fi",
        ".SH DESCRIPTION",
        roff(
            "git teddy records pair-programming sessions with AI models as git history. "
            "Sessions are branches (teddy/<session>/main), turns are commits with "
            "Teddy-* trailers, and project states are snapshot commits kept alive by one "
            "ref per session, refs/teddy/keep/<session>. Every command answers -h."
        ),
        ".SH COMMANDS",
    ]
    for name, command in loaded.commands.items():
        lines += man_command(ctx, name, command)
    lines += man_configuration()
    lines += ['.SH "EXIT STATUS"']
    for code, text in EXIT_CODES:
        lines += [".TP", f".B {code}", roff(text)]
    lines += ['.SH "SEE ALSO"', "\\fBgit\\fR(1), \\fBgit\\-config\\fR(1), \\fBgit\\-log\\fR(1)"]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- main


def expected_files(root: Path, loaded: Loaded) -> dict[Path, str]:
    readme = root / "README.md"
    return {
        readme: readme_text(readme.read_text(encoding="utf-8"), loaded),
        root / "docs" / "cli.md": cli_md_text(loaded),
        root / "docs" / "git-teddy.1": man_text(loaded),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="exit 1 if the docs are stale")
    parser.add_argument(
        "--root", type=Path, default=ROOT, help="folder holding README.md and docs/ (tests)"
    )
    args = parser.parse_args(argv)
    root: Path = args.root.resolve()
    loaded = load_commands()
    for name, why in loaded.skipped.items():
        print(f"warning: command {name!r} left out of the docs: {why}", file=sys.stderr)
    expected = expected_files(root, loaded)
    stale = [
        path
        for path, text in expected.items()
        if not path.exists() or path.read_text(encoding="utf-8") != text
    ]
    if args.check:
        for path in stale:
            print(f"{path.relative_to(root)} is out of date; run `make docs`", file=sys.stderr)
        # Docs missing a command are incomplete even when they match what could be loaded.
        return 1 if stale or loaded.skipped else 0
    for path in stale:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(expected[path], encoding="utf-8")
        print(f"wrote {path.relative_to(root)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
