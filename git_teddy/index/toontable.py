"""Reading the tables of the index file back, column by column.

toon-format's general decoder needs about 0.3 s per 10,000 rows (a whole query's budget),
so rows are read by a reader specialised for the tables the index writes: one split of the
whole table where no quoted cell holds a comma, and each column converted at once by the
type of its field. tests/test_index.py checks it against toon-format.
"""

import json
import re
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any


class UnreadableIndex(ValueError):
    """The file is not an index this version writes: it is rebuilt."""


_JSON = json.JSONDecoder(strict=False)  # TOON's escapes are a subset of JSON's
_CELLS = re.compile(r'(?:^|,)("(?:[^"\\]|\\.)*"|[^,"]*)')
Column = list[Any]


def unquote(cell: str) -> str:
    """A cell's string: quoted cells are JSON-like string literals."""
    if cell[:1] != '"':
        return cell
    return cell[1:-1] if "\\" not in cell else str(_JSON.decode(cell))


def split_cells(line: str, width: int) -> list[str]:
    """The cells of a table row, quoted ones still quoted (so that "null" stays a string).
    Commas inside quotes are the only way a plain split can give more than `width` cells."""
    cells = line.split(",")
    if len(cells) == width:
        return cells
    cells = _CELLS.findall(line)
    if len(",".join(cells)) != len(line):
        raise UnreadableIndex(f"not a row of cells: {line!r}")
    return cells


# Whole columns are converted at once: over 10,000 rows, a call per cell is what costs.
def _text_column(column: Sequence[str]) -> Column:
    joined = "".join(column)
    if '"' not in joined:
        return list(column)
    if "\\" not in joined:  # no escapes: a quoted cell is its text between the quotes
        return [c[1:-1] if c[:1] == '"' else c for c in column]
    return [unquote(c) for c in column]


def _optional_text_column(column: Sequence[str]) -> Column:
    # "null" is None, and stays "null" only when quoted: test before unquoting.
    nulls = [c == "null" for c in column]
    return [None if null else c for null, c in zip(nulls, _text_column(column), strict=True)]


def _optional_int_column(column: Sequence[str]) -> Column:
    return [None if c == "null" else int(c) for c in column]


_CONVERTERS: dict[object, Callable[[Sequence[str]], Column]] = {
    str: _text_column,
    str | None: _optional_text_column,
    int: lambda column: list(map(int, column)),
    int | None: _optional_int_column,
    float: lambda column: list(map(float, column)),
}


def read_rows(row_type: Any, fields: str | None, lines: list[str]) -> list[Any]:
    """A table's rows. When no quoted cell holds a comma (the usual case), one split of the
    whole table gives every cell, and each column is a slice of them."""
    if fields is not None and fields != ",".join(row_type._fields):
        raise UnreadableIndex(f"columns {fields} are not {row_type.__name__}'s")
    if not lines:
        return []
    kinds = list(row_type.__annotations__.values())
    width = len(kinds)
    cells = ",".join(lines).split(",")
    if len(cells) == width * len(lines):
        columns = [cells[i::width] for i in range(width)]
        if any(cell[:2] != "  " for cell in columns[0]):
            raise UnreadableIndex(f"a row of {row_type.__name__} without its indent")
        columns[0] = [cell[2:] for cell in columns[0]]
    else:
        if any(line[:2] != "  " for line in lines):
            raise UnreadableIndex(f"a row of {row_type.__name__} without its indent")
        rows = [split_cells(line[2:], width) for line in lines]
        columns = [list(column) for column in zip(*rows, strict=True)]
        if len(columns) != width:
            raise UnreadableIndex(f"rows of {len(columns)} cells, not {width}")
    converted = [_CONVERTERS[kind](column) for kind, column in zip(kinds, columns, strict=True)]
    return list(map(partial(tuple.__new__, row_type), zip(*converted, strict=True)))
