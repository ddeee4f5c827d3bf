"""``python -m harness.replay TRACE...``: replay decision traces through their Python policies;
exit 1 naming the first differing decision of a trace."""

from __future__ import annotations

import sys
from pathlib import Path

from harness.replay.replay import TraceIncomplete, replay
from harness.seams.errors import UserError


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: python -m harness.replay TRACE...", file=sys.stderr)
        return 2
    status = 0
    for name in argv:
        try:
            count, mismatch = replay(Path(name))
        except (UserError, TraceIncomplete, OSError) as e:
            print(f"error: {name}: {e}", file=sys.stderr)
            return 1
        if mismatch is not None:
            print(f"{name}: differs at {mismatch}")
            status = 1
        else:
            print(f"{name}: {count} decisions replay clean")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
