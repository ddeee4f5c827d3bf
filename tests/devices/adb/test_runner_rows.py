"""A runner run's rows written as its logs come (:mod:`devices.adb.runner_rows`), without a
phone: the same rows, row for row, as :func:`~devices.adb.runner_logs.write_rows` writes from
the whole logs, however the logs reach the host.

The runner is played by a small simulation that writes its logs as ``runner/src`` does: a
request's job lines as each subgraph ends, then its request line (``-1`` when dropped), into
buffers that reach the file at every flush tick (each second) and, in between, in random
prefixes (a stdio buffer that filled up); sensor lines reach it at once. Closed-loop streams
(with the traffic's time cutting the last requests off), closed-loop frames and an open loop,
each with dropped and unfinished requests. Hypothesis draws the host's pulls (when each log
is read, how long each pull takes), the buffers' random writes, and whether the runner ends
by itself or is killed mid-run (its logs then end wherever its file ended).
"""

from __future__ import annotations

import heapq
import random
from bisect import bisect_right
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from devices.adb.runner_logs import (
    JOB_HEADER,
    REQUEST_HEADER,
    RowWriter,
    RunnerTraffic,
    parse_jobs,
    parse_requests,
    start_of_traffic,
    write_rows,
)
from devices.adb.runner_rows import LiveRows
from devices.adb.runner_sensors import LOG_HEADER, parse_sensor_log
from devices.adb.runner_watch import LogTail
from harness.seams.records import Request
from harness.seams.rows import sensor_row
from tests.devices.adb.test_runner_files import ALTERNATIVES, CHAIN

T0 = 1_700_000_000_000_000_000  # the phone's CLOCK_REALTIME at the simulation's 0, ns
MS = 1_000_000
#: the runner's traffic starts (it loaded its slices), and its logs end (stopped), ns
START_NS, END_NS = 300 * MS, 4_300 * MS
#: a closed loop's traffic time: requests that arrived later get no row, ns
UNTIL_NS = 3_000 * MS
PLANS = {"a": CHAIN, "b": ALTERNATIVES}
#: the subgraphs a request of each model runs, by its number (each with its processor)
PATHS = {"a": [[(0, "gpu"), (1, "cpu")]],
         "b": [[(3, "cpu")], [(1, "gpu"), (2, "cpu")], [(0, "cpu"), (2, "cpu")]]}
LOGS = ("requests", "jobs", "sensors")
HEADERS = {"requests": REQUEST_HEADER, "jobs": JOB_HEADER, "sensors": LOG_HEADER}


@dataclass
class Script:
    """What the runner writes, each log's lines with the time each is written, ns."""

    lines: dict[str, list[tuple[int, int, str]]] = field(
        default_factory=lambda: {name: [] for name in LOGS})
    #: the request whose last subgraph never ends (-1: none; a frame's would stop the loop)
    hung: int = 8

    def emit(self, t_ns: int, log: str, *fields: object) -> None:
        if t_ns <= END_NS:  # (the runner is stopped at the end: later lines never come)
            self.lines[log].append((t_ns, sum(map(len, self.lines.values())),
                                    "\t".join(map(str, fields)) + "\n"))

    def serve(self, rng: random.Random, number: int, model: str, arrival_ns: int) -> int:
        """A request's job lines and request line: when it ended."""
        path = PATHS[model][number % len(PATHS[model])]
        t = arrival_ns + rng.randrange(0, 5 * MS)
        for k, (subgraph, processor) in enumerate(path):
            if number % 7 == 3 and k == min(1, len(path) - 1):  # (a policy's drop)
                self.emit(t, "requests", number, model, T0 + arrival_ns, -1)
                return t
            hung = k == 1 and number == self.hung
            end = t + (10 * END_NS if hung else rng.randrange(20, 120) * MS)
            self.emit(end, "jobs", number, model, subgraph, processor, T0 + t, T0 + end, 10,
                      end - t - 10)
            t = end
        self.emit(t, "requests", number, model, T0 + arrival_ns, T0 + t)
        return t


