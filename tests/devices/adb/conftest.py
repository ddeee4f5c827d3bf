"""Fixtures of the ``adb`` backend's tests: a loopback phone joined by the real adb server.

``phone`` is a :class:`~tests.devices.adb.fakephone.phone.FakePhone` (a folder playing the
phone), ``adbd`` its device side of the adb protocol on a loopback port, ``adb_server`` the
adbutils wheel's own adb server on a port of this session's (starting one takes seconds),
``adb connect``-ed to this test's phone and disconnected from it afterwards. ``tools`` are the
stand-in ``benchmark_model`` and ``band_benchmark`` executables, the local "binaries" a user
would build; ``runner_binary`` is the real native runner's x86-64 build, the fake phone's
own binary (it reports ABI x86_64). All of them are fakes that speak the real interfaces
(:mod:`tests.devices.adb.fakephone`).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from devices.adb.config import (
    AdbDeviceConf,
    AdbProcessorBlock,
    AdbProcessorConf,
    AdbServerConf,
    AdbToolsConf,
    Delegate,
)
from devices.processors import SupportRules
from harness.seams.plan import ProcessorKind
from tests.devices.adb.fakephone.adbd import Adbd
from tests.devices.adb.fakephone.phone import FakePhone
from tests.devices.adb.fakephone.server import AdbServer
from tests.fixtures.frs_zoo import frs_zoo
from tests.fixtures.paths import REPO
from tests.runner import native

TOOL_SCRIPT = """#!{python}
# A stand-in for {name}, built for the fake phone's ABI (tests/devices/adb/fakephone).
import sys
sys.path.insert(0, {repo!r})
from tests.devices.adb.fakephone.standins.{name} import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.fixture
def phone(tmp_path: Path) -> Iterator[FakePhone]:
    fake = FakePhone(tmp_path / "phone")
    yield fake
    fake.close()


@pytest.fixture
def adbd(phone: FakePhone) -> Iterator[Adbd]:
    daemon = Adbd(phone)
    yield daemon
    daemon.kill()


@pytest.fixture(scope="session")
def session_server() -> Iterator[AdbServer]:
    server = AdbServer().start()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("ADBUTILS_ADB_PATH", server.adb)
        mp.delenv("ANDROID_SERIAL", raising=False)
        yield server
    server.stop()


@pytest.fixture
def adb_server(session_server: AdbServer, adbd: Adbd) -> Iterator[AdbServer]:
    session_server.connect(adbd.serial)
    yield session_server
    session_server.forget_all()


def write_tool(folder: Path, name: str) -> Path:
    path = folder / name
    path.write_text(TOOL_SCRIPT.format(python=sys.executable, name=name, repo=str(REPO)))
    path.chmod(0o755)
    return path


@pytest.fixture(scope="session")
def tools(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("tools")
    return {name: write_tool(folder, name) for name in ("benchmark_model", "band_benchmark")}


@pytest.fixture(scope="session")
def runner_binary() -> Path:
    """The x86-64 native runner (``make runner``'s build, built if its sources changed): the
    fake phone's ABI is x86_64, so this is its own binary."""
    missing = native.missing_tools()
    if missing is not None:
        pytest.skip(f"the runner cannot be built here: {missing}")
    return native.build()


@pytest.fixture(scope="session")
def zoo_dir(tiny_models: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    return frs_zoo(tiny_models, tmp_path_factory.mktemp("tiny_zoo"))


def processors() -> list[AdbProcessorConf]:
    cpu = AdbProcessorConf(name="cpu", kind=ProcessorKind.CPU, support=SupportRules.all,
                           adb=AdbProcessorBlock(delegate=Delegate.cpu, threads=1))
    gpu = AdbProcessorConf(name="gpu", kind=ProcessorKind.GPU, support=SupportRules.gpu,
                           adb=AdbProcessorBlock(delegate=Delegate.gpu, threads=1))
    return [cpu, gpu]


def phone_conf(server: AdbServer, serial: str, tools: dict[str, Path] | None = None,
               runner: Path | None = None, **server_knobs: float) -> AdbDeviceConf:
    """A device config for the loopback phone."""
    knobs = {"command_timeout_s": 10.0, "retries": 2, "backoff_s": 0.1, "kill_after_s": 1.0,
             **server_knobs}
    found = tools or {}
    return AdbDeviceConf(
        name="adb", serial=serial,
        adb=AdbServerConf(port=server.port, **knobs),  # type: ignore[arg-type]
        tools=AdbToolsConf(benchmark_model=str(found.get("benchmark_model", "")),
                           band_benchmark=str(found.get("band_benchmark", "")), grace_s=20.0,
                           band_profile_warmup_runs=1, band_profile_runs=2,
                           runner=str(runner or ""), profile_runs=3),
        processors=processors())
