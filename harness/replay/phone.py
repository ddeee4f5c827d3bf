"""A phone's decision trace checked against the Python reference.

The native runner (``runner --policy HEADER --decisions TRACE``) writes the decisions its C++
policy made on the phone in the trace format of :mod:`harness.replay.trace`, with the views
it built from its live state. Replaying that trace through the Python policy the header names
shows whether the phone decided as the Python policy would have on the same views: the first
decision that differs, or None.
"""

from __future__ import annotations

from pathlib import Path

from harness.replay.replay import Mismatch, TraceIncomplete, replay
from harness.seams.errors import UserError


def check_phone_trace(path: Path) -> Mismatch | str | None:
    """The first decision of the trace at ``path`` that the Python policy makes differently
    (a :class:`Mismatch`), why the trace cannot be replayed (a one-line reason: unreadable,
    cut, or a decision read a job the trace does not hold), or None when it replays clean."""
    try:
        _, mismatch = replay(path)
    except (UserError, TraceIncomplete, OSError, ValueError, KeyError) as e:
        return f"{path}: {type(e).__name__}: {e}"
    return mismatch
