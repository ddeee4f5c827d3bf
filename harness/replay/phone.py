"""A phone's decision trace checked against the Python reference.

The native runner (``runner --policy HEADER --decisions TRACE``) writes the decisions its C++
policy made on the phone in the trace format of :mod:`harness.replay.trace`, with the views
it built from its live state. Replaying that trace through the Python policy the header names
shows whether the phone decided as the Python policy would have on the same views: the first
decision that differs, or None.
"""

from __future__ import annotations

from pathlib import Path

from harness.replay.replay import Mismatch, TraceCut, TraceIncomplete, replay
from harness.seams.errors import UserError


def check_phone_trace(path: Path) -> Mismatch | str | None:
    """The first decision of the trace at ``path`` that the Python policy makes differently
    (a :class:`Mismatch`), why the trace cannot be replayed whole (a one-line reason:
    unreadable, a decision read a job the trace does not hold, or cut by a killed run, with
    the decisions before the cut replayed clean), or None when it replays clean."""
    try:
        _, mismatch = replay(path)
    except (UserError, TraceIncomplete, TraceCut, OSError, ValueError, KeyError) as e:
        return f"{path}: {type(e).__name__}: {e}"
    return mismatch
