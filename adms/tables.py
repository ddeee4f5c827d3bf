"""What ADMS's decisions read of each model, cached between decisions (:mod:`adms.scheduler`):
its chain table (:class:`~adms.chains.ChainTable`, costs and handoffs at the current
estimates), each processor's fastest way to finish the model from a unit (*options*), and
what jobs of one kind share (:class:`~adms.jobs.Kind`). A job's options depend on the unit it
is at and on the processor its last subgraph ran on (a subgraph on another one pays the
handoff). Every table re-derived and every candidate weighed is counted in :attr:`work`.
"""

from __future__ import annotations

from collections.abc import Mapping

from adms.chains import ChainTable
from adms.jobs import Kind, Option
from baselines.band.estimator import LatencyEstimator
from harness.seams.plan import ModelPlan, Subgraph
from harness.seams.units import NS_PER_MS


class Tables:
    """Chain tables, options and kinds per model, kept current with the estimator."""

    def __init__(self, estimator: LatencyEstimator) -> None:
        self.estimator = estimator
        #: counted work since the caller last set it to 0: programmes re-run (subgraphs x
        #: columns solved) and candidates weighed
        self.work = 0
        self._handoff: dict[tuple[str, int], int] = {}
        self._tables: dict[str, ChainTable] = {}
        #: model -> (next unit, slot before) key -> options; dropped with the model's table
        self._options: dict[str, dict[int, dict[str, Option]]] = {}
        #: model -> (next unit, slot before) key -> the kind's shared facts
        self._kinds: dict[str, dict[int, Kind]] = {}

    def cost(self, sg: Subgraph) -> int:
        return self.estimator.expected(sg.key)

    def set_handoffs(self, handoff: Mapping[tuple[str, int], int]) -> None:
        """Each subgraph's handoff (ns) when the subgraph before it ran elsewhere; every
        table is derived again."""
        self._handoff = dict(handoff)
        for model in list(self._tables):
            self.forget(model)

    def forget(self, model: str) -> None:
        """Drop everything cached of ``model`` (its estimates changed)."""
        self._tables.pop(model, None)
        self.drop_options(model)

    def update(self, subgraph: Subgraph, refresh: bool, ns: int | None = None) -> None:
        """Take ``subgraph``'s current estimate (``ns`` when the caller has it) into its
        model's table; with ``refresh`` also re-derive the model's remaining latencies."""
        table = self._tables.get(subgraph.model)
        if table is not None:
            table.set_cost(subgraph.index, self.cost(subgraph) if ns is None else ns, refresh)
        if refresh:
            self.drop_options(subgraph.model)

    def drop_options(self, model: str) -> None:
        self._options.pop(model, None)
        self._kinds.pop(model, None)

    def table(self, plan: ModelPlan) -> ChainTable:
        """The plan's chain table (its costs the estimator's, kept current by :meth:`update`)."""
        table = self._tables.get(plan.model)
        if table is None or table.plan is not plan:
            handoff = self._handoff
            table = self._tables[plan.model] = ChainTable(
                plan, self.cost, (lambda sg: handoff.get(sg.key, 0)) if handoff else None)
        return table

    def solved(self, plan: ModelPlan) -> tuple[ChainTable, list[int]]:
        """The plan's table and its solved ``after`` list (re-solving counts its work)."""
        table = self.table(plan)
        if table.stale:
            self.work += len(plan.subgraphs) * (table.width if table.hops else 1)
        return table, table.solve()

    def through(self, plan: ModelPlan, sg: Subgraph, last: str) -> int:
        """ns to finish the model if ``sg`` runs next, after a subgraph on ``last``: its
        handoff, its cost and the fastest rest from its processor."""
        table, after = self.solved(plan)
        k = table.position[sg.index]
        return (table.entry(k, table.slot(last)) + table.cost[k]
                + after[table.end[k] * table.width + table.proc[k]])

    def options(self, plan: ModelPlan, next_unit: int, last: str = "") -> dict[str, Option]:
        """Processor -> the fastest way to finish the model starting there at ``next_unit``
        after a subgraph on ``last`` (cached)."""
        table, after = self.solved(plan)
        q = table.slot(last)
        key = next_unit * table.width + q
        by_key = self._options.get(plan.model)
        if by_key is None:
            by_key = self._options[plan.model] = {}
        cached = by_key.get(key)
        if cached is None:
            self.work += len(plan.candidates(next_unit))
            cached = by_key[key] = self._fastest(plan, table, after, next_unit, q)
        return cached

    def _fastest(self, plan: ModelPlan, table: ChainTable, after: list[int], next_unit: int,
                 q: int) -> dict[str, Option]:
        """Processor -> (handoff + cost + rest after it, the subgraph) of the candidates at
        ``next_unit`` minimising it there (the first of equal ones), processors in order of
        first appearance among the candidates."""
        out: dict[str, Option] = {}
        cost, end, proc, width, subgraphs = (table.cost, table.end, table.proc, table.width,
                                             plan.subgraphs)
        for k in table.starting(next_unit):
            ns = table.entry(k, q) + cost[k] + after[end[k] * width + proc[k]]
            sg = subgraphs[k]
            best = out.get(sg.processor)
            if best is None or ns < best[0]:
                out[sg.processor] = (ns, sg)
        return out

    def _allowed(self, plan: ModelPlan, next_unit: int, last: str, hot: frozenset[str]
                 ) -> dict[str, Option]:
        opts = self.options(plan, next_unit, last)
        if not hot or hot.isdisjoint(opts):
            return opts
        cool = {p: o for p, o in opts.items() if p not in hot}
        return cool or opts

    def kind(self, plan: ModelPlan, next_unit: int, last: str, hot: frozenset[str]) -> Kind:
        """The shared facts of jobs of ``plan``'s model at ``next_unit`` after a subgraph on
        ``last`` (cached while the model's options are, for the same plan and hot ones)."""
        table, after = self.solved(plan)
        q = table.slot(last)
        key = next_unit * table.width + q
        by_key = self._kinds.get(plan.model)
        kind = None if by_key is None else by_key.get(key)
        if kind is not None and kind.plan is plan and (kind.hot is hot or kind.hot == hot):
            return kind
        avg_ns = after[table.none]  # (unit 0, nothing before)
        remaining_ns = after[key]
        kind = Kind(plan, hot, self._allowed(plan, next_unit, last, hot), avg_ns,
                    avg_ns / NS_PER_MS, remaining_ns / NS_PER_MS)
        self._kinds.setdefault(plan.model, {})[key] = kind
        return kind
