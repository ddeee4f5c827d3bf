"""A stand-in for Band's ``band_benchmark`` (a FAKE; mrsnu/band @ 8600d49 is the real one).

It reads Band's JSON config the way ``band/tool/benchmark.cc`` does (the same required keys
and messages, exit code 255 on a bad config), runs real LiteRT interpreters on one thread per
configured worker (CPU workers with built-in kernels, GPU with XNNPACK standing in), issues
requests as Band's ``stream`` mode (every model of a frame at once, then wait for all) or
``periodic`` mode (one thread per model, ``period_ms``), drops a job whose SLO has already
passed when a worker takes it (as Band's planner does), and writes what Band writes: the
``LogResults`` summary on stdout and, at ``log_path``, the planner's Chrome trace with each
executed job as ``Job::ToJson`` prints it (unquoted ``unit_indices`` included). It is not
Band's scheduler: a job goes to the worker with the earliest expected finish, and every job
runs as one subgraph of units ``0,1``.
"""

from __future__ import annotations

import json
import queue
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from tests.devices.adb.fakephone.standins import common
from tests.devices.adb.fakephone.standins.benchmark_model import interpreter


def now_us() -> int:
    return time.time_ns() // 1000


@dataclass
class Job:
    job_id: int
    model_id: int
    enqueue_us: int
    slo_us: int
    done: threading.Event = field(default_factory=threading.Event)
    canceled: bool = False
    latency_us: int = 0


class Tracer:
    """chrome-tracer v0.0.2's ``ChromeTracer`` as Band's ``JobTracer`` feeds it."""

    def __init__(self) -> None:
        self.anchor_us, self.lock = now_us(), threading.Lock()
        self.events: dict[str, list[tuple[str, int, int, str]]] = {}

    def add_stream(self, name: str) -> None:
        self.events[name] = []

    def record(self, stream: str, name: str, start_us: int, end_us: int, args: str) -> None:
        with self.lock:
            self.events[stream].append((name, start_us, end_us, args))

    def dump(self) -> str:
        tids = {s: i + 1 for i, s in enumerate(sorted(self.events))}
        out = [f'{{"name": "Start", "ph": "i", "ts": 0, "tid": {tids[s]}, "pid": 0}}'
               for s in sorted(self.events)]
        out.append('{"name": "process_name", "ph": "M", "pid": 0, "tid": 0, '
                   '"args": {"name": "Band"}}')
        out += [f'{{"name": "thread_name", "ph": "M", "pid": 0, "tid": {tids[s]}, '
                f'"args": {{"name": "{s}"}}}}' for s in sorted(self.events)]
        for stream in sorted(self.events):
            for name, start, end, args in self.events[stream]:
                tid, t0, t1 = tids[stream], start - self.anchor_us, end - self.anchor_us
                out.append(f'{{"name": "{name}", "ph": "B", "ts": {t0}, "tid": {tid}, '
                           f'"pid": 0}}')
                out.append(f'{{"name": "{name}", "ph": "E", "ts": {t1}, "tid": {tid}, '
                           f'"pid": 0, "args": {args}}}')
        return '{"traceEvents": [' + ",".join(out) + "]}"


def to_json(job: Job, invoke_us: int, end_us: int, expected_us: int) -> str:
    """``Job::ToJson`` (band/common.cc), unquoted unit list and all."""
    return (f'{{"enqueue_time":{job.enqueue_us},"invoke_time":{invoke_us},'
            f'"end_time":{end_us},"profiled_execution_time":{expected_us},'
            f'"expected_execution_time":{expected_us},"expected_latency":{expected_us},'
            f'"slo_us":{job.slo_us},"model_id":{job.model_id},"unit_indices":0,1,'
            f'"job_id":{job.job_id}}}')


class Worker(threading.Thread):
    def __init__(self, wid: int, spec: dict[str, Any], graphs: list[str], tracer: Tracer
                 ) -> None:
        super().__init__(daemon=True)
        self.wid, self.device = wid, str(spec.get("device", "CPU"))
        kernels = "xnnpack" if self.device == "GPU" else "builtin"
        threads = int(spec.get("num_threads", 1))
        self.interps = [interpreter(g, threads, kernels) for g in graphs]
        self.stream = f"({self.device}Worker ,{wid})"
        self.tracer, self.inbox = tracer, queue.Queue[Job]()
        self.expected_us = [self.profile(i) for i in range(len(graphs))]
        self.free_at_us = 0
        tracer.add_stream(self.stream)

    def finish_us(self, model: int, enqueue_us: int) -> int:
        """When a job of ``model`` enqueued now would end here (expected)."""
        return max(self.free_at_us, enqueue_us) + self.expected_us[model]

    def profile(self, model: int) -> int:
        self.interps[model].invoke()
        start = time.monotonic_ns()
        for _ in range(3):
            self.interps[model].invoke()
        return (time.monotonic_ns() - start) // 3000

    def run(self) -> None:
        while True:
            job = self.inbox.get()
            start = now_us()
            if 0 < job.slo_us < start - job.enqueue_us:  # Planner::IsSLOViolated
                job.canceled = True
            else:
                self.interps[job.model_id].invoke()
                end = now_us()
                job.latency_us = end - job.enqueue_us
                self.tracer.record(self.stream, f"(Model {job.model_id}, JobId {job.job_id})",
                                   start, end, to_json(job, start, end,
                                                       self.expected_us[job.model_id]))
            job.done.set()


