"""An upper bound on frames per second: the best the processors could do if work split freely.

A *frame* is one inference of every model of a scenario. Given the processors and, for each
model, one or more plans with each subgraph's latency when run alone (its profile), the bound
is the largest frame rate ``F`` the processors could sustain if every model's inferences could
be spread, in any fractions, over the chains of subgraphs its plans offer.

**Formulation.** For each model and plan, a flow network on unit boundaries, split by the
processor that ran the last subgraph: the *source* is unit 0; the inner node ``(u, q)`` means
"units ``0..u-1`` are done and the last subgraph ran on ``q``"; the *sink* is unit ``n``. A
subgraph ``s`` covering units ``i..j`` on processor ``p`` is an edge from every ``(i, q)`` (from
the source when ``i = 0``) to ``(j + 1, p)``, or to the sink when ``j + 1 = n``. The variable
``f[s, q]`` is inferences per second through ``s`` entered from ``q`` (one variable when
``i = 0``). The linear program::

    maximize    F
    subject to  inflow = outflow                      at every inner node of every plan
                sum of flows out of a model's plans' sources = F       for every model
                sum over p's edges of f[s, q] * work[s, q] <= capacity[p]   for every p
                f >= 0
    where       work[s, q] = (cost_ns[s] + (handoff_ns[s] if q != p else 0)) / 1e9  seconds

``handoff_ns[s]`` is the extra time ``s`` pays when its predecessor ran on another processor;
:func:`handoff_bytes` gives the bytes a caller turns into it: those of ``s``'s pure inputs that
unit ``i - 1`` produced. Every predecessor of ``s`` covers unit ``i - 1``, so those bytes move
whenever the predecessor ran elsewhere, whatever it was: charging only them never overcharges.

**Why it is an upper bound.** Take any schedule that completes ``F'`` frames per second in
steady state. Each of its inferences walks one chain of one plan, a source-to-sink path, so
the inferences per second through each (subgraph, entering processor) form a feasible flow
with value ``F'`` for every model. Each subgraph ran at least as long as alone (contention only
slows it down) plus at least its handoff when it was entered from elsewhere, and no processor
is busy more than its capacity, so the flow meets every capacity row: ``F' <= F``. The bound
ignores what makes real schedules slower: the fractions need not be integral, and there is no
queueing, no idle time waiting for a predecessor, no SLO and no drop. (Over a finite window a
measured rate can exceed it slightly, by work started before the window opened.)

**How it is solved: by chains (Dantzig-Wolfe column generation).** The network is a DAG, so
every flow is a sum of source-to-sink paths, *chains*, and every sum of chains is a flow: the
program above has the optimum of the *chain program* "maximize F: each model's chain rates sum
to F, each processor's busy time is at most its capacity", whose columns are chains, each
reduced to the seconds it puts on every processor. That program has one row per model and one
per processor. It is solved with a few chains, by ``scipy.optimize.linprog(method="highs")``;
its duals price the processors (``y[p] >= 0``: frames per second that one more busy second
per second on ``p`` would give) and the models (``lam[m]``); a chain of model ``m`` improves it
only if it costs less than ``lam[m]`` at those prices, so each round adds every model's
cheapest chain, found by a shortest path over the network
(:mod:`harness.models.plan_network`), until none improves. Any ``y >= 0`` also bounds the
optimum from above, ``F* <= capacity . y / sum_m cheapest_m(y)`` (``F`` frames per second need
``F * cheapest_m(y)`` priced seconds of each model), so rounds stop once that bound is within
``GAP`` of the chain program's ``F``, which is returned (exact to HiGHS's tolerances and
``GAP``). HiGHS solves the literal program too, but slowly on large plans: about 5 s for Band's
~38,000-subgraph EfficientNet-B4 plan on four processors, against about 0.5 s this way; the
tests check the two against each other.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from harness.models.plan_network import Path, PlanNetwork
from harness.seams.errors import UserError
from harness.seams.graph import ModelGraph
from harness.seams.plan import ModelPlan, Subgraph

#: rounds stop when the dual bound exceeds the chain program's F by at most this fraction
GAP = 1e-9
#: a safety stop; chains are finite and never added twice, so rounds end well before it
MAX_ROUNDS = 10_000


@dataclass(frozen=True, slots=True)
class ModelWork:
    """One model's plans and the time each subgraph takes."""

    #: one or more plans of the same model
    plans: tuple[ModelPlan, ...]
    #: (plan position, subgraph index) -> ns the subgraph takes alone; every subgraph needs one
    cost_ns: Mapping[tuple[int, int], int]
    #: (plan position, subgraph index) -> extra ns when the predecessor ran on another
    #: processor (see :func:`handoff_bytes`); missing = 0
    handoff_ns: Mapping[tuple[int, int], int] = field(default_factory=dict)

    @classmethod
    def of(cls, plan: ModelPlan, profile: Mapping[tuple[str, int], int],
           handoff: Callable[[ModelPlan, Subgraph], int] | None = None) -> ModelWork:
        """One plan, each subgraph priced by ``profile`` ((model, subgraph index) -> ns) and
        ``handoff`` (none: 0)."""
        return cls((plan,), {(0, sg.index): int(profile[(plan.model, sg.index)])
                             for sg in plan.subgraphs},
                   {} if handoff is None else
                   {(0, sg.index): int(handoff(plan, sg)) for sg in plan.subgraphs})


