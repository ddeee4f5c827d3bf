"""ADMS as a :class:`~harness.seams.policy.Policy`: tuned analysis plus the priority scheduler.

* **Analysis** — each model is cut by :func:`adms.analyzer.analyze` with merged subgraphs at
  a window size chosen per model and device by :class:`adms.tuner.WindowTuner` (from
  ``window_candidates``, or the fixed ``window_size`` when it is > 0).
* **Estimates** — the device profile seeds a latency estimator that follows a moving average
  of measured latencies (Band's estimator with ``ema_alpha``, 0.1 by default, Band's
  default: ADMS is built on Band's runtime). A model's cached remaining-latency tables are
  re-derived when one of its subgraphs' estimates has moved more than ``estimate_refresh``
  from its value at the model's last re-derivation (so slow drift re-derives too).
* **Scheduling** — :class:`adms.scheduler.AdmsScheduler`: the first ``loop_call_size`` jobs,
  idle processors by preference (cool, lightly loaded), eqs. (1)-(4); unfinished jobs return
  to the front of the queue.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from adms.analyzer import whole_model_plan
from adms.config import AdmsConf
from adms.mix import Scenario, make_tuner
from adms.scheduler import AdmsScheduler
from adms.tuner import Tuned
from baselines.band.estimator import LatencyEstimator
from harness.models.bound import ModelWork, frame_rate_bound
from harness.seams.fields import check
from harness.seams.graph import ModelGraph
from harness.seams.plan import ModelPlan, Processor, Subgraph
from harness.seams.policy import PolicyContext, ProfileFn, Runner
from harness.seams.records import Completion
from harness.seams.view import Decision, SchedulerView


def _no_profile(plan: ModelPlan, subgraph: Subgraph) -> int:
    """No device to profile on (a policy rebuilt from a trace never plans)."""
    raise AssertionError("a policy rebuilt from a decision trace does not plan")


class AdmsPolicy:
    """ADMS: window-tuned analysis and state-aware multi-factor scheduling."""

    Conf: ClassVar[type] = AdmsConf
    #: only the runtime runs it (a phone has no executor for it yet)
    runner: ClassVar[Runner] = Runner.RUNTIME
    reinsert_front = True

    def __init__(
        self,
        conf: AdmsConf,
        profile_fn: ProfileFn,
        device_name: str,
        cache_dir: Path | None = None,
        name: str = "adms",
        handoff_fn: ProfileFn | None = None,
        costs_key: str = "",
        scenario: Scenario | None = None,
    ) -> None:
        check(conf, name)  # its fields' declared ranges (built from Python, not a config too)
        self.conf = conf
        self.name = name
        windows = [conf.window_size] if conf.window_size > 0 else list(conf.window_candidates)
        self.tuner = make_tuner(conf, windows, profile_fn, device_name, cache_dir,
                                handoff_fn, costs_key, scenario)
        self.estimator = LatencyEstimator(conf.ema_alpha)
        #: the conf's refresh threshold (read at every completion; the conf is not compiled)
        self._refresh: float = conf.estimate_refresh
        self.scheduler = AdmsScheduler(conf, self.estimator, conf.implicit_slo_factor)
        #: model -> subgraph key -> its estimate when the model's tables were last derived
        #: (a key is added at its first update after that: the estimate it had until then)
        self._derived_at: dict[str, dict[tuple[str, int], int]] = {}
        #: the tuner's choice per model (for reports)
        self.tuned: dict[str, Tuned] = {}
        #: ``lp_split``: the LP's flow the last :meth:`prepare` split by (model -> subgraph
        #: index -> frames per second), or the one to use instead of solving (a replay)
        self.flow: dict[str, dict[int, float]] | None = None
        self._given_flow = False
        #: (model, subgraph index) -> the device's handoff into it (nonzero ones), as the
        #: tuner prices chains; read from a trace's header in a replay
        self.handoff: dict[tuple[str, int], int] = {}
        self._given_handoff = False

    @classmethod
    def check_device(cls, name: str, kind: str) -> None:
        """Every device kind runs it (written out, not inherited: a compiled class)."""

    @classmethod
    def from_config(cls, conf: AdmsConf, context: PolicyContext) -> AdmsPolicy:
        """Its window tuner prices plans as the device charges them (profiles and handoffs)
        and caches its choices per device and per the device's constants."""
        facts = json.dumps(context.device.facts, sort_keys=True, default=str)
        return cls(conf, context.profile, context.device.name, context.cache_dir,
                   name=context.name, handoff_fn=context.handoff,
                   costs_key=hashlib.sha256(facts.encode()).hexdigest()[:12],
                   scenario=(context.models, context.op_support))

    @classmethod
    def from_trace(cls, conf: AdmsConf, header: Mapping[str, Any]) -> AdmsPolicy:
        """As recorded in a decision trace's header (``harness.replay``): no tuner work (the
        plans are the header's), the LP's flow as recorded (:meth:`trace_facts`)."""
        policy = cls(conf, _no_profile, "replay", name=str(header["name"]))
        handoff = header.get("facts", {}).get("handoff")
        if handoff is not None:
            policy.handoff = {(m, int(i)): int(ns) for m, rows in handoff.items()
                              for i, ns in rows}
            policy._given_handoff = True
        flow = header.get("facts", {}).get("lp_flow")
        if flow is not None:
            policy.flow = {m: {int(i): float(f) for i, f in by_index}
                           for m, by_index in flow.items()}
            policy._given_flow = True
        return policy

    def trace_facts(self) -> dict[str, Any]:
        """What a decision trace's header needs beyond the plans and profile, which a replay
        cannot derive again without the device: each subgraph's handoff (the nonzero ones)
        and the LP's flow (``lp_split``)."""
        facts: dict[str, Any] = {}
        if self.handoff:
            by_model: dict[str, list[list[int]]] = {}
            for (m, i), ns in sorted(self.handoff.items()):
                by_model.setdefault(m, []).append([i, ns])
            facts["handoff"] = by_model
        if self.flow is not None:
            facts["lp_flow"] = {m: [[i, f] for i, f in by_index.items()]
                                for m, by_index in self.flow.items()}
        return facts

    def plan(
        self,
        graph: ModelGraph,
        processors: Sequence[Processor],
        unsupported: Mapping[str, frozenset[int]],
    ) -> ModelPlan:
        if not self.conf.partition:
            return whole_model_plan(graph, processors, unsupported)
        tuned = self.tuner.tune(graph, processors, unsupported)
        self.tuned[graph.name] = tuned
        return tuned.plan

    def prepare(self, plans: Mapping[str, ModelPlan], profile: Mapping[tuple[str, int], int]
                ) -> None:
        self.estimator.seed(profile)
        self._derived_at.clear()
        if not self._given_handoff:
            self.handoff = self.handoffs(plans)
        self.scheduler.set_handoffs(self.handoff)
        for model in plans:
            self.scheduler.forget(model)
        if self.conf.lp_split:
            if not self._given_flow:
                self.flow = self.lp_flow(plans, profile)
            assert self.flow is not None
            self.scheduler.set_split(plans, self.flow)

    def handoffs(self, plans: Mapping[str, ModelPlan]) -> dict[tuple[str, int], int]:
        """(model, subgraph index) -> the device's handoff into the subgraph when the one
        before ran elsewhere (the nonzero ones; none without a device that charges them)."""
        fn = self.tuner.handoff_fn
        if fn is None:
            return {}
        out: dict[tuple[str, int], int] = {}
        for plan in plans.values():
            for sg in plan.subgraphs:
                ns = int(fn(plan, sg)) if sg.first_unit > 0 else 0
                if ns:
                    out[sg.key] = ns
        return out

    def lp_flow(self, plans: Mapping[str, ModelPlan], profile: Mapping[tuple[str, int], int]
                ) -> dict[str, dict[int, float]]:
        """``lp_split``: model -> subgraph index -> frames per second through it at the
        optimum of the frame-rate bound over these plans, priced by ``profile`` and the
        device's handoffs (one frame: one inference of every model)."""
        positive = {key: max(1, int(ns)) for key, ns in profile.items()}
        work = {model: ModelWork.of(plan, positive, self.tuner.handoff_fn)
                for model, plan in plans.items()}
        processors = sorted({sg.processor for plan in plans.values() for sg in plan.subgraphs})
        bound = frame_rate_bound(processors, work)
        return {model: {i: f for (_, i), f in flow.items()} for model, flow in bound.flow.items()}

    def schedule(self, view: SchedulerView) -> Decision:
        return self.scheduler.schedule(view)

    def expected_ns(self, subgraph: Subgraph) -> int:
        return self.estimator.expected(subgraph.key)

    def observe(self, completion: Completion) -> None:
        """Take a measured latency into the estimate; re-derive the model's tables when the
        estimate has moved more than ``estimate_refresh`` since they were last derived."""
        if completion.ok:
            sg = completion.subgraph
            key = sg.key
            before = self.estimator.expected(key)
            after = self.estimator.update(key, completion.latency_ns)
            derived = self._derived_at.setdefault(sg.model, {})
            at = derived.setdefault(key, before)
            refresh = after is not None and abs(after - at) > self._refresh * at
            if refresh:
                del self._derived_at[sg.model]
            self.scheduler.update(sg, refresh=refresh, ns=after)
