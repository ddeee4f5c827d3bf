"""``python -m harness.replay TRACE...``: replay decision traces through their Python policies;
exit 1 naming the first differing decision of a trace, or with one error line naming the
line of a trace that cannot be read. A trace cut by a killed run replays up to its cut
(status 0, the line saying so)."""

from __future__ import annotations

import sys
from pathlib import Path

from harness.replay.replay import TraceCut, TraceIncomplete, replay
from harness.replay.trace import TraceError
from harness.seams.errors import UserError


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: python -m harness.replay TRACE...", file=sys.stderr)
        return 2
    status = 0
    for name in argv:
        try:
            count, mismatch = replay(Path(name))
        except TraceCut as e:
            print(f"{name}: {e}")
            continue
        except (UserError, TraceIncomplete, TraceError, OSError) as e:
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
