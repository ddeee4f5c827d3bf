"""One job of a sweep, isolated: its failure is its own, recorded in its own folder.

Hydra launches the jobs of ``python -m harness -m ...`` one after another (basic launcher)
or in worker processes (joblib). A job that raised out of its task function stopped the
basic launcher at that job and broke joblib's pool (the jobs beside it killed mid-run,
the jobs after it never started). :func:`isolated` runs one job so that it never raises
out (but for Ctrl-C, which stops the whole sweep): it claims the job's folder first, so
however the job ends its folder's manifest records how (:func:`endings_recorded`), prints
one ``error:`` line naming the job, and returns the job's ending. The sweep's end
(:class:`harness.cli.sweepend.SweepEndings`) reads every job's ending back from its folder.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Callable
from pathlib import Path

from harness.experiment.endings import endings_recorded, one_line
from harness.seams import claim
from harness.seams.errors import UserError

COMPLETED = "completed"
FAILED = "failed"


def isolated(folder: Path, name: str, body: Callable[[], object]) -> str:
    """Run ``body`` (one sweep job writing into ``folder``) and return its ending
    (``completed`` or ``failed``); a failure is printed as one line naming the job
    (``name``) and recorded in ``folder``'s manifest, never raised."""
    try:
        claim.claim(folder)
        with endings_recorded():
            body()
        return COMPLETED
    except KeyboardInterrupt:
        raise
    except SystemExit as exc:  # a refusal already printed its own line
        if exc.code in (0, None):
            return COMPLETED
        print(f"error: sweep job {name}: ended with exit code {exc.code}", file=sys.stderr)
    except UserError as exc:
        print(f"error: sweep job {name}: {' '.join(str(exc).split())}", file=sys.stderr)
    except Exception as exc:  # the program's fault: its traceback, then the job's line
        traceback.print_exc()
        print(f"error: sweep job {name}: {one_line(exc)}", file=sys.stderr)
    return FAILED
