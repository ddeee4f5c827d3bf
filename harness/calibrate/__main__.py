"""``python -m harness.calibrate``: profile a phone, write its twin, run it, check it.

    python -m harness.calibrate device.serial=SERIAL device.tools.benchmark_model=/path/bm
    python -m harness.calibrate device=my_phone scenario=ros prior=p20 out=results/cal/p1

Composes ``conf/calibrate.yaml`` (the phone as ``device=adb`` runs it, the scenario whose
models are profiled, the prior twin), then runs the steps of :mod:`harness.calibrate` and
writes into ``out``: ``device/twin_<serial>.yaml`` (select it with
``hydra.searchpath=[file://OUT] device=twin_<serial>``), ``slices.csv`` (every slice's
measurement), ``heat.parquet`` (the heat-up trace), the twin's and the phone's run folders,
and ``calibration.md``. Bad input and an absent phone end with one ``error:`` line, exit 2.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd
from rich.console import Console

from baselines.band.analyzer import analyze
from devices.adb.calibrate.fit import (
    Provenance,
    build_twin,
    fit_heating,
    write_yaml,
)
from devices.adb.calibrate.profile import Profiler, SliceTiming, profile_all, slices, tool_version
from devices.adb.config import AdbDeviceConf
from devices.adb.draft import slug
from devices.adb.phone import Phone, connect
from devices.twin.calibrate import load_conf
from devices.twin.config import TwinDeviceConf
from harness.calibrate import check
from harness.calibrate.config import CalibrateConf, register
from harness.config.compose import CONF_DIR, compose, to_object
from harness.experiment.components import device_class, typed
from harness.experiment.components import register as register_components
from harness.experiment.models import Models, load_models
from harness.seams.errors import UserError, command
from harness.seams.plan import op_ranges


def compose_config(overrides: Sequence[str]) -> CalibrateConf:
    register_components()
    register()
    conf: CalibrateConf = to_object(compose("calibrate", overrides), CalibrateConf)
    cls = device_class(conf.device)
    if cls.kind.word != "adb":
        raise UserError(f"python -m harness.calibrate calibrates from a phone over adb; device "
                        f"{getattr(conf.device, 'name', '?')!r} is a {cls.kind.word} device")
    conf.device = typed(conf.device, cls)
    assert isinstance(conf.device, AdbDeviceConf)
    return conf


def prior_conf(name: str) -> TwinDeviceConf:
    path = CONF_DIR / "device" / f"{name}.yaml"
    if not path.is_file():
        raise UserError(f"prior={name!r}: no twin conf/device/{name}.yaml")
    return load_conf(path)


def passed_on(overrides: Sequence[str], group: str) -> list[str]:
    """The command line's overrides of one group (``device=…``, ``device.x=…``)."""
    return [o for o in overrides if o.split("=", 1)[0].lstrip("+~").split(".")[0] == group]


def phone_args(overrides: Sequence[str]) -> list[str]:
    """The phone as the command line chose it, for a ``python -m harness`` run."""
    mine = passed_on(overrides, "device")
    chosen = any(o.split("=", 1)[0] == "device" for o in mine)
    return mine if chosen else ["device=adb", *mine]


def slice_table(timings: Sequence[SliceTiming]) -> pd.DataFrame:
    return pd.DataFrame([{"model": t.slice.model, "processor": t.slice.processor,
                          "ops": op_ranges(t.slice.ops), "n_ops": len(t.slice.ops),
                          "latency_us": t.latency_us, "std_us": t.std_us, "count": t.count}
                         for t in timings])


def measure(conf: CalibrateConf, phone: Phone, models: Models, out: Path, console: Console
            ) -> tuple[list[SliceTiming], pd.DataFrame | None]:
    profiler = Profiler(phone, models.paths, models.graphs, out / "slices")
    todo = slices(models.graphs, phone, analyze)
    console.print(f"profiling {len(todo)} slices of {', '.join(models.graphs)} on "
                  f"{', '.join(p.name for p in phone.conf.processors)}, each alone")
    timings = profile_all(profiler, todo, conf.profile)
    slice_table(timings).to_csv(out / "slices.csv", index=False)
    if conf.heat.duration_s <= 0:
        return timings, None
    model = conf.heat.model or next(iter(models.graphs))
    console.print(f"heat-up trace: {model} on {conf.heat.processor} for "
                  f"{conf.heat.duration_s:g} s")
    trace = profiler.heat_trace(conf.heat, model)
    trace.to_parquet(out / "heat.parquet")
    return timings, trace


