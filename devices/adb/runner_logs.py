"""The native runner's logs read back into the run's rows.

The runner writes a job log (one line per executed subgraph) and a request log (one line
per finished or dropped request), tab-separated with a header, times on the phone's
``CLOCK_REALTIME`` (``runner/README.md``, "Logs"). A runner killed or cut off leaves a last
line cut short: :func:`complete_lines` (a :class:`LineFeed` over a log as it grows) keeps
only lines ended by a newline whose fields all parse, so every row written comes from a
whole line.

:func:`write_rows` turns them into the rows a run on the runtime writes, through the shared
row functions (:mod:`harness.seams.rows`): a ``subgraphs`` row per job line (the plan's
subgraph, so its columns are the plan's) and a ``requests`` row per request (``ok`` with
its end, ``dropped`` with ``end_ns`` -1, ``unfinished`` when a subgraph of it ran but its
line never came: its arrival, which only that line holds, is then its first subgraph's
start in a closed loop). Times are moved to the run's clock: 0 is when the runner's traffic
began, which a request line gives exactly (its arrival minus its shipped offset; in a
closed loop the first frame arrives at 0). :func:`write_rows` is a :class:`RowWriter` given
the whole logs; the same writer, fed as the logs come, writes a request's rows as soon as
they are known (:mod:`devices.adb.runner_rows`), so there is one way a line becomes a row.

What a request is, the runner's logs do not say beyond its number and model; the rest is
the harness's traffic: open loops are the shipped arrivals, request ``k`` the ``k``-th; a
closed loop over frames releases one request per model per frame, numbered in model order
(frame ``k // models``); streams are one closed loop per model, so a request is its
model's ``n``-th. Streams are numbered as the harness's traffic numbers them (a model's
index).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterable, Mapping, Sequence
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


class LineFeed:
    """The whole lines of a growing log, each given once: :meth:`take` is handed the log's
    text so far (it only grows) and gives the fields of the lines ended since the last call.
    A first line other than the header makes the whole log unreadable (no line is given);
    a line whose field count differs is left out; a cut last line waits for its newline."""

    def __init__(self, header: Sequence[str]) -> None:
        self.header = tuple(header)
        #: characters of the text taken (up to and with the last newline)
        self.taken = 0
        self.readable: bool | None = None

    def take(self, text: str) -> list[list[str]]:
        end = text.rfind("\n", self.taken) + 1
        if end <= self.taken:
            return []
        lines = text[self.taken:end - 1].split("\n")
        self.taken = end
        if self.readable is None:
            self.readable = tuple(lines.pop(0).split("\t")) == self.header
        if not self.readable:
            return []
        fields = [line.split("\t") for line in lines]
        return [f for f in fields if len(f) == len(self.header)]


def complete_lines(text: str, header: Sequence[str]) -> list[list[str]]:
    """The whole lines of a log after its header: a cut last line, and a line whose field
    count differs, are left out."""
    return LineFeed(header).take(text)


def _ints(f: Sequence[str], *at: int) -> list[int] | None:
    try:
        return [int(f[i]) for i in at]
    except ValueError:
        return None


def job_lines(lines: Sequence[Sequence[str]]) -> list[JobLine]:
    """The job lines among a job log's whole lines' fields (every field parses)."""
    out = []
    for f in lines:
        ints = _ints(f, 0, 2, 4, 5, 6, 7)
        if ints is not None:
            r, s, start, end, copy, invoke = ints
            out.append(JobLine(r, f[1], s, f[3], start, end, copy, invoke))
    return out


def request_lines(lines: Sequence[Sequence[str]]) -> list[RequestLine]:
    """The request lines among a request log's whole lines' fields."""
    out = []
    for f in lines:
        ints = _ints(f, 0, 2, 3)
        if ints is not None:
            out.append(RequestLine(ints[0], f[1], ints[1], ints[2]))
    return out


def parse_jobs(text: str) -> list[JobLine]:
    return job_lines(complete_lines(text, JOB_HEADER))


def parse_requests(text: str) -> list[RequestLine]:
    return request_lines(complete_lines(text, REQUEST_HEADER))


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
    """What :func:`write_rows` (a :class:`RowWriter`) wrote."""

    requests: int
    subgraphs: int
    statuses: dict[str, int]
    end_ns: int
    #: job lines that came after their request's rows were written (none, if the runner
    #: flushes as it says): counted, not written
    late_jobs: int = 0


class RowWriter:
    """The rows of the runner's log lines, a request at a time, so that rows can be written
    while the runner runs (:mod:`devices.adb.runner_rows`); :func:`write_rows` is this
    writer given whole logs at once.

    Lines are :meth:`add`-ed as they come. Once the run's clock is fixed (``t0_ns``: its 0,
    phone ns), :meth:`write` writes the rows of requests none of whose lines can still come
    (the caller knows when); :meth:`finish` writes every request left. A request is written
    once and its lines let go. Its ``nth`` (its index among its model's requests, by number)
    counts the numbers seen so far: at :meth:`finish` every number; before, for a stream
    (the one traffic whose rows use it) every lower number of its model too, as a model's
    next request is released only when its last one has ended, whose request line was
    written first."""

    def __init__(self, name: str, seed: int, sink: RowSink, plans: Mapping[str, ModelPlan],
                 traffic: RunnerTraffic, is_warmup: Callable[[Request], bool],
                 until_ns: int | None = None) -> None:
        self.name, self.seed, self.sink, self.traffic = name, seed, sink, traffic
        #: with ``until_ns``, only the requests that arrived before it get rows
        self.is_warmup, self.until_ns = is_warmup, until_ns
        self.subgraphs = {sg.key: sg for plan in plans.values() for sg in plan.subgraphs}
        self.t0_ns: int | None = None
        self.ended: dict[int, RequestLine] = {}
        self.served: dict[int, list[JobLine]] = {}
        self.numbers: dict[str, list[int]] = {}  # (each model's request numbers, sorted)
        self.done: set[int] = set()
        self.jobs, self.late, self.last_ns = 0, 0, 0
        self.statuses: dict[str, int] = {}

    def add(self, jobs: Sequence[JobLine], ended: Sequence[RequestLine]) -> None:
        for line in ended:
            if line.request not in self.done:
                self._see(line)
                self.ended[line.request] = line
        for job in jobs:
            self.jobs += 1
            if job.request in self.done:
                self.late += 1
                continue
            self._see(job)
            self.served.setdefault(job.request, []).append(job)

    def _see(self, line: RequestLine | JobLine) -> None:
        numbers = self.numbers.setdefault(line.model, [])
        at = bisect_left(numbers, line.request)
        if at == len(numbers) or numbers[at] != line.request:
            numbers.insert(at, line.request)

    def ready(self, number: int) -> bool:
        """Whether a request's rows may be written before the end: its request line came,
        with a job line unless it was dropped (a finished request without one is written
        at the end, as a line whose job lines were cut off)."""
        line = self.ended.get(number)
        return line is not None and (number in self.served or line.end_ns < 0)

    def write(self, numbers: Iterable[int]) -> None:
        for number in sorted(numbers):
            self._write(number)

    def finish(self) -> Written:
        """Every request not written yet (the clock, if not fixed, from their lines)."""
        if self.t0_ns is None:
            jobs = [j for runs in self.served.values() for j in runs]
            self.t0_ns = start_of_traffic(self.traffic, list(self.ended.values()), jobs)
        if self.t0_ns is not None:
            self.write(set(self.ended) | set(self.served))
        return Written(sum(self.statuses.values()), self.jobs, dict(self.statuses),
                       self.last_ns, self.late)

    def _write(self, number: int) -> None:
        assert self.t0_ns is not None, "the run's clock is not fixed"
        t0_ns = self.t0_ns
        line = self.ended.pop(number, None)
        runs = sorted(self.served.pop(number, []), key=lambda j: j.start_ns)
        self.done.add(number)  # (before its rows: a signal among them leaves none twice)
        if line is not None and line.end_ns >= 0 and not runs:
            return  # (its job lines were cut off: the phone was lost before they came)
        first = line or runs[0]
        arrival = line.arrival_ns - t0_ns if line else runs[0].start_ns - t0_ns
        if self.until_ns is not None and arrival >= self.until_ns:
            return
        nth = bisect_left(self.numbers[first.model], number)
        request = self.traffic.request(first, arrival, nth)
        for job in runs:
            c = Completion(number, request, _subgraph(self.subgraphs, job),
                           job.start_ns - t0_ns, job.end_ns - t0_ns)
            self.sink.append("subgraphs", subgraph_row(self.name, self.seed, c))
        status, facts = _ended(line, runs, t0_ns)
        self.sink.append("requests", request_row(self.name, self.seed, request, status, facts,
                                                 self.is_warmup(request)))
        self.statuses[status] = self.statuses.get(status, 0) + 1
        self.last_ns = max(self.last_ns, facts.end_ns, *(j.end_ns - t0_ns for j in runs))


def write_rows(name: str, seed: int, sink: RowSink, plans: Mapping[str, ModelPlan],
               traffic: RunnerTraffic, logs: tuple[Sequence[JobLine], Sequence[RequestLine]],
               t0_ns: int, is_warmup: Callable[[Request], bool], until_ns: int | None = None
               ) -> Written:
    """Every row of the runner's logs, on the run's clock (``t0_ns``: its 0, phone ns);
    with ``until_ns``, of the requests that arrived before it only."""
    writer = RowWriter(name, seed, sink, plans, traffic, is_warmup, until_ns)
    writer.add(*logs)
    writer.t0_ns = t0_ns
    return writer.finish()


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