@dataclass(frozen=True, slots=True)
class Bound:
    """The optimum of the program, with where its time goes."""

    #: the largest sustainable frame rate, frames per second
    frames_per_s: float
    #: processor -> busy seconds per second at the optimum (at most its capacity)
    busy: Mapping[str, float]
    #: model -> processor -> fraction of that model's per-frame busy time spent there
    share: Mapping[str, Mapping[str, float]]
    #: columns of the flow program of the module docstring (every f[s, q], and F); the
    #: solver works on chains and never builds it
    variables: int
    #: model -> (plan position, subgraph index) -> inferences per second through that
    #: subgraph at the optimum (only subgraphs with flow); one optimum of possibly several
    flow: Mapping[str, Mapping[tuple[int, int], float]] = field(default_factory=dict)


def handoff_bytes(graph: ModelGraph, plan: ModelPlan, subgraph: Subgraph) -> int:
    """Bytes of ``subgraph``'s pure input tensors produced by ops of unit ``first_unit - 1``
    (0 for ``first_unit`` 0). Such a tensor is one an op of that unit writes and an op of the
    subgraph reads (units are disjoint, so the subgraph never writes it), which is how it is
    found here: through the previous unit's successors, not the subgraph's every op."""
    if subgraph.first_unit == 0:
        return 0
    made: set[int] = set()
    for op in plan.units[subgraph.first_unit - 1]:
        for reader in graph.successors[op] & subgraph.ops:
            made |= graph.runtime_inputs(reader) & graph.op_outputs(op)
    return sum(graph.tensors[t].nbytes for t in made)


class ChainPool:
    """What bounds over the same :class:`ModelWork` objects (by identity) and processors
    share: each work's networks, and every chain an earlier bound generated for it. A bound
    over a pool starts its chain program from those chains: the same optimum (any set of a
    work's chains is feasible; the rounds stop on the same test), found in fewer rounds. For
    callers that bound many mixes differing in one model (:mod:`adms.mix`)."""

    def __init__(self) -> None:
        #: (id(work), processors) -> (the work, kept alive so its id is not reused; its
        #: networks; its chains)
        self._by: dict[tuple[int, tuple[str, ...]],
                       tuple[ModelWork, list[PlanNetwork], list[tuple[np.ndarray, Path]]]]
        self._by = {}
        #: (id of a model's networks, prices) -> its cheapest chain there (:func:`_cheapest`)
        self.priced: dict[tuple[int, bytes], tuple[float, np.ndarray, Path]] = {}

    def networks(self, model: str, work: ModelWork, index: Mapping[str, int]
                 ) -> list[PlanNetwork]:
        key = (id(work), tuple(index))
        if key not in self._by:
            nets = [_network(model, position, plan, work, index)
                    for position, plan in enumerate(_check_plans(model, work))]
            self._by[key] = (work, nets, [])
        return self._by[key][1]

    def chains(self, work: ModelWork, names: Sequence[str]) -> list[tuple[np.ndarray, Path]]:
        return self._by[(id(work), tuple(names))][2]


def frame_rate_bound(
    processors: Sequence[str],
    models: Mapping[str, ModelWork],
    capacity: Mapping[str, float] | None = None,
    pool: ChainPool | None = None,
) -> Bound:
    """The frame-rate bound of the module docstring. ``capacity``: processor -> busy seconds
    per second it may give, in [0, 1]; a processor it omits (or all, when None) gives 1.
    ``pool``: networks and chains shared with other bounds over the same processors
    (:class:`ChainPool`)."""
    names = _check_processors(processors)
    caps = _capacities(names, capacity or {})
    if not models:
        raise UserError("frame_rate_bound needs at least one model, got none")
    index = {p: k for k, p in enumerate(names)}
    shared = pool or ChainPool()
    networks = [shared.networks(model, work, index) for model, work in models.items()]
    master = _Chains(len(names), len(models))
    if pool is not None:
        for m, work in enumerate(models.values()):
            for seconds, path in pool.chains(work, names):
                master.add(m, seconds, path)
    frames, x = _generate(master, networks, caps, None if pool is None else pool.priced)
    if pool is not None:
        _keep(master, pool, list(models.values()), names)
    variables = 1 + sum(net.arcs for nets in networks for net in nets)
    return master.bound(frames, x, names, list(models), variables)


