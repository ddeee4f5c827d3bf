"""A run session: the composed config in, a results folder out.

It checks every baseline to run, prints what will run and which kind of device produces the
numbers, runs each baseline (:mod:`harness.experiment.baseline`) with a progress bar, and a
bar for each phase before a clock starts (writing models, cutting slices, profiling:
:mod:`harness.experiment.progress`), records everything as it goes, writes the manifest,
then derives metrics, prints the comparison table beside the paper's figures, and writes
``summary.csv``, plots and a Chrome trace.

:func:`compose_run` is the programmatic ``python -m harness`` composition (scripts,
notebooks, tests): the same ``conf/``, the same schemas, Hydra's compose API.
"""

from __future__ import annotations

import dataclasses
import logging
import platform
import shutil
import sys
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import asdict, is_dataclass
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf
from rich.console import Console

from harness import native
from harness.cli.calling import next_steps
from harness.config.compose import compose, to_object
from harness.config.schema import RunConf
from harness.config.validate import check_all
from harness.experiment import contention
from harness.experiment.baseline import run_baseline
from harness.experiment.bounds import BoundCache, Work, union
from harness.experiment.bounds import facts as bound_facts
from harness.experiment.components import (
    baselines_to_run,
    device_class,
    register,
    resolve,
    seed_list,
)
from harness.experiment.dryrun import DryRun
from harness.experiment.dryrun import plan as dry_plan
from harness.experiment.endings import (
    Interrupted,
    obey_pending_signal,
    one_line,
    signals_ignored,
    stop_on_signals,
)
from harness.experiment.models import Models, check_names, load_models, model_names
from harness.experiment.outcome import BaselineOutcome, ClockGaps, SessionState
from harness.experiment.progress import Progress, plain_progress, terminal_progress
from harness.experiment.provenance import git_commit, versions
from harness.reporting import coverage, runindex
from harness.reporting.measures import added
from harness.reporting.store import RunRecorder, load_run, read_manifest, read_table
from harness.seams import claim
from harness.seams.device import DeviceKind
from harness.seams.errors import RunFailure
from harness.seams.fitting import terminal_console
from harness.seams.progress import Advance, StartPhase
from harness.seams.units import NS_PER_MS, NS_PER_S


def compose_run(overrides: list[str] | tuple[str, ...] = ()) -> tuple[RunConf, DictConfig]:
    """``conf/config.yaml`` with ``overrides`` as ``python -m harness`` would compose it: the
    typed config and the raw one."""
    register()
    raw = compose("config", overrides)
    return checked(resolve(to_object(raw, RunConf)), raw), raw


def checked(cfg: RunConf, raw: DictConfig) -> RunConf:
    """The resolved run, held to every field's spec and free of unknown keys
    (:mod:`harness.config.validate`), its models named correctly and its added metrics
    importable (:func:`~harness.reporting.measures.added`): all before anything runs."""
    check_all(raw, cfg)
    check_names(cfg.scenario.name, list(cfg.scenario.models))
    added(cfg.metrics)
    return cfg


def run(overrides: list[str], output_dir: str | Path, report: bool = True) -> Path:
    """Compose with ``overrides`` (as on the command line) and run into ``output_dir``: the
    programmatic ``python -m harness`` (notebooks, scripts). ``report=False`` records the
    run folder only (no printed tables, ``summary.csv``, trace or plots): for callers that
    derive their own figures from the folder (``python -m harness.paper``)."""
    cfg, raw = compose_run(overrides)
    return run_session(cfg, raw, str(output_dir), report)


def device_kind(cfg: RunConf) -> DeviceKind:
    """What produced the numbers, as the device's class declares it."""
    return device_class(cfg.device).kind


def scenario_models(cfg: RunConf, phases: StartPhase | None = None) -> Models:
    """The scenario's models, as files where the device runs real ones (writing them is a
    phase of ``phases``, bars of their own by default)."""
    files = device_class(cfg.device).needs_model_files
    return load_models(cfg.scenario.name, list(cfg.scenario.models), files, Path(cfg.zoo_cache),
                       phases)


