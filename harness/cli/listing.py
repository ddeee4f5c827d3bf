"""``harness list``: what a run can be made of, one line each.

    harness list                 # everything
    harness list baselines       # or: devices, scenarios, experiments, models, tools

Baselines and experiments are described by the first sentence of their YAML's header
comment, devices and scenarios by their ``description`` field; each device shows its kind
(twin, host or adb: what produces the numbers, from its class); models are the zoo's;
tools are every other command (``harness NAME --help`` says more), with the top-level
``conf/NAME.yaml`` that configures it where there is one.
Groups of baselines (``band_best``, ...) are listed with their members.
"""

from __future__ import annotations

import argparse
import textwrap
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from omegaconf import OmegaConf

from harness.config.compose import CONF_DIR
from harness.seams.errors import run_cli

WIDTH = 80
NAME_WIDTH = 20
#: a header's first sentence ends at its first ". " past this many chars ("eq. (1)" aside)
MIN_WORDS = 16
#: an entry's lines at most (the rest is in the file)
MAX_LINES = 2


def first_sentence(yaml_file: Path) -> str:
    """The first sentence of a YAML file's header comment ("" without one)."""
    lines = []
    for line in yaml_file.read_text().splitlines():
        if line.startswith("# @package"):
            continue
        if not line.startswith("#"):
            break
        lines.append(line.lstrip("# ").strip())
    text = " ".join(lines)
    end = text.find(". ", MIN_WORDS)
    return text[:end] if end >= 0 else text.rstrip(".")


def _line(name: str, words: str) -> str:
    """``name`` and its words, wrapped to :data:`WIDTH` under the words' column (never cut)."""
    pad = " " * (NAME_WIDTH + 3)
    first = f"  {name:<{NAME_WIDTH}} "
    if len(first) > len(pad):  # a long name: the words start on the next line
        return first.rstrip() + "\n" + _line("", words)
    return textwrap.fill(words, WIDTH, initial_indent=first, subsequent_indent=pad,
                         max_lines=MAX_LINES, placeholder=" …")


def _files(group: str) -> list[Path]:
    return sorted((CONF_DIR / group).glob("*.yaml"))


def _yaml(path: Path) -> Any:
    return OmegaConf.load(path)


def baselines() -> Iterator[str]:
    for path in _files("baseline"):
        yield _line(path.stem, first_sentence(path))
    for group, members in _yaml(CONF_DIR / "config.yaml").groups.items():
        yield _line(group, "group: " + ", ".join(members))


def device_kind(node: Any) -> str:
    """The kind word of a device YAML: its schema's class declares it."""
    from hydra.core.config_store import ConfigStore

    from harness.experiment.components import device_class

    for entry in (str(d).split("@")[0] for d in node.get("defaults", [])):
        if entry.startswith("/schema/device/"):
            stored = ConfigStore.instance().load(entry.lstrip("/") + ".yaml")
            return device_class(stored.node).kind.word
        if entry != "_self_":  # another device file it extends (host_equal: host)
            return device_kind(_yaml(CONF_DIR / "device" / f"{entry}.yaml"))
    return "unknown"


def devices() -> Iterator[str]:
    for path in _files("device"):
        node = _yaml(path)
        yield _line(path.stem, f"({device_kind(node)}) {node.get('description', '')}")


def scenarios() -> Iterator[str]:
    for path in _files("scenario"):
        yield _line(path.stem, str(_yaml(path).get("description", "")))


def experiments() -> Iterator[str]:
    for path in _files("experiment"):
        yield _line(path.stem, first_sentence(path))


def models() -> Iterator[str]:
    from harness.models import zoo

    for name in zoo.names():
        yield _line(name, zoo.get(name).description)


def tools() -> Iterator[str]:
    """Every command besides the run (``harness NAME ...``), by what it does; a command a
    top-level ``conf/NAME.yaml`` configures says so and takes ``key=value`` from it."""
    from harness.cli.main import COMMANDS, INTERNAL

    for name, (_, _, words) in COMMANDS.items():
        if name == "list" or name in INTERNAL:
            continue
        configured = (CONF_DIR / f"{name}.yaml").is_file()
        yield _line(name, f"{words} (conf/{name}.yaml)" if configured else words)


#: section -> (title, its lines)
SECTIONS: dict[str, tuple[str, Callable[[], Iterator[str]]]] = {
    "baselines": ("baselines (run=[...])", baselines),
    "devices": ("devices (device=...; kind in brackets)", devices),
    "scenarios": ("scenarios (scenario=...)", scenarios),
    "experiments": ("experiments (harness -m +experiment=NAME)", experiments),
    "models": ("zoo models (scenario.models=[...])", models),
    "tools": ("tools (harness NAME ...; harness NAME --help)", tools),
}


def listing(sections: Sequence[str]) -> str:
    """The chosen sections (every one when empty), each titled."""
    from harness.experiment.components import register

    register()  # the schemas the config files name
    out = []
    for name in sections or SECTIONS:
        title, lines = SECTIONS[name]
        out += [title, *lines(), ""]
    return "\n".join(out).rstrip() + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="harness list", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sections", nargs="*", choices=[[], *SECTIONS], metavar="SECTION",
                        help=f"one or more of {', '.join(SECTIONS)} (default: all)")
    args = parser.parse_args(argv)
    print(run_cli(lambda: listing(args.sections)), end="")
    return 0
