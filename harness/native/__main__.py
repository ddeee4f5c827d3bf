"""``python -m harness.native build [--force]`` compiles the simulation core;
``python -m harness.native`` says whether it is in use (:mod:`harness.native`)."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from harness.native import status
from harness.native.build import build


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["build"]:
        build(force="--force" in args)
        return 0
    if args[:1] == ["status"] or not args:
        print(status())
        return 0
    print(f"error: unknown command {' '.join(args)!r}; allowed: build [--force], status",
          file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
