"""``python -m harness.validate``: this machine against its twin, row by row.

    python -m harness.validate                          # host, FRS, the default rows, 3 seeds
    python -m harness.validate device=host_equal scenario=ros seeds=5 duration_s=10
    python -m harness.validate 'twin_overrides=[device.twin.mechanisms.boundary_copy=false]'

Composes ``conf/validate.yaml``, then (:mod:`harness.validate`): calibrates a twin of the host
from single-model runs (:mod:`.measure`, :mod:`.twin`), runs the scenario's rows on the host
and on the twin with the same seeds, and writes into ``out``: ``device/<name>.yaml`` (the
twin), ``host/`` and ``twin/`` (the two run folders), ``single/`` (the single-model runs) and
``validation.md`` (the side-by-side table, the ordering, the load). Runs already made with
the same arguments are reused (``out/runs.json``); the slices' profiles come from the host's
profile cache. Bad input ends with one ``error:`` line, exit 2.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from rich.console import Console

from baselines.band.analyzer import analyze
from devices.adb.calibrate.fit import write_yaml
from devices.host.config import HostDeviceConf
from devices.host.contention import cpu_clock, foreign_load
from devices.host.device import HostDevice
from harness.calibrate.__main__ import passed_on
from harness.config.compose import compose, to_object
from harness.experiment.components import device_class, typed
from harness.experiment.components import register as register_components
from harness.experiment.models import load_models
from harness.experiment.provenance import git_commit
from harness.seams.errors import UserError, command
from harness.validate import compare, measure, report, runs
from harness.validate.config import ValidateConf, register
from harness.validate.rowplans import row_slices
from harness.validate.twin import HostFacts, build


def compose_config(overrides: Sequence[str]) -> ValidateConf:
    register_components()
    register()
    conf: ValidateConf = to_object(compose("validate", overrides), ValidateConf)
    cls = device_class(conf.device)
    if cls.kind.word != "host":
        raise UserError(f"python -m harness.validate checks a twin of this machine; device "
                        f"{getattr(conf.device, 'name', '?')!r} is a {cls.kind.word} device "
                        "(allowed: a host device, e.g. device=host or device=host_equal)")
    conf.device = typed(conf.device, cls)
    return conf


def load_text() -> str:
    """``/proc/loadavg``'s three averages."""
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def calibrate(conf: ValidateConf, overrides: Sequence[str], out: Path, console: Console
              ) -> tuple[str, list[str]]:
    """Measure the host from single-model runs and write its twin; its name and notes."""
    host: HostDeviceConf = conf.device
    cache = Path(conf.zoo_cache)
    models = load_models(conf.scenario.name, list(conf.scenario.models), True, cache)
    load0, clock0 = load_text(), cpu_clock()
    with HostDevice(host, models.paths, cache / "slices") as device:
        plans = measure.size1_plans(models.graphs, device, analyze)
        rows = row_slices([*device_args(conf, overrides), *runs.common_args(conf, overrides)],
                          device, models)
        todo = list(dict.fromkeys([*measure.slices(plans), *rows]))
        console.print(f"calibrating: {len(todo)} slices of {', '.join(models.graphs)} (Band's"
                      " at size 1 and every row's plans), each alone (cached profiles are "
                      "reused)")
        measures = measure.measure_slices(device, todo)
        console.print("calibrating: each processor's longest slices beside another's loop")
        besides = measure.time_beside(device, measures)
        store = device.profile_store
        sigma = measure.noise_sigma(store.root if store is not None else None)
    fixed_us, gbps = measure.fit_copy(measures)
    overheads = runs.single_model_overheads(conf, overrides, out, plans, device_args(
        conf, overrides), measures, console)
    date = datetime.now(UTC).strftime("%Y-%m-%d %H:%M")
    foreign = foreign_load(clock0, cpu_clock())
    source = (f"measured on this machine {date} UTC at load {load0} "
              f"(other processes {foreign if foreign is not None else float('nan'):.2f} "
              "cores) [M]")
    facts = HostFacts(gbps, fixed_us, overheads.per_subgraph_us,
                      measure.memory_bandwidth_gbps(), sigma, source)
    name = f"{host.name}_twin"
    twin = build(name, host, measures, models.graphs, facts, besides)
    write_yaml(twin, out / "device" / f"{name}.yaml", [
        f"Twin of {host.name}, written by python -m harness.validate from {len(measures)} "
        "slices measured alone and single-model runs on this machine; every [M] constant "
        "was measured here."])
    notes = [f"slices measured alone: {len(measures)}",
             f"input copy: {fixed_us:.2f} µs per tensor + bytes / {gbps:.2f} GB/s",
             f"runtime overhead per subgraph (single-model runs): "
             f"{overheads.per_subgraph_us:.1f} µs (mean gap "
             f"{_mean_us(overheads.gap_ns):.1f} µs, median {_median_us(overheads.gap_ns):.1f};"
             f" mean excess over the profile {_mean_us(overheads.excess_ns):.1f} µs, median "
             f"{_median_us(overheads.excess_ns):.1f}; {len(overheads.gap_ns)} subgraphs)",
             f"memory bandwidth (one core): {facts.memory_bandwidth_gbps:.2f} GB/s",
             f"latency noise sigma: {sigma:.4f}",
             "beside another core's loop (beyond the bandwidth model): " + "; ".join(
                 f"{p.name} {p.twin.provenance['corun_factor'].split(';')[0]}"
                 for p in twin.processors
                 if p.twin is not None and "corun_factor" in p.twin.provenance),
             f"calibration load: {load0}"]
    return name, notes


def _mean_us(values: Sequence[int]) -> float:
    return statistics.fmean(values) / 1000.0 if values else float("nan")


def _median_us(values: Sequence[int]) -> float:
    return statistics.median(values) / 1000.0 if values else float("nan")


def device_args(conf: ValidateConf, overrides: Sequence[str]) -> list[str]:
    """The host as the command line chose it, for a ``python -m harness`` run."""
    mine = passed_on(overrides, "device")
    chosen = any(o.split("=", 1)[0] == "device" for o in mine)
    return mine if chosen else [f"device={conf.device.name}", *mine]


def run(overrides: Sequence[str], console: Console | None = None) -> Path:
    console = console or Console()
    conf = compose_config(overrides)
    out = Path(conf.out or f"results/validate/{conf.device.name}_{conf.scenario.name}")
    out.mkdir(parents=True, exist_ok=True)
    name, notes = calibrate(conf, overrides, out, console)
    both = runs.both_sides(conf, overrides, out, name, device_args(conf, overrides), console)
    rows = compare.compare(both.host, both.twin, both.baselines)
    path = report.write(out / "validation.md", conf, rows, notes, both,
                        git_commit() or "?")
    console.print(path.read_text(), highlight=False, markup=False)
    console.print(f"report: {path}", highlight=False)
    return path


def main(argv: Sequence[str] | None = None) -> None:
    command(__doc__, run, argv)


if __name__ == "__main__":
    main()