def _keep(master: _Chains, pool: ChainPool, works: Sequence[ModelWork],
          names: Sequence[str]) -> None:
    """Every chain of ``master`` into ``pool`` under its work (once)."""
    for m, seconds, path in zip(master.model, master.seconds, master.paths, strict=True):
        kept = pool.chains(works[m], names)
        if not any(p == path for _, p in kept):
            kept.append((seconds, path))


def _generate(master: _Chains, networks: Sequence[Sequence[PlanNetwork]],
              caps: np.ndarray, memo: dict[tuple[int, bytes], tuple[float, np.ndarray, Path]]
              | None = None) -> tuple[float, np.ndarray]:
    """Add improving chains to ``master`` until its optimum is the program's (module doc);
    that optimum: F and the chain rates. ``memo``: cheapest chains already found, by
    networks and prices (a pool's: the same prices recur across its bounds)."""
    ones = np.ones(len(caps))
    for m, nets in enumerate(networks):
        master.add(m, *(_cheapest(nets, ones) if memo is None else
                        _memo_cheapest(nets, ones, memo))[1:])
    for _ in range(MAX_ROUNDS):
        frames, x, y, lam = master.solve(caps)
        priced = [_cheapest(nets, y) if memo is None else _memo_cheapest(nets, y, memo)
                  for nets in networks]
        total = sum(cost for cost, _, _ in priced)
        if total > 0 and float(caps @ y) / total <= frames * (1 + GAP):
            return frames, x
        added = [master.add(m, work, path) for m, (cost, work, path) in enumerate(priced)
                 if cost < lam[m] * (1 - GAP)]
        if not any(added):
            return frames, x
    raise UserError(f"the frame-rate program did not converge in {MAX_ROUNDS} rounds")


#: a pool's memo of cheapest chains is emptied when it holds this many
MEMO_MAX = 100_000


def _memo_cheapest(nets: Sequence[PlanNetwork], y: np.ndarray,
                   memo: dict[tuple[int, bytes], tuple[float, np.ndarray, Path]]
                   ) -> tuple[float, np.ndarray, Path]:
    """:func:`_cheapest`, remembered by networks (their list's identity) and prices."""
    key = (id(nets), y.tobytes())
    found = memo.get(key)
    if found is None:
        if len(memo) >= MEMO_MAX:
            memo.clear()
        found = memo[key] = _cheapest(nets, y)
    return found


def _cheapest(nets: Sequence[PlanNetwork], y: np.ndarray) -> tuple[float, np.ndarray, Path]:
    """The cheapest chain of a model over all its plans at prices ``y``: (price, seconds on
    each processor, its subgraphs)."""
    return min((net.cheapest(y) for net in nets), key=lambda found: found[0])


# -- checks ----------------------------------------------------------------------------------


def _check_processors(processors: Sequence[str]) -> list[str]:
    names = list(processors)
    if not names or len(set(names)) != len(names):
        raise UserError(f"processors must be a non-empty list of distinct names, got {names}")
    return names


def _capacities(names: Sequence[str], capacity: Mapping[str, float]) -> np.ndarray:
    if unknown := sorted(set(capacity) - set(names)):
        raise UserError(f"capacity names processor(s) {', '.join(unknown)}, not among {names}")
    for p, c in capacity.items():
        if not 0.0 <= c <= 1.0:
            raise UserError(f"capacity of processor {p!r} must be in [0, 1], got {c!r}")
    return np.array([float(capacity.get(p, 1.0)) for p in names])


def _check_plans(model: str, work: ModelWork) -> tuple[ModelPlan, ...]:
    if not work.plans:
        raise UserError(f"model {model!r} has no plans")
    for position, plan in enumerate(work.plans):
        if plan.model != model:
            raise UserError(f"model {model!r}: plan {position} is a plan of {plan.model!r}")
    return work.plans


def _subgraph_time(model: str, position: int, sg: Subgraph, work: ModelWork) -> tuple[int, int]:
    """(cost, handoff) of one subgraph, in ns, checked."""
    key, where = (position, sg.index), f"model {model!r}: subgraph {sg.index} of plan {position}"
    if key not in work.cost_ns:
        raise UserError(f"{where} (on {sg.processor}) has no cost")
    cost, handoff = work.cost_ns[key], work.handoff_ns.get(key, 0)
    if not cost > 0:
        raise UserError(f"{where} on {sg.processor} costs {cost!r} ns; costs must be positive")
    if not handoff >= 0:
        raise UserError(f"{where} on {sg.processor} has handoff {handoff!r} ns; must be >= 0")
    return cost, handoff