def run_session(cfg: RunConf, raw: DictConfig, output_dir: str, report: bool = True) -> Path:
    console = terminal_console()
    folder = Path(output_dir)
    cfg = checked(resolve(cfg), raw)
    kind = device_kind(cfg)
    console.print(f"[bold]{kind.words}[/bold]")
    console.print(_plan_line(cfg, kind))
    if cfg.dry_run:
        load_models(cfg.scenario.name, list(cfg.scenario.models), False, Path(cfg.zoo_cache))
        console.print("\n".join(_dry_run(cfg, kind, folder).lines()), highlight=False)
        _leave_no_folder(folder)
        return folder
    started: float | None = None  # (set once the models are there and the run begins)
    try:
        with progress_of(console) as progress:
            models = scenario_models(cfg, progress.phase)
            cfg = with_model_names(cfg)
            started = time.monotonic()
            _record(cfg, raw, models, RunRecorder(folder), progress)
        if report:
            _report(cfg, folder, console)
    finally:
        if started is not None:
            runindex.note(folder, time.monotonic() - started)
    return folder


def progress_of(console: Console) -> AbstractContextManager[Progress]:
    """Bars on a terminal, plain lines elsewhere (:mod:`harness.experiment.progress`)."""
    return terminal_progress(console) if sys.stdout.isatty() else plain_progress()


def _dry_run(cfg: RunConf, kind: DeviceKind, folder: Path) -> DryRun:
    """What would run, in what order, and how long (:mod:`harness.experiment.dryrun`)."""
    rates = runindex.wall_rates(runindex.root_of(folder), cfg.device.name, native.status())
    return dry_plan(baselines_to_run(cfg), seed_list(cfg), cfg.scenario.warmup_s,
                    cfg.scenario.duration_s, kind.word, native.status(), rates)


#: what Hydra and the folder's claim write into a run folder before the run starts
HYDRA_ONLY = frozenset({".hydra", "__main__.log", claim.LOCK})


def _leave_no_folder(folder: Path) -> None:
    """A dry run measures nothing: remove the folder Hydra made for it when it holds only
    Hydra's own files (its config and an empty log) and the claim's."""
    found = {p.name for p in folder.iterdir()} if folder.is_dir() else {"?"}
    made = ".hydra" in found  # a folder Hydra made (an empty one given is left alone)
    if made and found <= HYDRA_ONLY and not any(p.stat().st_size for p in folder.glob("*.log")):
        _close_logs_in(folder)
        shutil.rmtree(folder, ignore_errors=True)


def _close_logs_in(folder: Path) -> None:
    """Detach the log files Hydra opened in ``folder`` (its job log, created on the first
    record): a later record in this process must not recreate it in a removed folder."""
    for logger in (logging.getLogger(), *(logging.getLogger(n) for n in
                                          list(logging.root.manager.loggerDict))):
        for handler in list(getattr(logger, "handlers", ())):
            name = getattr(handler, "baseFilename", "")
            if name and Path(name).parent == folder.resolve():
                logger.removeHandler(handler)
                handler.close()


def with_model_names(cfg: RunConf) -> RunConf:
    """The run with its scenario's models as names (a file's entry becomes its name)."""
    scenario = dataclasses.replace(cfg.scenario, models=model_names(cfg.scenario.models))
    return dataclasses.replace(cfg, scenario=scenario)


