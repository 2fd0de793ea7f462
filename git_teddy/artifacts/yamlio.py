"""Reading YAML with libyaml's C parser when PyYAML has it (several times faster than the
pure-Python one: session.md is rebuilt from every turn's YAML on each session commit), and
reading a stored YAML file as one of the session's models, its damage said in one line.

Session YAML may come from a teammate: it is read within YAML_LIMIT bytes and without
aliases (`&a` ... `*a`, which git-teddy never writes: nine levels of them make a few lines
expand to billions of items, an alias bomb), both refused before anything is built."""

from typing import TYPE_CHECKING, Any, TypeVar

import yaml

if TYPE_CHECKING:  # pydantic only for load_model: plain YAML readers do without it
    from pydantic import BaseModel

_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
Model = TypeVar("Model", bound="BaseModel")
YAML_LIMIT = 4 * 1024 * 1024  # bytes: teddy's largest YAML file (a report) is far smaller


class Unreadable(ValueError):
    """A stored file is not what teddy wrote (edited by hand, fetched so, or cut short):
    the message says what is wrong with it, in one line, for the reader to place."""


class Refused(Unreadable, yaml.YAMLError):
    """YAML teddy does not read at all (aliases, or too large); a YAMLError too, so the
    readers that pass damaged YAML over pass this over as well."""


def load_yaml(text: str | bytes) -> Any:
    """Like `yaml.safe_load`: plain data only; Refused for aliases or more than YAML_LIMIT
    bytes."""
    check_yaml(text)
    return yaml.load(text, Loader=_LOADER)


def check_yaml(text: str | bytes) -> None:
    """Refused when `text` is too large or uses an alias; parsing events only (no node or
    object is built), and only when a `*` is there at all."""
    size = len(text) if isinstance(text, bytes) else len(text.encode("utf-8", "replace"))
    if size > YAML_LIMIT:
        raise Refused(f"it is {size} bytes of YAML, more than git-teddy reads ({YAML_LIMIT})")
    if not _may_alias(text):
        return
    try:
        for event in yaml.parse(text, Loader=_LOADER):
            if isinstance(event, yaml.AliasEvent):
                name = ascii(str(event.anchor)[:40])
                raise Refused(f"it uses a YAML alias ({name}), which git-teddy never writes")
    except Refused:
        raise
    except yaml.YAMLError:
        return  # not valid YAML: the loader says where


def _may_alias(text: str | bytes) -> bool:
    return b"*" in text if isinstance(text, bytes) else "*" in text


def load_data(data: str | bytes) -> Any:
    """`data` (UTF-8 YAML) as plain data, as load_model reads it before validating;
    Unreadable saying why when it is not UTF-8 YAML teddy reads."""
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
    except UnicodeDecodeError as error:
        raise Unreadable(f"it is not UTF-8 text (byte {error.start})") from None
    try:
        return load_yaml(text)
    except Refused:
        raise
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        raise Unreadable(f"it is not valid YAML{where}") from None


def load_model(model: type[Model], data: str | bytes) -> Model:
    """`data` (UTF-8 YAML) as a `model`; Unreadable saying why when it is not one."""
    from pydantic import ValidationError  # imported by the model's module already

    plain = load_data(data)
    try:
        return model.model_validate(plain)
    except ValidationError as error:
        first = error.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or "the whole file"
        more = f" (and {error.error_count() - 1} more)" if error.error_count() > 1 else ""
        raise Unreadable(f"{field}: {first['msg']}{more}") from None
