"""``harness recover RUN``: what a phone run the host lost left on the phone, brought home.

A phone run whose host was killed (SIGKILL, a crash) leaves its runner or tools running on the
phone and logs there that never reached the run folder. The next phone run finds them before
it starts (:mod:`devices.adb.leftovers`); this command does the same for one run folder, at
once: it reads the phone's address from the run's manifest (its composed config's device
node; ``ANDROID_SERIAL`` when the config named no serial), stops what the run left running
and pulls its logs into ``RUN/phone_leftovers/<phone folder>/``. A run still recording (its
folder's claim held) is refused in one line, as is a run that did not measure on a phone.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from omegaconf import OmegaConf

from harness.seams import claim
from harness.seams.errors import Parser, UserError, run_cli


def device_conf(folder: Path) -> Any:
    """The run's phone config (an ``AdbDeviceConf``), from its manifest."""
    from devices.adb.config import AdbDeviceConf

    try:
        manifest = json.loads((folder / "manifest.json").read_text())
    except (OSError, ValueError) as exc:
        raise UserError(f"{folder} is not a run folder with a readable manifest.json: "
                        f"{exc}") from None
    node = (manifest.get("config") or {}).get("device") if isinstance(manifest, dict) else None
    if manifest.get("device_kind") != "adb" or not isinstance(node, dict):
        raise UserError(f"{folder} is not a phone run (device kind "
                        f"{manifest.get('device_kind')!r}): only a phone run leaves "
                        "anything on a phone")
    merged = OmegaConf.merge(OmegaConf.structured(AdbDeviceConf), node)
    return OmegaConf.to_object(merged)


def recover(run: str) -> list[str]:
    """Stop and pull what run folder ``run`` left on its phone; the lines said."""
    from devices.adb import leftovers
    from devices.adb.transport import Transport

    folder = Path(run)
    if not folder.is_dir():
        raise UserError(f"{run} is not a folder")
    if (pid := claim.holder(folder)) is not None:
        raise UserError(f"{run} is still recording (pid {pid}): nothing to recover yet")
    conf = device_conf(folder)
    said: list[str] = []
    found = leftovers.settle(Transport(conf), conf.remote_dir, only=folder, say=said.append)
    return said or [f"nothing of {run} is left on the phone ({len(found)} folder(s) found)"]


def main(argv: Sequence[str] | None = None) -> int:
    parser = Parser(prog="harness recover", description=__doc__.splitlines()[0])
    parser.add_argument("run", help="the run folder of a phone run the host lost")
    args = parser.parse_args(argv)
    for line in run_cli(lambda: recover(args.run)):
        print(line, file=sys.stdout)
    return 0
