"""Job bookkeeping of the ``host`` device: the tensors a running job holds, and when to drop them.

**Tensors flow for real.** Per job the device keeps the tensors produced so far, in the
original model's tensor numbering (:class:`Job`); a slice reads its inputs from them and
writes its outputs back. After each subgraph the device drops the tensors that no op still to
run reads: :class:`Liveness` knows which ops of a model read each tensor, and the job knows
which ops it has run, so this holds for any plan (any order, any op sets). When a job has run
every op, only its model outputs are left; :class:`JobTable` moves them to a small table of
the last ``host.keep_outputs`` finished jobs, readable through :meth:`JobTable.outputs`.

A job's model inputs come from :class:`InputFrames`: request ``r`` gets frame
``r % host.input_frames``, drawn once (seed ``host.seed``, frame, tensor index) and kept, so
that drawing random numbers is not counted as a processor's work.

Workers of different processors run subgraphs of different jobs at once, so the table of
jobs (and of finished outputs) is guarded by a lock; a job's tensors are read and written by
the worker running its current subgraph.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np

from devices.host.workers import SliceRunner, request_input
from harness.seams.graph import ModelGraph
from harness.seams.records import Request

#: tensors of one job: original tensor index -> array
Tensors = dict[int, np.ndarray]


@dataclass(slots=True)
class Job:
    """What the device keeps of a running job: its live tensors and the ops it has run."""

    tensors: Tensors = field(default_factory=dict)
    done: set[int] = field(default_factory=set)


@dataclass(frozen=True, slots=True)
class Liveness:
    """Which ops of a model read each tensor: a tensor is live while one of them is to run."""

    num_ops: int
    readers: Mapping[int, frozenset[int]]
    outputs: frozenset[int]

    @classmethod
    def of(cls, graph: ModelGraph) -> Liveness:
        readers: dict[int, set[int]] = {}
        for op in graph.ops:
            for t in op.inputs:
                readers.setdefault(t, set()).add(op.index)
        frozen = {t: frozenset(ops) for t, ops in readers.items()}
        return cls(graph.num_ops, frozen, frozenset(graph.outputs))

    def needed(self, tensor: int, done: set[int]) -> bool:
        return tensor in self.outputs or not self.readers.get(tensor, frozenset()) <= done


def drop_dead_tensors(job: Job, live: Liveness) -> None:
    """Delete the job's tensors that no op still to run reads (model outputs stay)."""
    for t in [t for t in job.tensors if not live.needed(t, job.done)]:
        del job.tensors[t]


class JobTable:
    """The running jobs, and the model outputs of the last ``keep_outputs`` finished ones."""

    def __init__(self, keep_outputs: int) -> None:
        self.keep_outputs = keep_outputs
        self._jobs: dict[int, Job] = {}
        self._finished: OrderedDict[int, Tensors] = OrderedDict()
        self._lock = threading.Lock()

    def job(self, job_id: int) -> Job:
        """The job's record, made on its first subgraph."""
        with self._lock:
            return self._jobs.setdefault(job_id, Job())

    def drop(self, job_id: int) -> None:
        """Forget a job (one of its subgraphs failed)."""
        with self._lock:
            self._jobs.pop(job_id, None)

    def retire(self, job_id: int, job: Job, ops: frozenset[int], live: Liveness) -> None:
        """Note ``ops`` as run and drop the tensors no op still to run reads; a finished job
        keeps its outputs."""
        job.done.update(ops)
        drop_dead_tensors(job, live)
        if len(job.done) == live.num_ops:
            self._finish(job_id)

    def _finish(self, job_id: int) -> None:
        with self._lock:
            self._finished[job_id] = self._jobs.pop(job_id).tensors
            while len(self._finished) > self.keep_outputs:
                self._finished.popitem(last=False)

    def outputs(self, job_id: int) -> dict[int, np.ndarray]:
        """Model outputs (original tensor index -> array) of a recently finished job."""
        with self._lock:
            if job_id not in self._finished:
                raise KeyError(f"job {job_id} has not finished or is no longer kept")
            return dict(self._finished[job_id])


class InputFrames:
    """The model input data of requests: frame ``request_id % frames``, made once."""

    def __init__(self, seed: int, frames: int) -> None:
        self.seed = seed
        self.frames = frames
        self._made: dict[tuple[str, int, int], np.ndarray] = {}

    def fill(
        self, tensors: Tensors, runner: SliceRunner, request: Request, model_inputs: Iterable[int]
    ) -> None:
        """Add the slice's inputs that are model inputs and not in ``tensors`` yet."""
        for t in runner.inputs:
            if t not in tensors and t in model_inputs:
                tensors[t] = self.frame(request, t, runner)

    def frame(self, request: Request, tensor: int, runner: SliceRunner) -> np.ndarray:
        """Input ``tensor`` of a request: frame ``request_id % frames``, made once."""
        key = (request.model, tensor, request.request_id % self.frames)
        if key not in self._made:
            shape, dtype = runner.input_specs[tensor]
            self._made[key] = request_input(self.seed, key[2], tensor, shape, dtype)
        return self._made[key]
