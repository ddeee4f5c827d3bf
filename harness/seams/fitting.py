"""Printed tables that fit the terminal, and the console commands print to.

**Fitting.** A table wider than the console is not squeezed (rich would then cut numbers to
"…" and drop headers): its columns are split into parts that each fit, every part repeating
the first column (the row's name), so no cell is ever shortened and no name is dropped.
Cells are plain text, never rich markup (a variant's name ``band[scheduler=heft]`` would
read as a markup tag and vanish). A column's width is its widest cell or header; a part
takes columns left to right while the part's width (each column's width plus rich's padding
and rule, :data:`PER_COLUMN`) fits. The first column is at most a third of the console
(:func:`name_width`): a longer name (a variant,
``band[scheduler=heterogeneous_earliest_finish_time]``) folds onto a second line, whole,
rather than leaving room for one column per part. A column given in ``fold`` (free text: a
list of op types, a note) is capped at a share of the console and folds too.

**The console** (:func:`terminal_console`): every command prints at the terminal's width, or
at ``COLUMNS`` when it is set (so ``COLUMNS=80 harness ... > file`` gives what an 80-column
terminal shows), else wide enough for the whole table (a log file).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Collection, Sequence

from rich.cells import cell_len
from rich.console import Console
from rich.table import Table as RichTable
from rich.text import Text

#: console width when printing to a file or pipe without ``COLUMNS``
WIDE = 160


def terminal_console(stderr: bool = False) -> Console:
    """The terminal's width on a terminal (or ``COLUMNS`` when set), else :data:`WIDE`."""
    stream = sys.stderr if stderr else sys.stdout
    if stream.isatty() or "COLUMNS" in os.environ:
        return Console(stderr=stderr)
    return Console(stderr=stderr, width=WIDE)


#: what one column adds to a table's width besides its cells: a space each side and a rule
PER_COLUMN = 3


def widths(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> list[int]:
    """Each column's natural width: its widest line of header or cell."""
    return [max(cell_len(line) for text in (h, *(r[k] for r in rows))
                for line in text.splitlines() or [""])
            for k, h in enumerate(headers)]


def name_width(width: int) -> int:
    """The widest the first column gets in a console ``width`` wide: a third of it (at
    least 16); a longer name folds onto more lines, whole."""
    return max(16, width // 3)


def fold_width(width: int) -> int:
    """The widest a free-text column (``fold``) gets: two fifths of the console (at
    least 20)."""
    return max(20, 2 * width // 5)


def capped(k: int, width: int, fold: Collection[int]) -> int | None:
    """Column ``k``'s cap in a console ``width`` wide (None: its natural width)."""
    return name_width(width) if k == 0 else fold_width(width) if k in fold else None


def parts(headers: Sequence[str], rows: Sequence[Sequence[str]], width: int,
          fold: Collection[int] = ()) -> list[list[int]]:
    """Column indices of each part: column 0 first in every part, the others in order, each
    part at most ``width`` wide (a column wider than that alone gets a part of its own)."""
    sizes = [min(w, capped(k, width, fold) or w) + PER_COLUMN
             for k, w in enumerate(widths(headers, rows))]
    out: list[list[int]] = []
    for k in range(1, len(headers)):
        if out and 1 + sum(sizes[i] for i in out[-1]) + sizes[k] <= width:
            out[-1].append(k)
        else:
            out.append([0, k])
    return out or [[0]]


def fitted(headers: Sequence[str], rows: Sequence[Sequence[str]], width: int,
           title: str | None = None, caption: str | None = None,
           left: Collection[int] = (0,), fold: Collection[int] = ()) -> list[RichTable]:
    """The table as rich tables that each fit ``width``: the title over the first part,
    the caption under the last; columns in ``left`` are left-justified, the rest right."""
    split = parts(headers, rows, width, fold)
    tables = []
    for n, columns in enumerate(split):
        last = n == len(split) - 1
        table = RichTable(title=Text(title) if title and n == 0 else None,
                          title_justify="left", caption_justify="left",
                          caption=Text(caption) if caption and last else None)
        for k in columns:  # a long name or free text folds; nothing else wraps
            table.add_column(Text(headers[k]), justify="left" if k in left else "right",
                             no_wrap=k != 0 and k not in fold, overflow="fold",
                             max_width=capped(k, width, fold))
        for row in rows:
            table.add_row(*(Text(row[k]) for k in columns))  # no markup: "band[x=1]"
        tables.append(table)
    return tables