def simulate(kind: str, seed: int) -> tuple[Script, RunnerTraffic]:
    """The runner's logs for one kind of traffic (``stream``, ``frames``, ``open``)."""
    rng, script = random.Random(seed), Script()
    for t in range(0, END_NS, 100 * MS):
        script.emit(t, "sensors", T0 + t, "cpu", 41.5, 1.8e9, 2.4e9, 0.25, "", 0, "")
    models = ("a", "b")
    if kind == "open":
        arrivals = [Request(k, models[k % 2], k // 2, 50 * MS * k, 40 * MS, k % 2)
                    for k in range(80)]
        for r in arrivals:
            script.serve(rng, r.request_id, r.model, START_NS + r.arrival_ns)
        return script, RunnerTraffic(models, "", arrivals, {"a": 40 * MS})
    number = 0
    if kind == "frames":
        t, script.hung = START_NS, -1
        while t < END_NS:
            ends = [script.serve(rng, number + m, model, t) for m, model in enumerate(models)]
            number, t = number + len(models), max(ends)
    else:
        due = [(START_NS, m) for m in range(len(models))]
        while due:
            t, m = heapq.heappop(due)
            end = script.serve(rng, number, models[m], t)
            number += 1
            if end < END_NS:
                heapq.heappush(due, (end, m))
    return script, RunnerTraffic(models, kind, [], {"a": 40 * MS})


@dataclass
class Phone:
    """The runner's files over time: a log's text reaches its file at every flush tick
    (each second of the run, and at its end), and in random prefixes between; the sensor
    log at once. ``stop_ns``: when the runner ended (killed: its file ends there)."""

    script: Script
    partial: dict[str, list[tuple[int, float]]]
    killed_ns: int | None

    def __post_init__(self) -> None:
        self.text = {name: "\t".join(HEADERS[name]) + "\n" +
                     "".join(t for _, _, t in sorted(self.script.lines[name]))
                     for name in LOGS}
        self.stop_ns = END_NS if self.killed_ns is None else self.killed_ns

    def written(self, log: str, t_ns: int) -> int:
        """Characters the runner had written into its buffer by ``t_ns``."""
        lines = sorted(self.script.lines[log])
        times = [t for t, _, _ in lines]
        return len("\t".join(HEADERS[log]) + "\n") + sum(
            len(text) for _, _, text in lines[:bisect_right(times, t_ns)])

    def on_disk(self, log: str, t_ns: int) -> str:
        t = min(t_ns, self.stop_ns)
        if log == "sensors" or (self.killed_ns is None and t >= END_NS):
            return self.text[log][:self.written(log, t)]
        tick = START_NS + (t - START_NS) // 1_000_000_000 * 1_000_000_000
        length = self.written(log, tick) if t >= START_NS + 1_000_000_000 else 0
        for at, share in self.partial[log]:
            if at <= t:
                length = max(length, int(share * self.written(log, at)))
        return self.text[log][:length]


class Sink:
    def __init__(self) -> None:
        self.rows: dict[str, list[Mapping[str, Any]]] = {
            "requests": [], "subgraphs": [], "sensors": []}

    def append(self, table: str, row: Mapping[str, Any]) -> None:
        self.rows[table].append(row)

    def tables(self) -> dict[str, list[str]]:
        return {name: sorted(repr(sorted(r.items())) for r in rows)
                for name, rows in self.rows.items()}


def is_warmup(request: Request) -> bool:
    return request.arrival_ns < 500 * MS


def expected(logs: Mapping[str, str], traffic: RunnerTraffic) -> tuple[Sink, Any]:
    """What the rows are from the whole logs (today's write at the end)."""
    jobs, ended = parse_jobs(logs["jobs"]), parse_requests(logs["requests"])
    t0 = start_of_traffic(traffic, ended, jobs)
    sink = Sink()
    if t0 is None:
        return sink, None
    until = UNTIL_NS if traffic.closed else None
    written = write_rows("adms", 3, sink, PLANS, traffic, (jobs, ended), t0, is_warmup, until)
    for sample in parse_sensor_log(logs["sensors"], t0):
        sink.append("sensors", sensor_row("adms", 3, sample))
    return sink, written


Pull = tuple[float, float, float, float, float]


def live_rows(phone: Phone, traffic: RunnerTraffic, pulls: list[Pull]
              ) -> tuple[Sink, Any, int, dict[str, LogTail]]:
    """The rows written as the host pulls the logs (each pull: the wait before it, each
    log's pull's length, s, and where in its pull the file is read); how many rows were
    written before the end."""
    sink = Sink()
    live = LiveRows(RowWriter("adms", 3, sink, PLANS, traffic, is_warmup,
                              UNTIL_NS if traffic.closed else None))
    tails = {name: LogTail(name) for name in LOGS}
    now_s = 0.0
    for wait_s, *lengths_s, where in pulls:
        now_s += wait_s
        for name, length_s in zip(LOGS, lengths_s, strict=True):
            tail = tails[name]
            tail.began_s, tail.ended_s = now_s, now_s + length_s
            read = phone.on_disk(name, int((now_s + where * length_s) * 1e9))
            tail.text = max(tail.text, read, key=len)
            now_s += length_s
        live.pulled(tails)
    before = sum(map(len, sink.rows.values()))
    for name, tail in tails.items():  # (the last pull, once the runner ended)
        tail.text = phone.on_disk(name, phone.stop_ns)
    return sink, live.finish(tails), before, tails


pulls = st.lists(st.tuples(st.floats(0.0, 0.8), st.floats(0.0, 0.2), st.floats(0.0, 0.2),
                           st.floats(0.0, 0.2), st.floats(0.0, 1.0)), max_size=25)
partial = st.lists(st.tuples(st.integers(0, END_NS), st.floats(0.0, 1.0)), max_size=12)


@settings(max_examples=60, deadline=None)
# (the request log's buffer reached the file 1.5 s into the run, the job log's only at the
# tick 1 s in: request lines seen 1.86 s in lack job lines until the tick at 2.3 s)
@example(kind="stream", seed=0, pulls=[(1.85, 0.01, 0.01, 0.01, 0.0),
                                       (0.36, 0.01, 0.01, 0.01, 0.0)],
         jobs_partial=[], requests_partial=[(1_800 * MS, 1.0)], killed=None)
@given(kind=st.sampled_from(["stream", "frames", "open"]), seed=st.integers(0, 3),
       pulls=pulls, jobs_partial=partial, requests_partial=partial,
       killed=st.none() | st.integers(START_NS, END_NS))
def test_rows_as_the_logs_come_are_the_rows_of_the_whole_logs(
        kind: str, seed: int, pulls: list[Pull], jobs_partial: list[tuple[int, float]],
        requests_partial: list[tuple[int, float]], killed: int | None) -> None:
    script, traffic = simulate(kind, seed)
    phone = Phone(script, {"jobs": jobs_partial, "requests": requests_partial}, killed)
    sink, written, _, tails = live_rows(phone, traffic, pulls)
    whole, want = expected({name: t.text for name, t in tails.items()}, traffic)
    assert sink.tables() == whole.tables()
    if want is not None:
        assert written == want and written.late_jobs == 0


def test_the_simulated_logs_have_every_kind_of_request() -> None:
    """The cases the property runs through are there: ok, dropped, unfinished (a frame's
    are past its traffic's time), and a closed loop's requests past its traffic's time."""
    for kind in ("stream", "frames", "open"):
        script, traffic = simulate(kind, 0)
        logs = Phone(script, {}, None).text
        _, written = expected(logs, traffic)
        unfinished = set() if kind == "frames" else {"unfinished"}
        assert set(written.statuses) == {"ok", "dropped", *unfinished}, kind
        ended = parse_requests(logs["requests"])
        assert kind == "open" or max(r.arrival_ns - T0 - START_NS for r in ended) > UNTIL_NS


def test_rows_are_written_while_the_runner_runs() -> None:
    """Pulled every half second, most rows are written before the end; the stream's
    requests are each model's n-th, as from the whole logs."""
    script, traffic = simulate("stream", 1)
    phone = Phone(script, {"jobs": [], "requests": []}, None)
    sink, _, before, tails = live_rows(phone, traffic, [(0.5, 0.01, 0.01, 0.01, 0.5)] * 10)
    assert before > len(sink.rows["requests"]) // 2 > 0
    frames = [r["frame_id"] for r in sink.rows["requests"] if r["model"] == "b"]
    assert sorted(frames) == list(range(len(frames)))
    whole, _ = expected({name: t.text for name, t in tails.items()}, traffic)
    assert sink.tables() == whole.tables()
