"""``harness runs [ROOT]``: the runs under a results folder, from its index.

One entry per run folder (:mod:`harness.reporting.runindex`): its folder, device and kind,
scenario, state, seeds and headline FPS, then its baselines. It reads and never writes:
the index is a cache kept by the runs themselves as they finish, completed here in memory
from the folders (so it works on a read-only or another user's results tree); a run killed
before it closed is listed as killed, a folder that cannot be read on its own row.
``--device`` and ``--scenario`` filter.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from harness.reporting import runindex
from harness.seams.errors import UserError, run_cli


def listing(root: Path, device: str | None = None, scenario: str | None = None) -> str:
    if not root.is_dir():
        raise UserError(f"{root} is not a folder (runs are written under results/)")
    found = [e for e in runindex.runs(root)
             if device in (None, e.device) and scenario in (None, e.scenario)]
    if not found:
        return f"no runs under {root}\n"
    return "\n".join(e.line() for e in found) + f"\n{len(found)} run(s) under {root}\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="harness runs", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("root", nargs="?", type=Path, default=Path(runindex.ROOT_NAME),
                        help="a results folder (default: results)")
    parser.add_argument("--device")
    parser.add_argument("--scenario")
    args = parser.parse_args(argv)
    print(run_cli(lambda: listing(args.root, args.device, args.scenario)), end="")
    return 0