def calibrate(conf: CalibrateConf, out: Path, console: Console) -> tuple[str, list[str]]:
    """Measure and write the twin; returns its name and the measured constants' lines."""
    phone = connect(conf.device)
    date = datetime.now(UTC).strftime("%Y-%m-%d")
    models = load_models(conf.scenario.name, list(conf.scenario.models), True,
                         Path(conf.zoo_cache))
    timings, trace = measure(conf, phone, models, out, console)
    heat = fit_heating(trace, conf.heat.processor) if trace is not None else None
    prov = Provenance(phone.serial, phone.facts.model, date, tool_version(phone), conf.prior)
    name = f"twin_{slug(phone.serial)}"
    description = (f"twin calibrated from {phone.serial} ({phone.facts.model}, "
                   f"{phone.facts.soc}, {date})")
    twin = build_twin(name, description, prior_conf(conf.prior), conf.device, phone.facts,
                      timings, models.graphs, heat, prov)
    path = write_yaml(twin, out / "device" / f"{name}.yaml", [
        description, f"written by python -m harness.calibrate from {len(timings)} slices "
        f"measured alone with {prov.tool}; every [M] constant was measured on this phone,",
        f"every 'prior {conf.prior}:' one was not. The twin simulates the model files "
        "measured (needs them in zoo_cache)."])
    console.print(f"twin YAML: {path}")
    lines = [f"`{key}`: {value}" for proc in twin.processors if proc.twin
             for key, value in {f"{proc.name}.{k}": v for k, v in proc.twin.provenance.items()
                                }.items() if value.endswith("[M]")]
    if twin.twin is not None:
        lines += [f"`device.{k}`: {v}" for k, v in twin.twin.provenance.items()
                  if v.endswith("[M]")]
    return name, lines


def evaluate(conf: CalibrateConf, overrides: Sequence[str], out: Path, name: str,
             constants: list[str]) -> Path:
    scenario = [*passed_on(overrides, "scenario"), f"zoo_cache={conf.zoo_cache}"]
    c = conf.check
    timing = check.timing_args(c.twin_duration_s, c.twin_warmup_s)
    twin = [*check.twin_args(out, name), *scenario, *timing, f"seed.count={c.seeds}"]
    runs = None
    if conf.check.baselines:
        folder = check.run_into([*twin, f"run=[{','.join(conf.check.baselines)}]"],
                                out / "twin")
        runs = check.summary_rows(folder, conf.check.baselines)
    holdout = None
    if conf.check.holdout:
        phone = check.run_into([*phone_args(overrides), *scenario,
                                *check.timing_args(c.duration_s, c.warmup_s),
                                *check.PHONE_HOLDOUT, "seed.count=1"], out / "phone_vanilla")
        predicted = check.run_into([*twin, *check.HOLDOUT], out / "twin_vanilla")
        holdout = check.Holdout(check.fps_of(phone, "tflite_stock"),
                                check.fps_of(predicted, "tflite"))
    title = f"Twin calibrated from {name.removeprefix('twin_')} ({conf.scenario.name})"
    return check.report(out / "calibration.md", title, constants, runs, holdout)


def run(overrides: Sequence[str], console: Console | None = None) -> Path:
    console = console or Console()
    conf = compose_config(overrides)
    stamp = datetime.now(UTC).strftime("%Y-%m-%d")
    serial = conf.device.serial or "phone"
    out = Path(conf.out or f"results/calibrate/{slug(serial)}_{stamp}")
    out.mkdir(parents=True, exist_ok=True)
    name, constants = calibrate(conf, out, console)
    path = evaluate(conf, overrides, out, name, constants)
    console.print(path.read_text(), highlight=False, markup=False)
    console.print(f"report: {path}", highlight=False)
    return path


def main(argv: Sequence[str] | None = None) -> None:
    command(__doc__, run, argv)


if __name__ == "__main__":
    main()
