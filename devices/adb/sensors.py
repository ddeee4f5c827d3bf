"""One sensor-sampling loop on the phone per baseline, pulled at the end and merged into
sensor rows on the run's clock.

:func:`loop_script` is a POSIX ``sh`` loop (no helper binary to push; mksh and toybox run it)
that every ``interval_ms`` appends to a log on the phone:

* ``h KEY…`` once: what each column is (``zone:<type>`` every thermal zone's ``temp`` in m°C;
  ``cur:<N>``/``cap:<N>`` every cpufreq policy's ``scaling_cur_freq``/``scaling_max_freq`` in
  kHz; ``gpu:cur``/``gpu:max`` the configured GPU clock files);
* ``s T V…`` per sample: the phone's ``date +%s%N``, then each file's first word, ``NA`` when
  it cannot be read (SELinux on retail phones): never a guess;
* ``p cpuN …`` per sample: ``/proc/stat``'s per-core jiffies, for load.

It stops when a stop file appears or after ``max_samples`` (so a lost harness cannot leave
it running). :func:`parse_log` reads the log; :func:`samples_for` turns it into one
:class:`~harness.seams.records.SensorSample` per processor per sample: temperature from the
processor's zone, frequency from its policies (the highest current one) or the GPU file,
load from its cores' jiffies since the previous sample, *throttled* when a policy's
``scaling_max_freq`` is below its ``cpuinfo_max_freq``.
"""

from __future__ import annotations

import posixpath
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from harness.seams.records import SensorSample

#: /proc/stat columns counted as idle (idle, iowait) among the first eight (user..steal)
_IDLE, _COLUMNS = (3, 4), 8


@dataclass(frozen=True, slots=True)
class ProcessorSensors:
    """Which readings belong to one processor."""

    name: str
    zone: str = ""
    policies: tuple[int, ...] = ()
    gpu: bool = False


@dataclass(frozen=True, slots=True)
class SensorPlan:
    """The files the loop reads, and how they map to processors."""

    processors: tuple[ProcessorSensors, ...]
    #: (key, phone path), in column order
    files: tuple[tuple[str, str], ...]
    #: policy -> its cores, and its cpuinfo_max_freq (kHz)
    cores: Mapping[int, tuple[int, ...]] = field(default_factory=dict)
    max_khz: Mapping[int, int] = field(default_factory=dict)
    gpu_unit_hz: float = 1.0


@dataclass(frozen=True, slots=True)
class LoopSample:
    phone_ns: int
    values: Mapping[str, float | None]
    #: core -> (busy, total) jiffies
    jiffies: dict[int, tuple[int, int]]


def loop_script(plan: SensorPlan, log: str, stop: str, interval_ms: float, max_samples: int
                ) -> str:
    paths = " ".join(shlex.quote(p) for _, p in plan.files)
    header = " ".join(k for k, _ in plan.files)
    return f"""log={shlex.quote(log)}; stop={shlex.quote(stop)}; n=0
echo "h {header}" > "$log"
while [ ! -e "$stop" ] && [ $n -lt {max_samples} ]; do
  line="s $(date +%s%N)"
  for f in {paths}; do
    v=; {{ read -r v _ < "$f" || [ -n "$v" ]; }} 2>/dev/null || v=NA
    line="$line ${{v:-NA}}"
  done
  echo "$line" >> "$log"
  while read -r c rest; do
    case $c in cpu[0-9]*) echo "p $c $rest";; esac
  done < /proc/stat >> "$log"
  n=$((n+1)); sleep {interval_ms / 1000:g}
done"""


def start_command(script: str, log: str, stop: str) -> str:
    """Start the loop in the background, detached from the adb shell; prints its pid."""
    folder = shlex.quote(posixpath.dirname(log))
    return (f"mkdir -p {folder} && rm -f {shlex.quote(log)} {shlex.quote(stop)} && "
            f"{{ nohup sh -c {shlex.quote(script)} > /dev/null 2>&1 & echo $!; }}")


def stop_command(stop: str, pid: int, interval_ms: float) -> str:
    """Ask the loop to stop, wait for it a few intervals, then end it."""
    waits = " ".join(["1"] * 10)
    return (f"touch {shlex.quote(stop)}; for i in {waits}; do kill -0 {pid} 2>/dev/null || "
            f"exit 0; sleep {max(interval_ms / 1000, 0.05):g}; done; kill {pid} 2>/dev/null; "
            f"true")