class Engine:
    def __init__(self, config: dict[str, Any]) -> None:
        self.graphs = [str(common.host_path(m["graph"])) for m in config["models"]]
        self.tracer, self.lock, self.next_id = Tracer(), threading.Lock(), 0
        workers = config.get("workers") or [{"device": "CPU"}]
        self.workers = [Worker(i, w, self.graphs, self.tracer) for i, w in enumerate(workers)]
        for w in self.workers:
            w.start()
        self.slo_us = [self.slo(m, i) for i, m in enumerate(config["models"])]

    def slo(self, model: dict[str, Any], index: int) -> int:
        if int(model.get("slo_us", -1)) > 0:
            return int(model["slo_us"])
        worst = max(w.expected_us[index] for w in self.workers)
        return int(worst * float(model["slo_scale"])) if float(model.get("slo_scale", -1)) > 0 \
            else -1

    def request(self, models: list[int]) -> list[Job]:
        """``Engine::RequestSync``: one batch, one enqueue time, wait for every job."""
        enqueue, jobs = now_us(), []
        with self.lock:
            for m in models:
                jobs.append(Job(self.next_id, m, enqueue, self.slo_us[m]))
                self.next_id += 1
                worker = min(self.workers, key=lambda w: w.finish_us(m, enqueue))
                worker.free_at_us = max(worker.free_at_us, enqueue) + worker.expected_us[m]
                worker.inbox.put(jobs[-1])
        for job in jobs:
            job.done.wait()
        return jobs


def validate(config: dict[str, Any]) -> str:
    """``LoadBenchmarkConfigs`` / ``LoadRuntimeConfigs``'s complaints, or ""."""
    for key in ("execution_mode", "models", "schedulers"):
        if key not in config:
            return f"Please check if argument `{key}` is given"
    if config["execution_mode"] not in ("periodic", "stream"):
        return f"Please check if argument execution mode {config['execution_mode']} is valid"
    if not config["models"]:
        return "Please specify at list one model in `models` argument"
    for m in config["models"]:
        if "graph" not in m:
            return "Please check if argument `graph` is given in the model configs"
        if config["execution_mode"] == "periodic" and not m.get("period_ms"):
            return "Please check if argument `period_ms` is given and >= 0"
    return ""


def run_stream(engine: Engine, seconds: float, results: dict[int, list[Job]]) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for job in engine.request(list(range(len(engine.graphs)))):
            results.setdefault(-1, []).append(job)


def run_periodic(engine: Engine, config: dict[str, Any], seconds: float,
                 results: dict[int, list[Job]]) -> None:
    stop = time.monotonic() + seconds

    def model_loop(m: int, period_s: float) -> None:
        while time.monotonic() < stop:
            start = time.monotonic()
            results.setdefault(m, []).extend(engine.request([m]))
            time.sleep(max(0.0, period_s - (time.monotonic() - start)))

    threads = [threading.Thread(target=model_loop, args=(i, m["period_ms"] / 1000), daemon=True)
               for i, m in enumerate(config["models"])]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def log_results(config: dict[str, Any], results: dict[int, list[Job]], slo_us: list[int]
                ) -> None:
    """``Benchmark::LogResults``' summary."""
    common.log("--\t\t Band Benchmark Tool \t\t--")
    common.log(f"<Option>\n  [Execution mode] : {config['execution_mode']}\n"
               f"  [Running time (ms)] : {config.get('running_time_ms', 60000)}")
    for scheduler in config["schedulers"]:
        common.log(f"  [Scheduler] : {scheduler}")
    for key, jobs in sorted(results.items()):
        name = "Global" if key < 0 else config["models"][key]["graph"]
        done = [j for j in jobs if not j.canceled]
        avg_ms = sum(j.latency_us for j in done) / max(len(done), 1) / 1000
        common.log(f"<Result - {name}>\n  [# Processed requests] : {len(jobs)}\n"
                   f"  [Avg. Latency (ms)] : {avg_ms:.6f}\n"
                   f"  [Avg. FPS] : {1000 / avg_ms if avg_ms else 0:.6f}\n"
                   f"  [Total # requests] : {len(jobs)}\n"
                   f"  [Total # canceled requests] : {len(jobs) - len(done)}")
        if key >= 0 and slo_us[key] > 0 and done:
            met = sum(j.latency_us < slo_us[key] for j in done)
            common.log(f"  [SLO Satisfactory Rate (%)] : {met / len(done) * 100:.6f}")


def main(argv: list[str]) -> int:
    if not argv:
        common.log("Usage:\n\tbenchmark <config-json-path> [<verbosity> = default value: "
                   "WARNING]")
        return 255
    config = json.loads(common.host_path(argv[0]).read_text())
    if problem := validate(config):
        common.log(problem)
        common.log("ERROR: Benchmark failed to initialize")
        return 255
    names = " ".join(m["graph"] for m in config["models"])
    with common.running():
        engine = Engine(config)
        if common.fault("stall", names):
            common.stall_forever()
        results: dict[int, list[Job]] = {}
        seconds = config.get("running_time_ms", 60000) / 1000
        if config["execution_mode"] == "stream":
            run_stream(engine, seconds, results)
        else:
            run_periodic(engine, config, seconds, results)
        if common.fault("crash", names):
            common.log("ERROR: Benchmark failed: INTERNAL: Failed to invoke")
            return 255
        log_results(config, results, engine.slo_us)
        if config.get("log_path"):
            common.host_path(config["log_path"]).write_text(engine.tracer.dump())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
