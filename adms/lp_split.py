"""``lp_split`` (a variant of ADMS, the project's addition; :mod:`adms.scheduler`): at a unit
boundary the frame-rate LP's optimum passes (:mod:`harness.models.bound`), a job has one
option, the subgraph of the optimum there that is furthest behind its share of the LP's flow,
so a model the LP splits between processors alternates in its proportions. This module keeps
the shares and the deficit counts over the run's assignments."""

from __future__ import annotations

from collections.abc import Mapping

from harness.seams.plan import ModelPlan, Subgraph


class LpSplit:
    """The LP's shares per unit boundary and how often each subgraph there was assigned."""

    def __init__(self) -> None:
        #: model -> unit -> (subgraph, its share of the LP's flow there)
        self.split: dict[str, dict[int, tuple[tuple[Subgraph, float], ...]]] = {}
        #: times each (model, subgraph index) was assigned, and each (model, unit)
        self._chosen: dict[tuple[str, int], int] = {}
        self._at: dict[tuple[str, int], int] = {}

    def set(self, plans: Mapping[str, ModelPlan],
            flow: Mapping[str, Mapping[int, float]]) -> None:
        """The LP's flow per model and subgraph index, normalised per unit boundary;
        assignment counts start again."""
        self.split, self._chosen, self._at = {}, {}, {}
        for model, plan in plans.items():
            by_unit: dict[int, list[tuple[Subgraph, float]]] = {}
            for sg in plan.subgraphs:
                if flow.get(model, {}).get(sg.index, 0.0) > 0:
                    by_unit.setdefault(sg.first_unit, []).append((sg, flow[model][sg.index]))
            totals = {u: sum(f for _, f in entries) for u, entries in by_unit.items()}
            self.split[model] = {u: tuple((sg, f / totals[u]) for sg, f in entries)
                                 for u, entries in by_unit.items()}

    def behind(self, model: str, unit: int) -> tuple[Subgraph, int] | None:
        """(the subgraph the LP's optimum starts at ``unit`` that is furthest behind its
        share: share x (assignments there + 1) - its own assignments; ties: the larger
        share, then the lower index; the candidates weighed), or None where the optimum
        starts none."""
        targets = self.split.get(model, {}).get(unit)
        if not targets:
            return None
        made = self._at.get((model, unit), 0) + 1
        _, _, _, sg = max((share * made - self._chosen.get((model, sg.index), 0), share,
                           -sg.index, sg) for sg, share in targets)
        return sg, len(targets)

    def count(self, sg: Subgraph) -> None:
        """Count an assignment toward the deficits."""
        if sg.first_unit in self.split.get(sg.model, {}):
            key = (sg.model, sg.index)
            self._chosen[key] = self._chosen.get(key, 0) + 1
            at = (sg.model, sg.first_unit)
            self._at[at] = self._at.get(at, 0) + 1
