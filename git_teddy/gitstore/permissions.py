"""core.sharedRepository: the modes git gives what it creates in a repository shared by a
group, given to what git-teddy creates in the git dir too (its derived state).

git parses the value in setup.c (`git_config_perm`) and applies it in path.c
(`calc_shared_perm`, `adjust_shared_perm`); this module does the same, so a teammate in the
group reads and updates teddy's state as they read and update git's. Without the setting
nothing is changed: files and folders keep the modes the umask gave them. Standard library
only, for the fast paths.
"""

import os
import stat
from collections.abc import Mapping
from pathlib import Path

from git_teddy.errors import TeddyError, in_the_way

KEY = "core.sharedrepository"  # lower case, as plumbing.read_config returns keys
UMASK = 0  # not shared: the umask decides (git's PERM_UMASK)
GROUP = 0o660  # modes added (git's PERM_GROUP)
EVERYBODY = 0o664  # (git's PERM_EVERYBODY)
_WORDS = {"umask": UMASK, "group": GROUP, "all": EVERYBODY, "world": EVERYBODY}
_WORDS["everybody"] = EVERYBODY
_OLD_NUMBERS = {0: UMASK, 1: GROUP, 2: EVERYBODY}  # `core.sharedRepository=1` of old
_TRUE = ("", "true", "yes", "on")  # "": a key without a value, which git reads as group
_FALSE = ("false", "no", "off")


class Shared:
    """How shared a repository is. `perm` as git keeps it: 0, the umask decides; positive,
    mode bits added to what the umask gave; negative, the exact mode bits (an octal value
    such as 0640), for files (folders also get x where r is set)."""

    def __init__(self, perm: int = UMASK) -> None:
        self.perm = perm

    @classmethod
    def from_config(cls, values: Mapping[str, list[str]]) -> "Shared":
        """From the values read by plumbing.read_config (the last one counts, as in git)."""
        found = values.get(KEY, [])
        return cls(parse(found[-1])) if found else cls()

    @property
    def active(self) -> bool:
        return self.perm != UMASK

    def mode_for(self, mode: int) -> int:
        """The mode git would give a file or folder the umask created with `mode`."""
        tweak = -self.perm if self.perm < 0 else self.perm
        if not mode & stat.S_IWUSR:  # a read-only file (an object) stays read-only
            tweak &= ~0o222
        if mode & stat.S_IXUSR:  # the group may run what its owner may
            tweak |= (tweak & 0o444) >> 2
        new = (mode & ~0o777) | tweak if self.perm < 0 else mode | tweak
        if stat.S_ISDIR(mode):
            new |= (new & 0o444) >> 2  # a folder readable is a folder enterable
            if new & 0o060:  # git: g+s, so what is made inside belongs to the group
                new |= stat.S_ISGID
        return new

    def adjust(self, path: Path | str) -> None:
        """Give `path`, created by this process, git's shared mode (no-op unshared). One a
        teammate made (a file rewritten in place) is theirs to chmod, and shared already."""
        if not self.active:
            return
        info = os.stat(path)
        if info.st_uid != os.geteuid():
            return
        mode = info.st_mode
        new = self.mode_for(mode)
        if (mode ^ new) & ~stat.S_IFMT(mode):
            os.chmod(path, stat.S_IMODE(new))

    def make_folders(self, folder: Path) -> Path:
        """`folder` and its missing parents, each one made here given the shared mode, as
        git's safe_create_leading_directories does; `folder` is returned."""
        missing = []
        for path in [folder, *folder.parents]:
            if path.is_dir():
                break
            if path.exists() or path.is_symlink():
                raise in_the_way(path, "a folder")
            missing.append(path)
        for path in reversed(missing):
            try:
                path.mkdir()
            except FileExistsError:
                continue  # another process made it: its modes are its maker's business
            self.adjust(path)
        return folder


def parse(value: str) -> int:
    """A core.sharedRepository value as git reads it (git_config_perm): TeddyError for a
    mode that would lock the owner out, which git refuses as well."""
    if value in _WORDS:
        return _WORDS[value]
    try:
        number = int(value, 8)
    except ValueError:
        word = value.strip().lower()
        if word in _TRUE or word in _FALSE:
            return GROUP if word in _TRUE else UMASK
        raise TeddyError(
            f"core.sharedRepository has a value git does not know: {value!r}",
            "set it to group, all, umask, true, false or an octal mode such as 0660",
        ) from None
    if number in _OLD_NUMBERS:
        return _OLD_NUMBERS[number]
    if number & 0o600 != 0o600:
        raise TeddyError(
            f"core.sharedRepository is 0{number:03o}, which takes the owner's read and write "
            "permission away",
            "git refuses it too: give the owner read and write, e.g. 0660 or 0640",
        )
    return -(number & 0o666)  # others never get write; x is handled per folder