def parse_log(text: str) -> list[LoopSample]:
    """The loop's samples, in order; a line cut short (the loop killed) is dropped."""
    keys: list[str] = []
    samples: list[LoopSample] = []
    for line in text.splitlines():
        tag, _, rest = line.partition(" ")
        if tag == "h":
            keys = rest.split()
        elif tag == "s":
            sample = _sample(keys, rest.split())
            if sample:
                samples.append(sample)
        elif tag == "p" and samples:
            _add_jiffies(samples[-1], rest.split())
    return samples


def _sample(keys: Sequence[str], words: Sequence[str]) -> LoopSample | None:
    if len(words) != len(keys) + 1 or not words[0].isdigit():
        return None
    values = {k: _number(v) for k, v in zip(keys, words[1:], strict=True)}
    return LoopSample(int(words[0]), values, {})


def _number(word: str) -> float | None:
    try:
        return float(word)
    except ValueError:
        return None


def _add_jiffies(sample: LoopSample, words: Sequence[str]) -> None:
    if not words or not words[0][3:].isdigit() or len(words) < 1 + _COLUMNS:
        return
    counts = [int(w) for w in words[1:1 + _COLUMNS] if w.isdigit()]
    if len(counts) == _COLUMNS:
        idle = sum(counts[i] for i in _IDLE)
        total = sum(counts)
        sample.jiffies[int(words[0][3:])] = (total - idle, total)


def samples_for(plan: SensorPlan, loop: Sequence[LoopSample],
                to_run_ns: Callable[[int], int]) -> list[SensorSample]:
    """One SensorSample per processor per loop sample (``to_run_ns``: phone ns -> run ns)."""
    out: list[SensorSample] = []
    for prev, cur in zip([None, *loop[:-1]], loop, strict=True):
        out += [_reading(plan, p, to_run_ns(cur.phone_ns), prev, cur) for p in plan.processors]
    return out


def _reading(plan: SensorPlan, proc: ProcessorSensors, t_ns: int, prev: LoopSample | None,
             cur: LoopSample) -> SensorSample:
    if proc.gpu:
        freq, top = (_scaled(cur.values.get(k), plan.gpu_unit_hz) for k in ("gpu:cur", "gpu:max"))
        load, throttled = None, None
    else:
        freq, top = _cpu_freqs(plan, proc, cur)
        load = _load(plan, proc, prev, cur)
        throttled = _throttled(plan, proc, cur)
    temp = cur.values.get(f"zone:{proc.zone}") if proc.zone else None
    return SensorSample(proc.name, t_ns, None if temp is None else temp / 1000.0, freq, top,
                        load, None, throttled)


def _scaled(value: float | None, unit: float) -> float | None:
    return None if value is None else value * unit


def _cpu_freqs(plan: SensorPlan, proc: ProcessorSensors, cur: LoopSample
               ) -> tuple[float | None, float | None]:
    freqs = [cur.values.get(f"cur:{p}") for p in proc.policies]
    known = [f for f in freqs if f is not None]
    tops = [plan.max_khz[p] for p in proc.policies if p in plan.max_khz]
    top = max(tops) * 1e3 if tops else None
    return (max(known) * 1e3 if known else None), top


def _load(plan: SensorPlan, proc: ProcessorSensors, prev: LoopSample | None, cur: LoopSample
          ) -> float | None:
    cores = [c for p in proc.policies for c in plan.cores.get(p, ())]
    if prev is None or not cores or any(c not in cur.jiffies or c not in prev.jiffies
                                        for c in cores):
        return None
    busy = sum(cur.jiffies[c][0] - prev.jiffies[c][0] for c in cores)
    total = sum(cur.jiffies[c][1] - prev.jiffies[c][1] for c in cores)
    return min(1.0, max(0.0, busy / total)) if total > 0 else None


def _throttled(plan: SensorPlan, proc: ProcessorSensors, cur: LoopSample) -> bool | None:
    caps = [(cur.values.get(f"cap:{p}"), plan.max_khz.get(p)) for p in proc.policies]
    known = [(cap, top) for cap, top in caps if cap is not None and top is not None]
    return any(cap < top for cap, top in known) if known else None


def availability(loop: Sequence[LoopSample]) -> dict[str, float]:
    """Key -> share of samples in which it could be read (0.0: never: unavailable)."""
    if not loop:
        return {}
    keys = loop[0].values.keys()
    return {k: sum(s.values.get(k) is not None for s in loop) / len(loop) for k in keys}
