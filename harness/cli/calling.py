"""How this shell calls the ``harness`` console script, for the lines that tell a user what
to type next.

``make run`` installs ``harness`` into ``.venv/bin``, which is on no one's ``PATH`` until
the venv is activated. A run's last line says how to call it here: ``harness`` when the
shell finds the script of this interpreter's environment, else its path (relative to the
working folder where it lies beneath it), or ``python -m harness.cli.main`` when the
environment has no script at all.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path


def harness_command() -> str:
    """What to type for ``harness`` in this shell (module docstring)."""
    script = Path(sys.executable).parent / "harness"
    found = shutil.which("harness")
    if found and Path(found).resolve() == script.resolve():
        return "harness"
    if not script.is_file():
        return f"{sys.executable} -m harness.cli.main"
    try:
        return str(script.absolute().relative_to(Path.cwd()))
    except ValueError:
        return str(script)


def next_steps(folder: Path) -> str:
    """The run's last line: where it wrote and how to look again."""
    harness = harness_command()
    activate = (" (or `source .venv/bin/activate`, then `harness`)"
                if harness != "harness" and harness.startswith(".venv") else "")
    return (f"results: {folder} · next: `{harness} report {folder}`, `{harness} runs`"
            f"{activate}")
