"""Reading YAML with libyaml's C parser when PyYAML has it (several times faster than the
pure-Python one: session.md is rebuilt from every turn's YAML on each session commit), and
reading a stored YAML file as one of the session's models, its damage said in one line."""

from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
Model = TypeVar("Model", bound=BaseModel)


class Unreadable(ValueError):
    """A stored file is not what teddy wrote (edited by hand, fetched so, or cut short):
    the message says what is wrong with it, in one line, for the reader to place."""


def load_yaml(text: str | bytes) -> Any:
    """Like `yaml.safe_load`: plain data only."""
    return yaml.load(text, Loader=_LOADER)


def load_model(model: type[Model], data: str | bytes) -> Model:
    """`data` (UTF-8 YAML) as a `model`; Unreadable saying why when it is not one."""
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
    except UnicodeDecodeError as error:
        raise Unreadable(f"it is not UTF-8 text (byte {error.start})") from None
    try:
        return model.model_validate(load_yaml(text))
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        raise Unreadable(f"it is not valid YAML{where}") from None
    except ValidationError as error:
        first = error.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or "the whole file"
        more = f" (and {error.error_count() - 1} more)" if error.error_count() > 1 else ""
        raise Unreadable(f"{field}: {first['msg']}{more}") from None
