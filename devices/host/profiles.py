"""A persistent on-disk cache of host subgraph profiles (median latency of a slice alone).

Profiling a subgraph means building its interpreter, ``host.warmup_runs`` untimed runs and
``host.profile_runs`` timed ones (:func:`time_slice`, on the slice's worker). A scenario's
baselines profile many of the same subgraphs (Band's and ADMS's plans share most of theirs;
ADMS's window tuner profiles every candidate plan), and every run profiles them again. This
cache keeps each measurement on disk so that it is made once per machine, and every baseline
of a run starts from the same numbers.

An entry is keyed by everything that changes the measurement:

* the model file's sha256 and the sorted op set (the slice);
* the processor's kernel, interpreter threads and pinned cores (not its name);
* ``warmup_runs``, ``profile_runs`` and the input ``seed``;
* the LiteRT version and the machine's CPU model.

**Only clean measurements are kept.** This machine may be shared: another process on a
worker's core stretches every timed run, and a cached number would keep that error for good.
A single-threaded interpreter runs on the worker thread itself, so the thread's CPU time over
the wall time of the timed runs (:attr:`Timing.cpu_share`) says how much of the time it
actually ran: ~1.0 alone, ~0.5 sharing its core with one busy process. A measurement with a
share below :data:`CLEAN_CPU_SHARE` is retried once by the device and, if still contended,
used for the current run only and never stored. Interpreters with more threads are not
judged (their helper threads' time is not visible per thread) and are stored as measured.

Entries live under ``<root>/<model sha256[:16]>/<op set hash[:16]>.<key hash[:16]>.json``
(``root`` is ``<zoo cache>/slices/profiles``), one file each, written atomically, so that
concurrent runs never see half an entry; each holds its full key, the timed samples and when
it was measured. Turn the cache off with ``device.host.profile_cache=false`` (every
subgraph is then measured afresh, and the cache is left alone); delete the folder to forget.
"""

from __future__ import annotations

import hashlib
import json
import statistics
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from devices.host.config import HostSettingsConf
from devices.host.slicecache import write_atomic
from devices.host.spec import HostProcessorSpec
from devices.host.workers import SliceRunner, random_input
from harness.models.tflite_io import FileHashes

#: bump when the meaning of a cached number changes
PROFILE_FORMAT = 1
#: a judged measurement is clean when its thread ran at least this share of the wall time
CLEAN_CPU_SHARE = 0.9


@dataclass(frozen=True, slots=True)
class Timing:
    """One profile measurement of a slice alone."""

    #: median of the timed runs, ns
    median_ns: int
    #: the timed runs, ns
    samples_ns: tuple[int, ...]
    #: worker-thread CPU time / wall time over the timed runs; ``None`` = not judged
    #: (the interpreter runs helper threads)
    cpu_share: float | None

    @property
    def clean(self) -> bool:
        """Not visibly slowed down by other work on the worker's cores."""
        return self.cpu_share is None or self.cpu_share >= CLEAN_CPU_SHARE


def time_slice(runner: SliceRunner, settings: HostSettingsConf, judged: bool) -> Timing:
    """The slice alone (call on its worker): ``warmup_runs`` untimed runs, then
    ``profile_runs`` timed ones; their median, and the share of their wall time the
    worker thread ran (if ``judged``: for single-threaded interpreters only)."""
    rng = np.random.default_rng(settings.seed)
    tensors = {t: random_input(*spec, rng) for t, spec in runner.input_specs.items()}
    inputs = dict(tensors)
    samples, cpu_ns = [], 0
    for i in range(settings.warmup_runs + settings.profile_runs):
        t0, c0 = time.perf_counter_ns(), time.thread_time_ns()
        runner.run(tensors)
        if i >= settings.warmup_runs:
            samples.append(time.perf_counter_ns() - t0)
            cpu_ns += time.thread_time_ns() - c0
        tensors = dict(inputs)
    share = min(1.0, cpu_ns / max(1, sum(samples))) if judged else None
    return Timing(max(1, int(statistics.median(samples))), tuple(samples), share)


def time_copy_in(runner: SliceRunner, runs: int, seed: int) -> tuple[int, int, int]:
    """(median ns, bytes, tensors) of copying the slice's inputs into its interpreter, as
    :meth:`SliceRunner.run` does before it invokes (call on its worker)."""
    rng = np.random.default_rng(seed)
    tensors = {t: random_input(*spec, rng) for t, spec in runner.input_specs.items()}
    samples = []
    for _ in range(max(1, runs)):
        t0 = time.perf_counter_ns()
        runner.copy_in(tensors)
        samples.append(time.perf_counter_ns() - t0)
    nbytes = sum(int(a.nbytes) for a in tensors.values())
    return max(1, int(statistics.median(samples))), nbytes, len(tensors)


class ProfileCache:
    """Median subgraph latencies on disk; see the module docstring."""

    def __init__(self, root: Path, settings: HostSettingsConf, machine: Mapping[str, Any]) -> None:
        self.root = Path(root)
        self.settings = settings
        self.machine = dict(machine)
        self._hashes = FileHashes()
        #: how many lookups were answered from disk, and how many were measured and stored
        self.hits = 0
        self.stores = 0

    def get(self, model_path: Path, ops: frozenset[int], spec: HostProcessorSpec) -> int | None:
        """The cached median in ns, or ``None`` (absent, unreadable or another key)."""
        path, key = self._entry(model_path, ops, spec)
        try:
            entry = json.loads(path.read_text())
        except (OSError, ValueError):
            return None
        if not isinstance(entry, dict) or entry.get("key") != key:
            return None
        median = entry.get("median_ns")
        if not isinstance(median, int) or median < 1:
            return None
        self.hits += 1
        return median

    def put(self, model_path: Path, ops: frozenset[int], spec: HostProcessorSpec,
            timing: Timing) -> None:
        """Store a clean measurement (replacing any entry with the same key); a contended
        one is not stored."""
        if not timing.clean:
            return
        path, key = self._entry(model_path, ops, spec)
        entry = {"key": key, "median_ns": int(timing.median_ns),
                 "samples_ns": [int(s) for s in timing.samples_ns],
                 "cpu_share": timing.cpu_share,
                 "measured_at": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
        write_atomic(path, json.dumps(entry).encode())
        self.stores += 1

    def _entry(self, model_path: Path, ops: frozenset[int],
               spec: HostProcessorSpec) -> tuple[Path, dict[str, Any]]:
        model_sha = self._hashes.sha256(Path(model_path))
        op_list = sorted(ops)
        key = {
            "format": PROFILE_FORMAT, "model_sha256": model_sha, "ops": op_list,
            "kernel": spec.kernel.name, "threads": spec.threads, "cores": list(spec.cores),
            "warmup_runs": self.settings.warmup_runs, "profile_runs": self.settings.profile_runs,
            "seed": self.settings.seed, **self.machine,
        }
        ops_hash = _digest(",".join(map(str, op_list)))
        key_hash = _digest(json.dumps(key, sort_keys=True))
        return self.root / model_sha[:16] / f"{ops_hash[:16]}.{key_hash[:16]}.json", key


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()