def _record(cfg: RunConf, raw: DictConfig, models: Models, recorder: RunRecorder,
            progress: Progress) -> None:
    """Run every baseline into ``recorder``, reporting to ``progress``; however the run
    ends, close the journals into parquet and write the manifest's ``status``:
    ``completed``, ``interrupted`` (SIGINT or SIGTERM; a further signal during shutdown is
    noted, not obeyed) or ``failed`` (with the error's one line, a failure to close the
    journals included: they stay, readable)."""
    state = SessionState()
    ending: dict[str, Any] = {"status": "failed"}
    began = contention.sample()
    with stop_on_signals():
        try:
            _write_manifest(recorder, cfg, raw, state, {"status": "running"})
            _run_all(cfg, models, recorder, progress, state)
            ending = {"status": "completed"}
        except Interrupted as exc:
            ending = {"status": "interrupted", "signal": exc.signal_name}
            raise
        except BaseException as exc:
            ending["error"] = one_line(exc)
            raise
        finally:
            ending["contention"] = contention.measured(began, contention.sample())
            with signals_ignored():
                _close(cfg, raw, recorder, state, ending)


def _close(cfg: RunConf, raw: DictConfig, recorder: RunRecorder, state: SessionState,
           ending: dict[str, Any]) -> None:
    """Close the journals and write the ending; a close that fails (a full disk) ends the
    run ``failed`` with its line (the first error stays the ``error`` of a run that had
    already failed), and is raised once the ending is written."""
    failure: BaseException | None = None
    try:
        recorder.close(release=False)
    except Exception as exc:
        failure = exc
        ending.setdefault("error", one_line(exc))
        ending["status"] = "failed" if ending["status"] == "completed" else ending["status"]
        ending["close_error"] = one_line(exc)
    if failure is None:
        ending.update(_coverage(cfg, recorder.folder, state))
    try:
        _write_manifest(recorder, cfg, raw, state, ending)
    finally:
        recorder.release()
    for line in ending.get(coverage.FLAGS, ()) if ending["status"] == "completed" else ():
        Console(stderr=True).print(f"FLAG: {line}", highlight=False)  # (else: its error)
    if failure is not None:
        raise failure


def _coverage(cfg: RunConf, folder: Path, state: SessionState) -> dict[str, Any]:
    """The manifest's ``coverage``, ``min_coverage`` and ``flags``
    (:mod:`harness.reporting.coverage`), from the requests the run closed with."""
    try:
        requests = read_table(folder, "requests", read_manifest(folder))
    except Exception:  # (an unreadable table was already the run's error)
        return {}
    sc = cfg.scenario
    shares = coverage.shares(requests, sc.warmup_s, sc.duration_s, state.gaps)
    found = coverage.flags(shares, cfg.min_coverage, state.gaps)
    return {coverage.COVERAGE: shares, coverage.MIN_COVERAGE: cfg.min_coverage,
            **({coverage.FLAGS: found} if found else {})}


def _plan_line(cfg: RunConf, kind: DeviceKind) -> str:
    sc, seeds = cfg.scenario, seed_list(cfg)
    return (
        f"device={cfg.device.name} ({kind.word}) scenario={sc.name} "
        f"models={','.join(sc.models)} arrival={sc.arrival.value} duration={sc.duration_s}s "
        f"warmup={sc.warmup_s}s baselines={','.join(baselines_to_run(cfg))} "
        f"seeds={seeds[0]}..{seeds[-1]} ({len(seeds)})"
    )


def _run_all(cfg: RunConf, models: Models, recorder: RunRecorder, progress: Progress,
             state: SessionState) -> None:
    """Every seed of every baseline, seed by seed (an interrupted run keeps whole seeds), into
    ``state``: each outcome, and per seed the run's bound over every plan that loaded. Each
    baseline has a task of ``progress``; its phases before the clock are named by it and
    its seed ("band seed 0: profiling 22 subgraphs")."""
    names, seeds = baselines_to_run(cfg), seed_list(cfg)
    span_ns = int((cfg.scenario.warmup_s + cfg.scenario.duration_s) * NS_PER_S)
    bounds = BoundCache()
    gaps = ClockGaps(int(cfg.sensor_interval_ms * NS_PER_MS), state.gaps)
    wall = device_kind(cfg).word == "host"
    job = job_label()
    ticks = {name: progress.task(f"{job}{name}", span_ns * len(seeds)) for name in names}
    for k, seed in enumerate(seeds):
        works: list[Work] = []
        processors: tuple[str, ...] = ()
        for name in names:
            def tick(now_ns: int, name: str = name, done: int = k * span_ns,
                     seed: int = seed) -> None:
                obey_pending_signal()
                recorder.flush_due()
                if wall:
                    gaps.see(name, seed, now_ns)
                ticks[name](done + min(now_ns, span_ns))

            def phases(what: str, total: int, label: str = f"{job}{name} seed {seed}: "
                       ) -> Advance:
                return progress.phase(label + what, total)

            one = _run_one(cfg, name, models, recorder, (tick, phases), seed, bounds)
            if one.work is not None:
                works.append(one.work)
                processors = one.processors
            state.add(name, seed, one)
        if works:
            state.bound[seed] = bound_facts(bounds.bound(processors, union(works)))


