"""Files on the phone by content hash: ``<remote_dir>/<sha256[:16]>/<name>``.

A file already there with the same size is not pushed again (its folder is its hash, so a
changed file lands in a new folder and stale copies never answer for new ones). A tool binary
is checked before it is pushed: an ELF file's machine must be one of the phone's ABIs
(``ro.product.cpu.abilist``); a script (``#!``) is taken as it is; anything else is refused.
"""

from __future__ import annotations

import hashlib
import posixpath
from dataclasses import dataclass, field
from pathlib import Path

from devices.adb.transport import Transport
from harness.seams.errors import UserError

#: ELF e_machine -> Android ABI
ELF_ABIS = {183: "arm64-v8a", 40: "armeabi-v7a", 62: "x86_64", 3: "x86", 243: "riscv64"}


def content_hash(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def binary_abi(path: Path) -> str | None:
    """The ABI an ELF file is built for; ``"script"`` for a ``#!`` file; None otherwise."""
    head = path.read_bytes()[:20]
    if head[:2] == b"#!":
        return "script"
    if head[:4] != b"\x7fELF" or len(head) < 20:
        return None
    machine = int.from_bytes(head[18:20], "little" if head[5] == 1 else "big")
    return ELF_ABIS.get(machine, f"elf-machine-{machine}")


def check_binary(path: Path, what: str, abilist: tuple[str, ...]) -> str:
    """The binary's ABI, after checking it can run on a phone with ``abilist``."""
    if not path.is_file():
        raise UserError(f"{what} not found at {str(path)!r} (device.tools.{what}: the local "
                        f"path of the binary built for the phone)")
    abi = binary_abi(path)
    if abi is None:
        raise UserError(f"{what} at {path} is not an executable (no ELF header, no #!)")
    if abi != "script" and abilist and abi not in abilist:
        raise UserError(f"{what} at {path} is built for {abi}; the phone runs "
                        f"{', '.join(abilist)}: build it for the phone's ABI")
    return abi


@dataclass
class Deployer:
    """Pushes files under ``remote_dir`` by content hash; remembers what it did."""

    transport: Transport
    remote_dir: str
    pushed: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    #: (path, size, mtime) -> phone path, for files already deployed by this deployer
    _known: dict[tuple[Path, int, int], str] = field(default_factory=dict)

    def deploy(self, local: Path, executable: bool = False) -> str:
        """The phone path of ``local``, pushed unless it is there already."""
        local = local.resolve()
        st = local.stat()
        key = (local, st.st_size, st.st_mtime_ns)
        if key in self._known:
            return self._known[key]
        remote = posixpath.join(self.remote_dir, content_hash(local)[:16], local.name)
        if self.transport.stat_size(remote) == local.stat().st_size:
            self.skipped.append(remote)
        else:
            self.transport.push(local, remote, 0o755 if executable else 0o644)
            self.pushed.append(remote)
        self._known[key] = remote
        return remote

    def facts(self) -> dict[str, list[str]]:
        return {"pushed": list(self.pushed), "already_on_phone": list(self.skipped)}
