"""The native runner's logs read back into the run's rows.

The runner writes a job log (one line per executed subgraph) and a request log (one line
per finished or dropped request), tab-separated with a header, times on the phone's
``CLOCK_REALTIME`` (``runner/README.md``, "Logs"). A runner killed or cut off leaves a last
line cut short: :func:`complete_lines` keeps only lines ended by a newline whose fields all
parse, so every row written comes from a whole line.

:func:`write_rows` turns them into the rows a run on the runtime writes, through the shared
row functions (:mod:`harness.seams.rows`): a ``subgraphs`` row per job line (the plan's
subgraph, so its columns are the plan's) and a ``requests`` row per request (``ok`` with
its end, ``dropped`` with ``end_ns`` -1, ``unfinished`` when a subgraph of it ran but its
line never came: its arrival, which only that line holds, is then its first subgraph's
start in a closed loop). Times are moved to the run's clock: 0 is when the runner's traffic
began, which a request line gives exactly (its arrival minus its shipped offset; in a
closed loop the first frame arrives at 0).

What a request is, the runner's logs do not say beyond its number and model; the rest is
the harness's traffic: open loops are the shipped arrivals, request ``k`` the ``k``-th; a
closed loop over frames releases one request per model per frame, numbered in model order
(frame ``k // models``); streams are one closed loop per model, so a request is its
model's ``n``-th. Streams are numbered as the harness's traffic numbers them (a model's
index).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from harness.seams.device import RowSink
from harness.seams.plan import ModelPlan, Subgraph
from harness.seams.records import Completion, Request
from harness.seams.rows import request_row, subgraph_row

JOB_HEADER = ("request", "model", "subgraph", "processor", "start_ns", "end_ns", "copy_ns",
              "invoke_ns")
REQUEST_HEADER = ("request", "model", "arrival_ns", "end_ns")


@dataclass(frozen=True, slots=True)
class JobLine:
    request: int
    model: str
    subgraph: int
    processor: str
    start_ns: int
    end_ns: int
    copy_ns: int
    invoke_ns: int


@dataclass(frozen=True, slots=True)
class RequestLine:
    request: int
    model: str
    arrival_ns: int
    end_ns: int


@dataclass(frozen=True, slots=True)
class ServedBy:
    """What a request row needs of the subgraphs that served a request (JobFacts)."""

    start_ns: int
    end_ns: int
    processors: str
    n_subgraphs: int


def complete_lines(text: str, header: Sequence[str]) -> list[list[str]]:
    """The whole lines of a log after its header: a cut last line, and a line whose field
    count differs, are left out."""
    lines = text.split("\n")[:-1]  # (what follows the last newline is cut short)
    if not lines or tuple(lines[0].split("\t")) != tuple(header):
        return []
    fields = [line.split("\t") for line in lines[1:]]
    return [f for f in fields if len(f) == len(header)]


def _ints(f: Sequence[str], *at: int) -> list[int] | None:
    try:
        return [int(f[i]) for i in at]
    except ValueError:
        return None


def parse_jobs(text: str) -> list[JobLine]:
    out = []
    for f in complete_lines(text, JOB_HEADER):
        ints = _ints(f, 0, 2, 4, 5, 6, 7)
        if ints is not None:
            r, s, start, end, copy, invoke = ints
            out.append(JobLine(r, f[1], s, f[3], start, end, copy, invoke))
    return out


def parse_requests(text: str) -> list[RequestLine]:
    out = []
    for f in complete_lines(text, REQUEST_HEADER):
        ints = _ints(f, 0, 2, 3)
        if ints is not None:
            out.append(RequestLine(ints[0], f[1], ints[1], ints[2]))
    return out


@dataclass(frozen=True)
class RunnerTraffic:
    """What the runner was given: its models in plan-file order, the closed loop's kind
    (``frames``/``stream``; empty for open loops), the shipped arrivals, the SLOs."""

    models: tuple[str, ...]
    closed: str
    arrivals: Sequence[Request]
    slo_ns: Mapping[str, int]

    def offset_ns(self, request: int) -> int:
        return self.arrivals[request].arrival_ns if not self.closed else 0

    def request(self, line: RequestLine | JobLine, arrival_ns: int, nth: int) -> Request:
        """The harness's request of a runner's request number (``nth``: of its model)."""
        if not self.closed:
            return self.arrivals[line.request]
        stream = self.models.index(line.model)
        frame = line.request // len(self.models) if self.closed == "frames" else nth
        return Request(line.request, line.model, frame, arrival_ns,
                       self.slo_ns.get(line.model, 0), stream)


def start_of_traffic(traffic: RunnerTraffic, requests: Sequence[RequestLine],
                     jobs: Sequence[JobLine]) -> int | None:
    """When the runner's traffic began, phone ns (None: no line says)."""
    if requests:
        first = min(requests, key=lambda r: r.request)
        return first.arrival_ns - traffic.offset_ns(first.request)
    if jobs:
        return min(j.start_ns - traffic.offset_ns(j.request) for j in jobs)
    return None


