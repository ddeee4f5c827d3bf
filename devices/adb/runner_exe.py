"""The native runner on the phone: its binary and ``libLiteRt.so``, pushed by content hash,
and the command that starts it.

The binary is ``device.tools.runner`` (default: ``runner/build/runner``, the x86-64 build
``make runner`` makes, which is an x86-64 phone's own binary, the tests' fake phone's);
``libLiteRt.so`` is ``device.tools.litert_lib`` (default: the one in the ``ai-edge-litert``
wheel the x86-64 build links). Both are checked against the phone's ABIs before they are
pushed. Each lands in its own content-hash folder, so the command names the library's
folder in ``LD_LIBRARY_PATH`` (searched before the binary's RUNPATH). LiteRT's accelerator
and dispatch libraries (``device.tools.litert_accelerators``: the GPU accelerator, an NPU
vendor's dispatch library) must sit in one folder, which the runner is pointed at: they are
pushed together into ``<remote_dir>/litert-<hash of their contents>/``.
"""

from __future__ import annotations

import hashlib
import posixpath
import shlex
from dataclasses import dataclass
from pathlib import Path

from devices.adb.deploy import check_binary, content_hash
from devices.adb.phone import Phone
from harness.seams.errors import UserError

#: the repository's root (runner/build/runner is the default binary)
REPO = Path(__file__).resolve().parents[2]
DEFAULT_RUNNER = REPO / "runner" / "build" / "runner"


def default_litert_lib() -> Path:
    """The ``libLiteRt.so`` of the installed ``ai-edge-litert`` wheel."""
    import ai_edge_litert

    return Path(ai_edge_litert.__file__).parent / "libLiteRt.so"


@dataclass(frozen=True, slots=True)
class RunnerOnPhone:
    """The pushed runner: its phone path, its library folder, the ABI it is built for, and
    the folder of LiteRT's accelerator libraries ("": none)."""

    binary: str
    lib_dir: str
    abi: str
    local: str
    accelerators_dir: str = ""

    def command(self, *args: str) -> str:
        """A shell command running the runner with ``args``."""
        extra = ("--litert-runtime-dir", self.accelerators_dir, "--litert-dispatch-dir",
                 self.accelerators_dir) if self.accelerators_dir else ()
        words = " ".join(shlex.quote(a) for a in (*args, *extra))
        return (f"env LD_LIBRARY_PATH={shlex.quote(self.lib_dir)} {shlex.quote(self.binary)} "
                f"{words}")


def push_accelerators(phone: Phone, locals_: list[str]) -> str:
    """LiteRT's accelerator libraries pushed into one folder named by their contents."""
    paths = [Path(p) for p in locals_]
    for path in paths:
        check_binary(path, "litert_accelerators", phone.facts.abilist)
    digest = hashlib.sha256("".join(content_hash(p) for p in paths).encode()).hexdigest()
    folder = posixpath.join(phone.deployer.remote_dir, f"litert-{digest[:16]}")
    for path in paths:
        remote = posixpath.join(folder, path.name)
        if phone.transport.stat_size(remote) != path.stat().st_size:
            phone.transport.push(path, remote, 0o644)
    return folder


def _local(configured: str, default: Path, what: str) -> Path:
    path = Path(configured) if configured else default
    if not path.is_file():
        hint = ("build it with `make runner`" if what == "runner" and not configured else
                f"set device.tools.{what}=<local path, built for the phone>")
        raise UserError(f"the native {what} is not at {path}: {hint}")
    return path


def push_runner(phone: Phone) -> RunnerOnPhone:
    """Check and push the runner and its ``libLiteRt.so``."""
    tools = phone.conf.tools
    binary = _local(tools.runner, DEFAULT_RUNNER, "runner")
    lib = _local(tools.litert_lib, default_litert_lib(), "litert_lib")
    abi = check_binary(binary, "runner", phone.facts.abilist)
    check_binary(lib, "litert_lib", phone.facts.abilist)
    remote_lib = phone.deployer.deploy(lib)
    remote = phone.deployer.deploy(binary, executable=True)
    extra = push_accelerators(phone, tools.litert_accelerators) if tools.litert_accelerators \
        else ""
    return RunnerOnPhone(remote, posixpath.dirname(remote_lib), abi, str(binary), extra)
