"""What one baseline's run on the runtime records as it goes, row by row.

:class:`RunRows` holds the three callbacks of one baseline and seed: the runtime's
``record_subgraph(Completion)`` and ``record_request(Request, status, JobRecord)`` and the
sensor cache's ``on_sample(SensorSample)``. Each appends its row to the run's columns
(:mod:`harness.reporting.columns`), which the run folder's journals write a batch at a
time. :meth:`RunRows.timings` gives each subgraph's latency summed over the completions that
succeeded, for the as-run bound (:func:`harness.experiment.bounds.as_run`): the journal sums
them a batch at a time, so no row pays for it.

A subgraph's shape code (its row's repeated facts, see :mod:`~harness.reporting.columns`)
is looked up by the identity of the runtime's subgraph object: the plans hold a few hundred,
and every completion refers to one of them. Each subgraph looked up is kept referenced here,
so its identity is never reused during the run.

The per-row methods make no dict, tuple or record per row, and the module compiles with
mypyc as it is (plain classes, fully annotated, no closures).
"""

from __future__ import annotations

from collections.abc import Callable

from harness.experiment.bounds import Timings
from harness.reporting.columns import JobFacts, RequestColumns, SensorColumns, SubgraphColumns
from harness.seams.plan import Subgraph
from harness.seams.records import Completion, Request, SensorSample


class RunRows:
    """The rows of one baseline with one seed, into the run's columns."""

    def __init__(self, baseline: str, seed: int, is_warmup: Callable[[Request], bool],
                 subgraphs: SubgraphColumns, requests: RequestColumns,
                 sensors: SensorColumns) -> None:
        self.baseline = baseline
        self.seed = seed
        self.is_warmup = is_warmup
        self.subgraphs = subgraphs
        self.requests = requests
        self.sensors = sensors
        #: id(subgraph) -> its shape code
        self._codes: dict[int, int] = {}
        #: every subgraph looked up, so that no id above is reused
        self._held: list[Subgraph] = []

    def record_subgraph(self, c: Completion) -> None:
        """A subgraph ended (the runtime's ``record_subgraph``)."""
        code = self._codes.get(id(c.subgraph), -1)
        if code < 0:
            code = self._new_code(c.subgraph)
        self.subgraphs.add(code, c.request.request_id, c.job_id, c.start_ns, c.end_ns, c.ok)

    def _new_code(self, sg: Subgraph) -> int:
        code = self.subgraphs.code((self.baseline, self.seed, sg.model, sg.index, sg.processor,
                                    sg.first_unit, sg.last_unit, len(sg.ops)))
        self._held.append(sg)
        self._codes[id(sg)] = code
        return code

    def record_request(self, r: Request, status: str, job: JobFacts) -> None:
        """A request ended with ``status`` (the runtime's ``record_request``)."""
        self.requests.add(self.baseline, self.seed, r, status, job, self.is_warmup(r))

    def record_sample(self, s: SensorSample) -> None:
        """A sensor sample was read (the sensor cache's ``on_sample``)."""
        self.sensors.add(self.baseline, self.seed, s)

    def timings(self) -> Timings:
        """The latencies of every completion recorded so far that succeeded, summed per
        (model, subgraph index) (the rows held are written first)."""
        self.subgraphs.write()
        cols = self.subgraphs
        timings = Timings()
        for code in sorted(set(self._codes.values())):
            if cols.succeeded[code]:
                shape = cols.shapes[code]
                timings.add_sum(shape[2], shape[3], cols.latency_ns[code], cols.succeeded[code])
        return timings
