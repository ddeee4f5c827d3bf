"""The recorder: a policy wrapped so that every call it receives is written to a trace.

:class:`Recorder` is itself a :class:`~harness.seams.policy.Policy`: it passes every call
through and writes what the wrapped policy read and answered. The queue is handed to the
policy through :class:`ReadQueue`, which notes how far the policy read it (a prefix, its
length, its kind heads), so a trace holds exactly the jobs the decision could depend on and
the runtime's queue is walked no further than without the recorder.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping, Sequence
from enum import Enum
from pathlib import Path
from typing import IO, Any, overload

from harness.replay import trace
from harness.seams.graph import ModelGraph
from harness.seams.plan import ModelPlan, Processor, Subgraph
from harness.seams.policy import Policy
from harness.seams.records import Completion
from harness.seams.view import Decision, JobView, SchedulerView


class ReadQueue(Sequence[JobView]):
    """A queue passed through, noting the jobs read: the longest prefix and the heads."""

    def __init__(self, queue: Sequence[JobView]) -> None:
        self._queue = queue
        self.prefix: list[JobView] = []
        self.heads_read: tuple[JobView, ...] | None = None

    def _seen(self, k: int, job: JobView) -> JobView:
        if k == len(self.prefix):
            self.prefix.append(job)
        return job

    def __len__(self) -> int:
        return len(self._queue)

    def __iter__(self) -> Iterator[JobView]:
        for k, job in enumerate(self._queue):
            yield self._seen(k, job)

    @overload
    def __getitem__(self, index: int) -> JobView: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[JobView]: ...

    def __getitem__(self, index: int | slice) -> JobView | Sequence[JobView]:
        if isinstance(index, slice):
            if index.start in (None, 0) and index.step in (None, 1):
                got = self._queue[index]  # (the head, walked once as the policy asked)
                for k, job in enumerate(got):
                    self._seen(k, job)
                return got
            return tuple(list(self)[index])
        k = index + len(self._queue) if index < 0 else index
        if not 0 <= k < len(self._queue):
            raise IndexError(index)
        head = self._queue[:k + 1]
        for j, job in enumerate(head):
            self._seen(j, job)
        return head[k]

    def heads(self) -> tuple[JobView, ...]:
        self.heads_read = tuple(self._queue.heads())  # type: ignore[attr-defined]
        return self.heads_read


def conf_obj(conf: Any) -> dict[str, Any]:
    """A policy's config as plain JSON values (enums by name)."""
    if conf is None:
        return {}
    is_instance = dataclasses.is_dataclass(conf) and not isinstance(conf, type)
    raw = dataclasses.asdict(conf) if is_instance else dict(conf)
    return {k: _plain(v) for k, v in raw.items()}


def _plain(value: Any) -> Any:
    if isinstance(value, Enum):
        return value.name
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


class Recorder:
    """``policy`` with every call written to ``out`` (a trace, :mod:`harness.replay.trace`).
    The header is written at :meth:`prepare`, once the plans and profile are known."""

    def __init__(self, policy: Policy, out: IO[str], baseline: str | None = None,
                 processors: Sequence[Processor] = ()) -> None:
        self.policy = policy
        self.name = policy.name
        self.reinsert_front = policy.reinsert_front
        self._out = out
        self._baseline = baseline or policy.name
        #: the device's processors (from :meth:`plan`, or given)
        self._processors: tuple[Processor, ...] = tuple(processors)
        self._calls = 0

    def __getattr__(self, attr: str) -> Any:  # (the wrapped policy's own members)
        return getattr(self.policy, attr)

    def plan(self, graph: ModelGraph, processors: Sequence[Processor],
             unsupported: Mapping[str, frozenset[int]]) -> ModelPlan:
        self._processors = tuple(processors)
        return self.policy.plan(graph, processors, unsupported)

    def prepare(self, plans: Mapping[str, ModelPlan], profile: Mapping[tuple[str, int], int]
                ) -> None:
        self.policy.prepare(plans, profile)
        self.write_header(plans, profile)

    def write_header(self, plans: Mapping[str, ModelPlan],
                     profile: Mapping[tuple[str, int], int]) -> None:
        policy = self.policy
        cls = type(policy)
        facts = getattr(policy, "trace_facts", None)
        self._line({"trace": "decisions", "version": trace.VERSION, "baseline": self._baseline,
                    "name": policy.name, "policy": f"{cls.__module__}.{cls.__qualname__}",
                    "reinsert_front": policy.reinsert_front,
                    "conf": conf_obj(getattr(policy, "conf", None)),
                    "processors": [{"name": p.name, "kind": p.kind.value}
                                   for p in self._processors],
                    "plans": [trace.plan_obj(p) for p in plans.values()],
                    "profile": trace.profile_rows(profile),
                    "facts": facts() if facts is not None else {}})

    def schedule(self, view: SchedulerView) -> Decision:
        queue = ReadQueue(view.queue)
        decision = self.policy.schedule(SchedulerView(view.now_ns, queue, view.processors,
                                                      view.plans))
        call: dict[str, Any] = {"call": "schedule", "i": self._calls, "now_ns": view.now_ns,
                                "queue": [trace.job_row(j) for j in queue.prefix],
                                "queue_len": len(queue)}
        if queue.heads_read is not None:
            call["heads"] = [trace.job_row(j) for j in queue.heads_read]
        call["processors"] = [trace.processor_obj(p) for p in view.processors]
        call["decision"] = trace.decision_obj(decision)
        self._line(call)
        return decision

    def observe(self, completion: Completion) -> None:
        self.policy.observe(completion)
        self._line({"call": "observe", "i": self._calls, **trace.completion_obj(completion)})

    def expected_ns(self, subgraph: Subgraph) -> int:
        return self.policy.expected_ns(subgraph)

    def close(self) -> None:
        self._out.close()

    def _line(self, obj: Mapping[str, Any]) -> None:
        if "call" in obj:
            self._calls += 1
        self._out.write(trace.dumps(obj) + "\n")


def record_to(policy: Policy, path: Path, baseline: str | None = None) -> Recorder:
    """A recorder of ``policy`` writing to ``path`` (line-buffered: a cut run keeps its
    calls so far)."""
    return Recorder(policy, path.open("w", buffering=1), baseline)
