"""``harness``: the console script, one entry for every command.

    harness device=p20 scenario=ros              # the run (python -m harness), Hydra's flags too
    harness list                                 # baselines, devices, scenarios, experiments, zoo
    harness runs                                 # the runs under results/ (the index)
    harness report RUN [RUN ...] [--out DIR]     # re-render tables, plots, trace from run folders
    harness compare RUN_A RUN_B                  # Δ% with intervals, regressions
    harness analyze|zoo|paper|probe|calibrate|validate|farm|decisions|table5|recover|sensitivity ...
    eval "$(harness completion bash)"            # tab completion: commands, run=[...] names

A first word that names a command runs it with the rest of the line; anything else is the
run's command line, handed to Hydra unchanged (the other tools compose with Hydra's compose
API and take ``key=value`` the same way). Commands are imported only when chosen.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from importlib import import_module

#: command -> (module, function taking argv, what it does)
COMMANDS: dict[str, tuple[str, str, str]] = {
    "list": ("harness.cli.listing", "main", "baselines, devices, scenarios, experiments, models"),
    "runs": ("harness.cli.runs", "main", "the runs under results/, from its index"),
    "report": ("harness.cli.rerender", "main", "re-render a run folder's tables, plots, trace"),
    "compare": ("harness.reporting.compare", "main", "compare runs: Δ% with intervals"),
    "analyze": ("harness.analyze", "main", "the Model Analyzer: op support, subgraph counts"),
    "zoo": ("harness.models.zoo.__main__", "main", "the model zoo: list, build"),
    "paper": ("harness.paper.__main__", "main", "every table and figure of the paper"),
    "probe": ("harness.probe", "main", "a phone's facts and a draft device YAML"),
    "calibrate": ("harness.calibrate.__main__", "main", "a twin calibrated from a phone"),
    "validate": ("harness.validate.__main__", "main", "this machine against its own twin"),
    "farm": ("harness.farm.__main__", "main", "a night of the device farm"),
    "decisions": ("harness.decision_cost.__main__", "main",
                  "each policy's decision time against its counted work"),
    "table5": ("harness.table5.__main__", "main", "a twin's fragmentation fitted to Table V"),
    "recover": ("harness.experiment.recover", "main", "what a lost phone run left on the phone"),
    "sensitivity": ("harness.sensitivity.__main__", "main",
                    "every estimated twin constant swept: tornado, crossovers"),
    "completion": ("harness.cli.complete", "main",
                   'tab completion: eval "$(harness completion bash)" (or zsh)'),
    "complete": ("harness.cli.complete", "callback",
                 "what the completion script asks: the replies for a partial line"),
}
#: commands only a script calls (the completion's callback): not offered to users
INTERNAL = ("complete",)
#: commands whose entry reads sys.argv itself (no argv parameter)
ARGV_ONLY = ("paper",)


def entry(name: str) -> Callable[[list[str]], object]:
    """The function that runs command ``name`` with its arguments."""
    module, function, _ = COMMANDS[name]
    target = getattr(import_module(module), function)
    if name not in ARGV_ONLY:
        return target

    def with_argv(argv: list[str]) -> object:
        sys.argv = [f"harness {name}", *argv]
        return target()

    return with_argv


def usage() -> str:
    """The commands, one line each (``harness help``)."""
    lines = ["harness [key=value ...]    run the baselines (= python -m harness; --help)"]
    lines += [f"harness {name:<10} {words}" for name, (_, _, words) in COMMANDS.items()
              if name not in INTERNAL]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    """``harness ...``: a command by its first word, else the run."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in COMMANDS:
        code = entry(args[0])(args[1:])
        raise SystemExit(code if isinstance(code, int) else 0)
    if args[:1] == ["help"]:
        print(usage())
        return
    from harness.__main__ import main as run_main

    sys.argv = [sys.argv[0], *args]
    run_main()

