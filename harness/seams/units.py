"""Time inside the program is integer nanoseconds; fields carry their unit in their name."""

import math
from typing import Final

NS_PER_US: Final = 1_000
NS_PER_MS: Final = 1_000_000
NS_PER_S: Final = 1_000_000_000


def round_int(x: float) -> int:
    """``round(x)``: the nearest integer, ties to even (exact: ``x - floor(x)`` is; compiled,
    several times faster than the builtin's generic call)."""
    r = math.floor(x)
    d = x - r
    if d > 0.5 or (d == 0.5 and r % 2 == 1):
        r += 1
    return r
