"""Command line of the model zoo.

    python -m harness.zoo list
    python -m harness.zoo build [NAMES...] [--cache DIR] [--seed N]
    python -m harness.zoo build --keras [NAMES...] [--cache DIR] [--seed N] [--profiles DIR]

``list`` prints the registry from the committed graph profiles (no TensorFlow needed).
``build`` writes the named models (all by default) into the ``.tflite`` cache from their
committed profiles (no TensorFlow needed) and prints the same table for what it wrote. With
``--keras`` it rebuilds them with their Keras builders instead (the ``zoo`` extra) and writes
each model's JSON graph profile, with its recipe (into the cache dir unless ``--profiles``
names another). An unknown model name is a one-line error with exit code 2.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from rich.console import Console

from harness.models import zoo
from harness.seams.errors import Parser, cli_guard
from harness.seams.fitting import fitted, terminal_console
from harness.seams.graph import ModelGraph


def _parser() -> argparse.ArgumentParser:
    parser = Parser(prog="python -m harness.zoo",
                                     description="Build and list the model zoo.")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="print the registry from the committed graph profiles")
    build = sub.add_parser("build", help="write .tflite files from the committed profiles, or "
                                         "rebuild them and their profiles with Keras")
    build.add_argument("names", nargs="*", metavar="NAME", help="models to build (default: all)")
    build.add_argument("--cache", type=Path, default=zoo.DEFAULT_CACHE,
                       help=f"directory for the .tflite files (default: {zoo.DEFAULT_CACHE})")
    build.add_argument("--seed", type=int, default=0, help="weight seed (default: 0)")
    build.add_argument("--keras", action="store_true",
                       help="rebuild with the Keras builders (needs the zoo extra) and write "
                            "graph profiles")
    build.add_argument("--profiles", type=Path, default=None,
                       help="directory for the JSON graph profiles (default: the cache dir; "
                            "pass the package's harness/models/zoo/profiles to update the "
                            "committed ones: Keras names tensors by build order, so rebuilds "
                            "differ)")
    build.add_argument("--verbose", action="store_true",
                       help="show TensorFlow's conversion output")
    return parser


#: the zoo table's columns; "top op types" is free text and folds
HEADERS = ("model", "input", "ops", "params", "MB", "top op types", "paper ops", "dev")


def _row(graph: ModelGraph) -> list[str]:
    model = zoo.get(graph.name)
    dev = zoo.deviation(model, graph.num_ops)
    return [model.name + (" (int8)" if model.quantized else ""),
            "×".join(str(d) for d in model.input_shape), str(graph.num_ops),
            f"{graph.parameter_count / 1e6:.2f}M", f"{graph.weight_bytes / 1e6:.1f}",
            zoo.op_mix(graph), "" if model.paper_ops is None else str(model.paper_ops),
            "" if dev is None else f"{100 * dev:+.1f}%"]


def _print_table(console: Console, title: str, graphs: Sequence[ModelGraph],
                 seconds: dict[str, float] | None = None) -> None:
    """The zoo table fitted to the console (the op types fold, no cell is cut)."""
    headers = [*HEADERS, *(["build s"] if seconds is not None else [])]
    rows = [[*_row(g), *([f"{seconds[g.name]:.0f}"] if seconds is not None else [])]
            for g in graphs]
    fold = (HEADERS.index("top op types"),)
    for part in fitted(headers, rows, console.width, title, left=(0, *fold), fold=fold):
        console.print(part)


def cmd_list(console: Console) -> None:
    graphs = []
    for name in zoo.names():
        if zoo.profile_path(name).is_file():
            graphs.append(zoo.load_graph(name))
        else:
            console.print(f"[yellow]{name}: no committed profile[/]")
    _print_table(console, "model zoo (committed profiles)", graphs)


@contextlib.contextmanager
def _quiet(enabled: bool) -> Iterator[None]:
    """Silence stdout/stderr at the file-descriptor level (TensorFlow's C++ logs included)."""
    if not enabled:
        yield
        return
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    with open(os.devnull, "w") as null:
        os.dup2(null.fileno(), 1)
        os.dup2(null.fileno(), 2)
        try:
            yield
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            for fd in saved:
                os.close(fd)


def _build_keras(name: str, args: argparse.Namespace) -> tuple[Path, ModelGraph]:
    with _quiet(not args.verbose):
        path = zoo.build_keras(name, args.cache, args.seed)
    graph, recipe = zoo.make_profile(name, path, args.seed)
    zoo.save_profile(graph, recipe, Path(args.profiles or args.cache) / f"{name}.json")
    return path, graph


def _build(name: str, args: argparse.Namespace) -> tuple[Path, ModelGraph]:
    return zoo.build(name, args.cache, args.seed), zoo.load_graph(name)


def cmd_build(args: argparse.Namespace, console: Console) -> None:
    names = args.names or zoo.names()
    for name in names:
        zoo.get(name)  # every name is checked before anything is built
    if args.keras:
        zoo.require_tensorflow()
    graphs, seconds = [], {}
    for name in names:
        start = time.perf_counter()
        path, graph = (_build_keras if args.keras else _build)(name, args)
        seconds[name] = time.perf_counter() - start
        console.print(f"built {name}: {path} ({graph.num_ops} ops, {seconds[name]:.0f} s)")
        graphs.append(graph)
    _print_table(console, f"model zoo (seed {args.seed}, cache {args.cache})", graphs, seconds)


def main(argv: Sequence[str] | None = None) -> None:
    args = _parser().parse_args(argv)
    console = terminal_console()
    with cli_guard():
        if args.command == "list":
            cmd_list(console)
        else:
            cmd_build(args, console)


if __name__ == "__main__":
    main()
