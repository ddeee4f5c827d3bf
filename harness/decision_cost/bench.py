"""Every decision of a trace timed by the runner's C++ decision library.

``runner/build/decision_bench TRACE REPEATS`` (``runner/src/policies/decision_bench_main.cc``)
replays the trace REPEATS times through a fresh C++ policy, checks each decision against the
recorded one and prints, per ``schedule`` call, its counted work, the work the library
actually did where that differs (else -1), what it started and dropped, the queue's
length, the jobs read and the minimum and median ns over the repeats; its first line is
the median cost of timing nothing (two clock reads), which :func:`timings` subtracts.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from harness.seams.errors import UserError

#: the repository's root (the bench binary is built into runner/build by ``make runner``)
ROOT = Path(__file__).resolve().parents[2]
BINARY = ROOT / "runner" / "build" / "decision_bench"


@dataclass(frozen=True, slots=True)
class Timing:
    """One decision: its call index, counted and performed work, assignments, drops, queue
    length, jobs read, and its time less the clock's own (minimum and median over the
    repeats), ns."""

    call: int
    work: int
    #: the work the C++ library actually did, where it differs from the count (Band: its
    #: chain cache and estimate copies; ``Decision::performed``), else -1
    performed: int
    assigned: int
    dropped: int
    queue_len: int
    #: jobs the policy read (the queue's prefix it walked, and the kind heads if read)
    read: int
    min_ns: int
    median_ns: int

    @property
    def starts_nothing(self) -> bool:
        return self.assigned == 0 and self.dropped == 0


def parse(text: str) -> list[Timing]:
    """The bench's output read back: one :class:`Timing` per line after the clock line."""
    lines = text.splitlines()
    if not lines or not lines[0].startswith("# clock_ns "):
        raise UserError("decision_bench output has no '# clock_ns' line")
    clock = int(lines[0].split()[2])
    out: list[Timing] = []
    for line in lines[1:]:
        call, work, performed, assigned, dropped, queue_len, read, low, mid = (
            int(x) for x in line.split("\t"))
        out.append(Timing(call, work, performed, assigned, dropped, queue_len, read,
                          max(0, low - clock), max(0, mid - clock)))
    return out


def timings(trace: Path, repeats: int, binary: Path = BINARY) -> list[Timing]:
    """Every decision of ``trace`` timed (``repeats`` replays); a decision the C++ policy
    makes differently from the recorded one is an error."""
    if not binary.exists():
        raise UserError(f"{binary} not built: make runner (or cmake --build runner/build "
                        "--target decision_bench)")
    done = subprocess.run([str(binary), str(trace), str(repeats)], capture_output=True,
                          text=True, check=False)
    if done.returncode != 0:
        raise UserError(done.stderr.strip() or f"decision_bench exited {done.returncode}")
    return parse(done.stdout)
