"""Replay a decision trace through the Python policy it was recorded from.

The policy is rebuilt from the header: the class it names (imported by its path: the harness
names no concrete policy), its ``Conf`` filled from the recorded config, and its
``from_trace(conf, header)``; then prepared with the recorded plans and profile. Each
``schedule`` call gets the recorded view, its queue a :class:`TraceQueue` holding the jobs
the recorded policy read (reading further is :class:`TraceIncomplete`); each ``observe`` the
recorded completion. The first decision that differs from the recorded one is a
:class:`Mismatch`; none means the trace held everything the decisions depend on.

A trace that cannot be read is one :class:`~harness.replay.trace.TraceError` naming the line
(a line that is not JSON, or a call that does not fit the format); a trace whose last line
was cut by a killed run is replayed up to the cut, then :class:`TraceCut` says so.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, overload

from omegaconf import OmegaConf

from harness.replay import trace
from harness.seams.errors import UserError
from harness.seams.plan import ModelPlan, Processor
from harness.seams.policy import Policy
from harness.seams.view import JobView, ProcessorView, SchedulerView


class TraceIncomplete(Exception):
    """The policy read a job the trace does not hold."""


class TraceCut(Exception):
    """Every whole line replayed clean; the last one was cut (a killed run's trace)."""

    def __init__(self, decisions: int, cut: str) -> None:
        super().__init__(f"{decisions} decisions replay clean before a cut last line ({cut})")
        self.decisions = decisions


#: what a call that does not fit the trace format raises while it is read and replayed
MALFORMED = (KeyError, TypeError, IndexError, ValueError, AttributeError, StopIteration,
             ArithmeticError)


class TraceQueue(Sequence[JobView]):
    """The recorded queue: its length, the jobs read (a prefix) and, if read, its heads."""

    def __init__(self, prefix: Sequence[JobView], length: int,
                 heads: Sequence[JobView] | None) -> None:
        self._prefix, self._length, self._heads = tuple(prefix), length, heads

    def __len__(self) -> int:
        return self._length

    def _at(self, k: int) -> JobView:
        if k >= len(self._prefix):
            raise TraceIncomplete(f"queue position {k} was not read when recorded "
                                  f"({len(self._prefix)} were)")
        return self._prefix[k]

    def __iter__(self) -> Iterator[JobView]:
        for k in range(self._length):
            yield self._at(k)

    @overload
    def __getitem__(self, index: int) -> JobView: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[JobView, ...]: ...

    def __getitem__(self, index: int | slice) -> JobView | tuple[JobView, ...]:
        if isinstance(index, slice):
            return tuple(self._at(k) for k in range(*index.indices(self._length)))
        k = index + self._length if index < 0 else index
        if not 0 <= k < self._length:
            raise IndexError(index)
        return self._at(k)

    def heads(self) -> tuple[JobView, ...]:
        if self._heads is None:
            raise TraceIncomplete("the queue's heads were not read when recorded")
        return tuple(self._heads)


@dataclass(frozen=True)
class Mismatch:
    """The first call whose decision differs from the recorded one."""

    call: int
    now_ns: int
    expected: dict[str, Any]
    got: dict[str, Any]

    def __str__(self) -> str:
        return (f"call {self.call} (schedule at now_ns={self.now_ns}): expected "
                f"{trace.dumps(self.expected)}, got {trace.dumps(self.got)}")


def rebuild(header: Mapping[str, Any]) -> Policy:
    """The recorded policy, built anew from the header and prepared."""
    module, _, name = header["policy"].rpartition(".")
    try:
        cls = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as e:
        raise UserError(f"trace names policy {header['policy']!r}, which cannot be imported: "
                        f"{e}") from e
    if not hasattr(cls, "from_trace"):
        raise UserError(f"policy {header['policy']} cannot be rebuilt from a trace "
                        "(no from_trace)")
    conf = OmegaConf.to_object(OmegaConf.merge(OmegaConf.structured(cls.Conf), header["conf"]))
    policy: Policy = cls.from_trace(conf, header)
    plans = plans_of(header)
    policy.prepare(plans, trace.profile_of(header["profile"]))
    return policy


def plans_of(header: Mapping[str, Any]) -> dict[str, ModelPlan]:
    return {p["model"]: trace.plan_of(p) for p in header["plans"]}


def view_of(call: Mapping[str, Any], processors: Sequence[Processor],
            plans: Mapping[str, ModelPlan]) -> SchedulerView:
    heads = call.get("heads")
    queue = TraceQueue([trace.job_of(r) for r in call["queue"]], call["queue_len"],
                       None if heads is None else [trace.job_of(r) for r in heads])
    views = tuple(ProcessorView(p, v["idle"], v["available_ns"], v["queued"],
                                trace.state_of(v["state"]))
                  for p, v in zip(processors, call["processors"], strict=True))
    return SchedulerView(call["now_ns"], queue, views, plans)


def replay(path: Path) -> tuple[int, Mismatch | None]:
    """(decisions replayed, the first mismatch or None); :class:`TraceCut` when every
    whole line replayed clean and the last one was cut."""
    calls = trace.lines(path)
    header = next(calls, None)
    if header is None or header.get("trace") != "decisions":
        raise UserError(f"{path} is not a decision trace (no header line)")
    try:
        policy = rebuild(header)
        plans = plans_of(header)
        processors = trace.processors_of(header)
    except UserError:
        raise
    except Exception as e:  # (omegaconf's errors too: the header's config is any JSON)
        raise trace.TraceError(f"line 1: the header does not fit the format: "
                               f"{type(e).__name__}: {e}") from None
    decisions = 0
    for call in calls:
        try:
            got = _replay_call(call, policy, processors, plans)
            if got is None:
                continue
            decisions += 1
            if got != call["decision"]:
                return decisions, Mismatch(call["i"], call["now_ns"], call["decision"], got)
        except MALFORMED as e:
            raise trace.TraceError(f"line {calls.number}: the call does not fit the format: "
                                   f"{type(e).__name__}: {e}") from None
    if calls.cut is not None:
        raise TraceCut(decisions, calls.cut)
    return decisions, None


def _replay_call(call: Mapping[str, Any], policy: Policy, processors: Sequence[Processor],
                 plans: Mapping[str, ModelPlan]) -> dict[str, Any] | None:
    """The decision a schedule call makes now (None for an observe call)."""
    if call["call"] == "observe":
        policy.observe(trace.completion_of(call, plans))
        return None
    try:
        return trace.decision_obj(policy.schedule(view_of(call, processors, plans)))
    except TraceIncomplete as e:
        raise TraceIncomplete(f"call {call['i']}: {e}") from e
