"""Shell completion: click's own, keyed to the `git-teddy` program, and for bash a
`_git_teddy` function so that git's completion (`git teddy <TAB>`) hands over to it."""

from click.shell_completion import get_completion_class

from git_teddy.cli.commands import COMPLETE_VAR

PROGRAM = "git-teddy"
SHELLS = ("bash", "zsh", "fish")

# git's bash completion calls `_git_<command>` for `git <command> ...`: the words after
# `git teddy` become git-teddy's own, and click's function answers them.
GIT_BASH_BRIDGE = """
_git_teddy() {
    local COMP_WORDS=("git-teddy" "${COMP_WORDS[@]:2}")
    local COMP_CWORD=$((COMP_CWORD - 1))
    _git_teddy_completion git-teddy
}
"""


def completion_script(shell: str) -> str:
    """The script that loads completion for `shell` (one of SHELLS)."""
    from git_teddy.cli.group import cli

    kind = get_completion_class(shell)
    assert kind is not None, shell
    source = kind(cli, {}, PROGRAM, COMPLETE_VAR).source()
    return source + GIT_BASH_BRIDGE if shell == "bash" else source