def job_label() -> str:
    """``job 1 (seed.base=1) `` inside a sweep (``-m``), so each progress line says whose it
    is; "" in a single run."""
    from hydra.core.hydra_config import HydraConfig
    from hydra.types import RunMode

    if not HydraConfig.initialized() or HydraConfig.get().mode != RunMode.MULTIRUN:
        return ""
    job = HydraConfig.get().job
    return f"job {job.num} ({job.override_dirname or 'defaults'}) "


def _run_one(cfg: RunConf, name: str, models: Models, recorder: RunRecorder,
             report: tuple[Callable[[int], None], StartPhase], seed: int, bounds: BoundCache
             ) -> BaselineOutcome:
    """One baseline with one seed, reporting its run and its phases to ``report``; a baseline
    the device cannot run (out of memory) is recorded as failed, and the run goes on."""
    tick, phases = report
    try:
        return run_baseline(cfg, name, models, recorder, tick, recorder.folder / "cache",
                            seed=seed, bounds=bounds, phases=phases)
    except RunFailure as exc:
        Console(stderr=True).print(f"{name} seed {seed} failed: {exc}")
        return BaselineOutcome.failure(str(exc))


def _report(cfg: RunConf, folder: Path, console: Console) -> None:
    """Metrics, ``summary.csv``, the trace and the plots, written before anything is printed
    (:func:`~harness.reporting.render.render`)."""
    from harness.reporting.render import render

    for path in render(load_run(folder), folder, console, cfg.plots):
        if path.suffix == ".png":
            console.print(f"plot: {path}")
    console.print(next_steps(folder), highlight=False, soft_wrap=True)


# -- manifest -----------------------------------------------------------------------------


def _write_manifest(
    recorder: RunRecorder, cfg: RunConf, raw: DictConfig, state: SessionState,
    ending: dict[str, Any],
) -> None:
    recorder.write_manifest({
        **ending,
        "models": list(cfg.scenario.models),
        "duration_s": cfg.scenario.duration_s,
        "warmup_s": cfg.scenario.warmup_s,
        "device": cfg.device.name,
        "device_kind": device_kind(cfg).word,
        "kind_meaning": device_kind(cfg).meaning,
        "kind_words": device_kind(cfg).words,
        "scenario": cfg.scenario.name,
        "baselines": baselines_to_run(cfg),
        # the groups `run` asked for (a *_best group is reported as one more row)
        "groups": {g: list(m) for g, m in cfg.groups.items() if g in cfg.run},
        "seed": cfg.seed.base,
        "seeds": seed_list(cfg),
        "config": OmegaConf.to_container(raw, resolve=True),
        "versions": versions(),
        "git_commit": git_commit(),
        "machine": {"python": platform.python_version(), "system": platform.system(),
                    "machine": platform.machine(), "processor": platform.processor()},
        **_jsonable(state.manifest()),
    })


def _jsonable(value: Any) -> Any:
    if is_dataclass(value) and not isinstance(value, type):
        return _jsonable(asdict(value))
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_jsonable(v) for v in value]
    if hasattr(value, "value") and hasattr(value, "name"):
        return value.value
    return value
