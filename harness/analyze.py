"""``python -m harness.analyze``: how the Model Analyzer cuts models on one device.

    python -m harness.analyze device=k50pro model=deeplabv3 window_size=5
    python -m harness.analyze device=p20 model=all
    python -m harness.analyze model=deeplabv3 window_size=[1,2,3,5,8]
    python -m harness.analyze model.path=tests/fixtures/selfie_segmentation.tflite

One window size prints, per model, the share of ops each processor supports and the subgraph
counts of the paper's Table III (units, unit subgraphs, merged, total). A list of window sizes
sweeps them (the paper's Figure 6) and writes ``subgraphs_vs_window.csv`` and ``.png``; one
window size writes its table as ``subgraphs.csv`` when an output folder is given. Files go
into ``out_dir`` (default ``results/analyze/<device>/``; ``hydra.run.dir=DIR`` is taken as
``out_dir`` too, as the run command takes it), and each path written is printed.
``model=all`` takes every model config under ``conf/model/``; ``model.path=<file.tflite>``
analyzes any ``.tflite`` file (its graph profile computed on first use and cached by content
hash, :mod:`harness.models.byo`);
``graph=<profile.json>`` analyzes a saved graph profile instead of the zoo model.

The config is composed with Hydra's compose API (``conf/analyze.yaml``, through
:mod:`harness.config.compose`), so every bad input, composition errors included, ends as one
``error:`` line and exit code 2 (:mod:`harness.seams.errors`). Op support comes from the
device config's processors (:mod:`devices.opsupport`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path
from typing import Any

from hydra.core.config_store import ConfigStore
from omegaconf import MISSING
from rich.console import Console

from adms.analyzer import analyze
from devices.opsupport import support_table, supported_share
from harness.config.compose import compose, group_options, to_object
from harness.config.schema import ModelConf
from harness.config.validate import check_all
from harness.experiment.components import register
from harness.models import byo
from harness.seams.errors import UserError, command
from harness.seams.fields import at_least, spec
from harness.seams.fitting import fitted, terminal_console
from harness.seams.graph import ModelGraph
from harness.seams.plan import ModelPlan, Processor

COUNTS = ("unit", "unit_subgraphs", "merged", "total")


@dataclass
class AnalyzeConf:
    # a device whose processors carry op support (a twin or the host: conf/device/*.yaml)
    device: Any = MISSING
    model: ModelConf = MISSING
    # ADMS window size (Band's minimum_subgraph_size), or a list of sizes to sweep
    window_size: Any = field(default=1, metadata=spec(
        "ops", at_least(1), "window size, or a list of them to sweep", non_empty=True,
        integer=True))
    # add merged subgraphs (Band's merge_unit_subgraph); false: unit subgraphs only
    merge: bool = True
    # where a sweep writes its CSV and PNG; empty: results/analyze/<device>/
    out_dir: str = ""
    # a graph profile (JSON) to analyze instead of the zoo model
    graph: str = ""
    # where the graph profiles of .tflite files (model.path) are cached, by content hash
    cache: str = ".cache/zoo"


def register_analyze() -> None:
    """The schema, plus ``model=all`` (every model config) as a config-group option."""
    register()
    cs = ConfigStore.instance()
    cs.store(name="analyze_schema", node=AnalyzeConf)
    cs.store(group="model", name="all", node=ModelConf(name="all", description="every model"))


def compose_config(overrides: Sequence[str]) -> tuple[AnalyzeConf, list[str]]:
    """The typed config and the names of every model config (for ``model=all``)."""
    register_analyze()
    raw = compose("analyze", overrides)
    conf: AnalyzeConf = to_object(raw, AnalyzeConf)
    check_all(raw, conf)
    if not hasattr(conf.device, "processors"):
        device = conf.device
        name = device.get("name") if isinstance(device, dict) else getattr(device, "name", "")
        raise UserError(f"device {name!r} declares no processors to analyze (a device YAML "
                        "starts from its schema: defaults: [/schema/device/twin@_here_])")
    return conf, [m for m in group_options("model") if m != "all"]


def window_sizes(value: Any) -> list[int]:
    """``window_size`` (validated by its field's spec) as a list of integers."""
    sizes = value if isinstance(value, list | tuple) else [value]
    if any(isinstance(w, bool) or not isinstance(w, int | float | str) for w in sizes):
        raise UserError(f"window_size={value!r} is not a window size or a list of them, "
                        "e.g. window_size=5 or window_size=[1,2,3]")
    return [int(w) for w in sizes]


def load_graphs(conf: AnalyzeConf, model_names: Sequence[str]) -> list[ModelGraph]:
    if conf.graph:
        if conf.graph.endswith(".tflite"):
            raise UserError(f"graph={conf.graph!r} is a .tflite file, not a graph profile "
                            f"(JSON): analyze a .tflite with model.path={conf.graph}")
        return [ModelGraph.load(conf.graph)]
    if conf.model.path:
        name, path = byo.parse(conf.model.path)
        return [byo.profile(name, path or Path(conf.model.path), Path(conf.cache))]
    names = sorted(model_names) if conf.model.name == "all" else [conf.model.name]
    if not names:
        raise UserError("model=all: no model configs under conf/model/")
    return [_zoo_graph(name) for name in names]


def _zoo_graph(name: str) -> ModelGraph:
    try:
        load_graph = import_module("harness.models.zoo").load_graph
    except (ImportError, AttributeError) as exc:
        raise UserError(f"the model zoo is not available ({exc}); pass graph=<profile.json>") \
            from None
    graph: ModelGraph = load_graph(name)
    return graph


def plan_rows(conf: AnalyzeConf, graph: ModelGraph, window: int) -> dict[str, Any]:
    """One row: the model's op support per processor and its subgraph counts."""
    unsupported = support_table(graph, conf.device.processors)
    processors = [Processor(p.name, p.kind) for p in conf.device.processors]
    plan = analyze(graph, processors, unsupported, window, conf.merge)
    shares = {f"{p.name}_ops_pct": 100 * supported_share(graph, unsupported[p.name])
              for p in processors}
    return {"model": graph.name, "ops": graph.num_ops, **shares, "window_size": window,
            **_counts(plan)}


def _counts(plan: ModelPlan) -> dict[str, int]:
    c = plan.counts()
    return dict(zip(COUNTS, (c.unit, c.unit_subgraphs, c.merged, c.total), strict=True))


def print_table(title: str, rows: Sequence[dict[str, Any]], console: Console) -> None:
    """The rows fitted to the console (split by columns, the model named in each part)."""
    headers = [col.replace("_ops_pct", " %").replace("unit_subgraphs", "unit sg")
               .replace("window_size", "window") for col in rows[0]]
    cells = [[f"{v:.0f}" if isinstance(v, float) else str(v) for v in row.values()]
             for row in rows]
    for part in fitted(headers, cells, console.width, title):
        console.print(part)


def write_sweep(rows: Sequence[dict[str, Any]], out_dir: Path, conf: AnalyzeConf
                ) -> tuple[Path, Path]:
    """CSV of every row and the sweep's figure (:mod:`harness.reporting.windowplot`)."""
    import pandas as pd

    from harness.reporting import windowplot

    out_dir.mkdir(parents=True, exist_ok=True)
    frame = pd.DataFrame(rows)
    csv = out_dir / "subgraphs_vs_window.csv"
    frame.to_csv(csv, index=False)
    models = list(dict.fromkeys(str(m) for m in frame["model"]))
    png = windowplot.write(frame, windowplot.title(conf.device.name, conf.merge, models),
                           provenance(conf), out_dir / "subgraphs_vs_window.png")
    return csv, png


def provenance(conf: AnalyzeConf) -> str:
    """The sweep figure's footer: the device config and its kind (only its op support is
    read: nothing is simulated or measured), the analysis (deterministic: no seeds), the
    main versions and the commit."""
    from harness.experiment.components import device_class
    from harness.experiment.provenance import git_commit, versions
    from harness.reporting.report import FOOTER_PACKAGES

    kind = device_class(conf.device).kind
    found = versions()
    main = ", ".join(f"{k} {found[k]}" for k in sorted(found) if k in FOOTER_PACKAGES)
    return (f"device config {conf.device.name} ({kind.word}): op support of its processors "
            f"· adms/analyzer.py, deterministic: no seeds · {main} · "
            f"commit {git_commit()[:10]}")


def run(overrides: Sequence[str], console: Console | None = None) -> list[dict[str, Any]]:
    """Compose, analyze, print (and for a sweep write files); return the rows."""
    console = console or terminal_console()
    overrides = with_out_dir(overrides)
    conf, model_names = compose_config(overrides)
    sizes = window_sizes(conf.window_size)
    graphs = load_graphs(conf, model_names)
    rows = [plan_rows(conf, g, w) for g in graphs for w in sizes]
    print_table(f"Model Analyzer on {conf.device.name}", rows, console)
    out_dir = Path(conf.out_dir or f"results/analyze/{conf.device.name}")
    written: Sequence[Path] = ()
    if len(sizes) > 1:
        written = write_sweep(rows, out_dir, conf)
    elif conf.out_dir:
        written = (write_table(rows, out_dir),)
    for path in written:
        console.print(f"wrote {path}")
    return rows


#: the run command's name for the output folder, taken as ``out_dir``
RUN_DIR = "hydra.run.dir="


def with_out_dir(overrides: Sequence[str]) -> list[str]:
    """``overrides`` with ``hydra.run.dir=DIR`` turned into ``out_dir=DIR``."""
    return [f"out_dir={o[len(RUN_DIR):]}" if o.startswith(RUN_DIR) else o for o in overrides]


def write_table(rows: Sequence[dict[str, Any]], out_dir: Path) -> Path:
    """The table of one window size as ``subgraphs.csv``."""
    import pandas as pd

    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "subgraphs.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point: ``python -m harness.analyze key=value ...``."""
    command(__doc__, run, argv)


if __name__ == "__main__":
    main()
