"""``python -m harness.paper [device=k50pro] [mode=fast|full] [only=[fig8,...]]``.

Runs what the paper's notebooks need, executes them and writes one report:
``<out_dir>/report/paper.html`` (self-contained: figures and tables embedded) and
``<out_dir>/report/paper.md`` (the summary table). Bad input ends with one ``error:``
line and exit code 2; a notebook that failed makes the exit code 1 (its error is in the
report).
"""

from __future__ import annotations

import sys

from rich.console import Console

from harness.seams.errors import run_cli


def main() -> None:
    args = sys.argv[1:]
    if args and args[0] in ("-h", "--help"):
        print(__doc__)
        return
    from harness.paper.build import build

    console = Console(stderr=True)
    built = run_cli(lambda: build(args, console))
    console.print(f"report: {built.html}\nsummary: {built.markdown}\n"
                  f"took {built.seconds:.1f} s")
    for artifact, error in built.errors.items():
        console.print(f"[red]{artifact} notebook failed[/red]: {error}")
    if built.errors:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
