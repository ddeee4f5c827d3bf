"""Execute the paper's notebooks (jupytext percent files) with nbclient.

Each notebook runs in a fresh kernel whose environment names the driver's output folder
(``PAPER_OUT``) and puts this checkout first on ``PYTHONPATH``, so the kernel imports the
same ``harness`` as the driver. The executed notebook is saved as ``.ipynb`` beside the
report; a cell that raises stops that notebook only, and the error is kept in its outputs.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.seams.errors import UserError

#: the checkout (parent of the ``harness`` package) and its notebooks
ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"


@dataclass(frozen=True)
class Executed:
    name: str
    notebook: Any  # nbformat.NotebookNode
    #: the first error's one line, "" when every cell ran
    error: str = ""


def kernel_env(out: Path) -> dict[str, str]:
    """This process's environment with ``PAPER_OUT`` (absolute: the kernel's working
    directory is ``out/report``) and this checkout on ``PYTHONPATH``."""
    env = dict(os.environ)
    env["PAPER_OUT"] = str(out.resolve())
    paths = [str(ROOT), *[p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]]
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
    return env


def execute(artifact: str, name: str, out: Path, timeout_s: int = 1800) -> Executed:
    """Run ``notebooks/<name>.py`` (the notebook of ``artifact``) with the kernel's working
    directory ``out/report``."""
    try:
        import jupytext
        import nbclient
        import nbformat
        from nbclient.exceptions import CellExecutionError
    except ImportError as exc:
        raise UserError(f"python -m harness.paper needs {exc.name}: pip install -e '.[paper]'"
                        ) from None

    workdir = out / "report"
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "summary" / f"{artifact}.json").unlink(missing_ok=True)  # no stale rows
    notebook = jupytext.read(NOTEBOOKS / f"{name}.py")
    client = nbclient.NotebookClient(notebook, timeout=timeout_s, kernel_name="python3",
                                     resources={"metadata": {"path": str(workdir.resolve())}})
    error = ""
    saved = dict(os.environ)
    os.environ.update(kernel_env(out))  # the kernel subprocess inherits this environment
    try:
        client.execute()
    except CellExecutionError as exc:
        error = _first_line(exc)
    finally:
        os.environ.clear()
        os.environ.update(saved)
    (workdir / "notebooks").mkdir(exist_ok=True)
    nbformat.write(notebook, workdir / "notebooks" / f"{name}.ipynb")
    return Executed(name, notebook, error)


def _first_line(exc: BaseException) -> str:
    """The last line of a cell's traceback, without the terminal's colour codes."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(exc))
    lines = [ln for ln in text.splitlines() if ln.strip()]
    return lines[-1] if lines else type(exc).__name__