def _plan_table(model: str, position: int, plan: ModelPlan, work: ModelWork,
                index: Mapping[str, int]) -> np.ndarray:
    """One row per subgraph, ordered by first unit: first, last, processor, cost, handoff,
    the subgraph's index in its plan."""
    rows = []
    for sg in plan.subgraphs:
        if sg.processor not in index:
            raise UserError(f"model {model!r}: subgraph {sg.index} of plan {position} runs on "
                            f"{sg.processor!r}, not among the processors {list(index)}")
        rows.append((sg.first_unit, sg.last_unit, index[sg.processor],
                     *_subgraph_time(model, position, sg, work), sg.index))
    table = np.array(rows, dtype=np.int64).reshape(-1, 6)
    return table[np.argsort(table[:, 0], kind="stable")]


def _network(model: str, position: int, plan: ModelPlan, work: ModelWork,
             index: Mapping[str, int]) -> PlanNetwork:
    """The network of one plan (:mod:`harness.models.plan_network`), its subgraphs
    checked and priced."""
    return PlanNetwork.of(model, position, plan.num_units,
                          _plan_table(model, position, plan, work, index), len(index))


# -- the chain program -----------------------------------------------------------------------


class _Chains:
    """The chain program (module docstring): column 0 is F, each further column one chain of
    one model, given by the seconds it puts on each processor."""

    def __init__(self, width: int, models: int) -> None:
        self.width, self.models = width, models
        self.model: list[int] = []
        self.seconds: list[np.ndarray] = []
        self.paths: list[Path] = []
        self._seen: set[tuple[int, bytes]] = set()

    def add(self, model: int, seconds: np.ndarray, path: Path) -> bool:
        """Add a chain unless one with the same seconds is there; whether it was added."""
        key = (model, seconds.tobytes())
        if key in self._seen:
            return False
        self._seen.add(key)
        self.model.append(model)
        self.seconds.append(seconds)
        self.paths.append(path)
        return True

    def solve(self, caps: np.ndarray) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
        """(F, chain rates, processor prices y, model prices lam) at the optimum."""
        import scipy.sparse as sp  # imported here: ~1 s that commands without a bound skip
        from scipy.optimize import linprog

        k, cols = len(self.model), np.arange(1, len(self.model) + 1)
        work = np.array(self.seconds).reshape(k, self.width)
        a_eq = sp.coo_array((np.r_[-np.ones(self.models), np.ones(k)],
                             (np.r_[np.arange(self.models), self.model],
                              np.r_[np.zeros(self.models, dtype=np.int64), cols])),
                            shape=(self.models, k + 1))
        rows, chains = np.nonzero(work.T)
        a_ub = sp.coo_array((work.T[rows, chains], (rows, chains + 1)), shape=(self.width, k + 1))
        result = linprog(np.r_[-1.0, np.zeros(k)], A_ub=a_ub.tocsr(), b_ub=caps,
                         A_eq=a_eq.tocsr(), b_eq=np.zeros(self.models), bounds=(0, None),
                         method="highs")
        if result.status != 0:
            raise UserError(f"the frame-rate program has no optimum: {result.message}")
        y = np.maximum(-np.asarray(result.ineqlin.marginals), 0.0)
        return (max(float(result.x[0]), 0.0), np.maximum(result.x[1:], 0.0), y,
                np.asarray(result.eqlin.marginals))

    def bound(self, frames: float, x: np.ndarray, names: Sequence[str],
              models: Sequence[str], variables: int) -> Bound:
        """The optimum read back: F, busy time and each model's shares."""
        per = np.zeros((self.models, self.width))
        np.add.at(per, np.array(self.model), x[:, None] * np.array(self.seconds))
        totals = per.sum(axis=1, keepdims=True)
        share = np.divide(per, totals, out=np.zeros_like(per), where=totals > 0)
        flow: list[dict[tuple[int, int], float]] = [{} for _ in models]
        for m, (position, subgraphs), rate in zip(self.model, self.paths, x, strict=True):
            if rate > 0:
                for i in subgraphs:
                    flow[m][(position, i)] = flow[m].get((position, i), 0.0) + float(rate)
        return Bound(
            frames_per_s=frames,
            busy={p: float(b) for p, b in zip(names, per.sum(axis=0), strict=True)},
            share={m: {p: float(s) for p, s in zip(names, row, strict=True)}
                   for m, row in zip(models, share, strict=True)},
            variables=variables,
            flow=dict(zip(models, flow, strict=True)),
        )