@dataclass(frozen=True)
class Written:
    """What :func:`write_rows` wrote."""

    requests: int
    subgraphs: int
    statuses: dict[str, int]
    end_ns: int


def _nth(lines: Sequence[RequestLine | JobLine]) -> dict[int, int]:
    """Request number -> its index among its model's requests (by number)."""
    counts: dict[str, int] = {}
    nth = {}
    for line in sorted({ln.request: ln for ln in lines}.values(), key=lambda ln: ln.request):
        nth[line.request] = counts.get(line.model, 0)
        counts[line.model] = nth[line.request] + 1
    return nth


def write_rows(name: str, seed: int, sink: RowSink, plans: Mapping[str, ModelPlan],
               traffic: RunnerTraffic, logs: tuple[Sequence[JobLine], Sequence[RequestLine]],
               t0_ns: int, is_warmup: Callable[[Request], bool], until_ns: int | None = None
               ) -> Written:
    """Every row of the runner's logs, on the run's clock (``t0_ns``: its 0, phone ns);
    with ``until_ns``, of the requests that arrived before it only."""
    jobs, ended = logs
    by_request = {r.request: r for r in ended}
    nth = _nth([*ended, *jobs])
    served: dict[int, list[JobLine]] = {}
    for job in sorted(jobs, key=lambda j: (j.request, j.start_ns)):
        served.setdefault(job.request, []).append(job)
    subgraphs = {sg.key: sg for plan in plans.values() for sg in plan.subgraphs}
    statuses: dict[str, int] = {}
    last = 0
    for number in sorted(set(by_request) | set(served)):
        line = by_request.get(number)
        runs = served.get(number, [])
        if line is not None and line.end_ns >= 0 and not runs:
            continue  # (its job lines were cut off: the phone was lost before they came)
        arrival = line.arrival_ns - t0_ns if line else runs[0].start_ns - t0_ns
        if until_ns is not None and arrival >= until_ns:
            continue
        request = traffic.request(line or runs[0], arrival, nth[number])
        for job in runs:
            c = Completion(number, request, _subgraph(subgraphs, job), job.start_ns - t0_ns,
                           job.end_ns - t0_ns)
            sink.append("subgraphs", subgraph_row(name, seed, c))
        status, facts = _ended(line, runs, t0_ns)
        sink.append("requests", request_row(name, seed, request, status, facts,
                                            is_warmup(request)))
        statuses[status] = statuses.get(status, 0) + 1
        last = max(last, facts.end_ns, *(j.end_ns - t0_ns for j in runs))
    return Written(sum(statuses.values()), len(jobs), statuses, last)


def _subgraph(subgraphs: Mapping[tuple[str, int], Subgraph], job: JobLine) -> Subgraph:
    """The plan's subgraph a job line names (by its key: a dict, not a walk over the plan's
    thousands of subgraphs for each of a run's tens of thousands of jobs)."""
    found = subgraphs.get((job.model, job.subgraph))
    if found is None:
        raise KeyError(f"the runner ran subgraph {job.subgraph} of {job.model}, not in its plan")
    return found


def _ended(line: RequestLine | None, runs: Sequence[JobLine], t0_ns: int
           ) -> tuple[str, ServedBy]:
    procs = ",".join(dict.fromkeys(j.processor for j in runs))
    start = runs[0].start_ns - t0_ns if runs else -1
    if line is None:
        return "unfinished", ServedBy(start, -1, procs, len(runs))
    if line.end_ns < 0:
        return "dropped", ServedBy(start, -1, procs, len(runs))
    return "ok", ServedBy(start, line.end_ns - t0_ns, procs, len(runs))
