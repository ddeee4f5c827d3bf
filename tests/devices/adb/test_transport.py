"""The transport, deploys and serial choice against the loopback phone (real adbutils, the
real adb server from its wheel, the adb wire protocol to a fake adbd)."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import adbutils
import pytest

from devices.adb.deploy import Deployer, binary_abi, check_binary
from devices.adb.transport import PhoneLost, TransferDeadline, Transport
from harness.seams.errors import UserError
from tests.devices.adb.conftest import phone_conf
from tests.devices.adb.fakephone.adbd import Adbd
from tests.devices.adb.fakephone.phone import FakePhone
from tests.devices.adb.fakephone.server import AdbServer


@pytest.fixture
def transport(adb_server: AdbServer, adbd: Adbd) -> Transport:
    return Transport(phone_conf(adb_server, adbd.serial))


def test_exit_codes_and_output_of_commands_that_exit_themselves(transport: Transport) -> None:
    result = transport.shell("echo out; echo err >&2; exit 3")
    assert (result.exit_code, result.stdout, result.stderr) == (3, "out\n", "err\n")
    assert transport.shell("getprop ro.product.model").stdout.strip() == "FP-1 Loopback"


def test_the_v1_marker_breaks_without_the_subshell(adb_server: AdbServer, adbd: Adbd) -> None:
    """Why every command is wrapped: adbutils' v1 exit marker never prints after `exit`."""
    device = adbutils.AdbClient("127.0.0.1", adb_server.port).device(adbd.serial)
    with pytest.raises(adbutils.AdbError, match="shell output invalid"):
        device.shell2("exit 4", timeout=5)
    assert device.shell2("( exit 4 )", timeout=5).returncode == 4


def test_a_hung_command_is_killed_on_the_phone(transport: Transport, phone: FakePhone) -> None:
    began = time.monotonic()
    result = transport.shell("sleep 30", limit_s=1)
    assert result.timed_out and time.monotonic() - began < 10
    assert all(p.poll() is not None for p in phone.procs)  # nothing left running


def test_push_by_content_hash_is_byte_exact_and_skipped_when_there(
        transport: Transport, phone: FakePhone, tmp_path: Path) -> None:
    local = tmp_path / "blob.bin"
    local.write_bytes(bytes(range(256)) * 3000)
    deployer = Deployer(transport, "/data/local/tmp/h")
    remote = deployer.deploy(local)
    assert phone.host_path(remote).read_bytes() == local.read_bytes()
    assert Deployer(transport, "/data/local/tmp/h").deploy(local) == remote
    again = Deployer(transport, "/data/local/tmp/h")
    again.deploy(local)
    assert again.facts() == {"pushed": [], "already_on_phone": [remote]}
    local.write_bytes(b"changed")
    assert again.deploy(local) != remote  # a changed file lands in a new folder


def test_a_failed_push_is_one_error(transport: Transport, phone: FakePhone, tmp_path: Path
                                    ) -> None:
    phone.push_fails = "No space left on device"
    local = tmp_path / "m.tflite"
    local.write_bytes(b"x" * 100)
    with pytest.raises(UserError, match=r"push of .*m\.tflite.* failed"):
        Deployer(transport, "/data/local/tmp/h").deploy(local)


def test_a_serial_that_is_not_connected(adb_server: AdbServer, adbd: Adbd) -> None:
    with pytest.raises(UserError, match=r"'R5CT0000' is not connected.*127\.0\.0\.1"):
        Transport(phone_conf(adb_server, "R5CT0000"))


def test_a_tcp_serial_is_joined_with_adb_connect(adb_server: AdbServer, tmp_path: Path
                                                 ) -> None:
    other = FakePhone(tmp_path / "other", {"ro.product.model": "Second"})
    daemon = Adbd(other)
    try:
        t = Transport(phone_conf(adb_server, daemon.serial))
        assert t.shell("getprop ro.product.model").stdout.strip() == "Second"
    finally:
        daemon.kill()
        other.close()


def test_the_serial_from_the_environment_or_the_only_phone(
        adb_server: AdbServer, adbd: Adbd, monkeypatch: pytest.MonkeyPatch) -> None:
    assert Transport(phone_conf(adb_server, "")).serial == adbd.serial
    monkeypatch.setenv("ANDROID_SERIAL", "emulator-9999")
    with pytest.raises(UserError, match="emulator-9999"):
        Transport(phone_conf(adb_server, ""))


def test_a_lost_phone_is_retried_then_one_error(transport: Transport, adbd: Adbd) -> None:
    adbd.kill()
    began = time.monotonic()
    with pytest.raises(PhoneLost, match=rf"phone {adbd.serial} was lost .*2 tries"):
        transport.shell("true")
    assert time.monotonic() - began < 15


def test_binaries_are_checked_against_the_phones_abis(tmp_path: Path) -> None:
    arm = tmp_path / "benchmark_model"
    arm.write_bytes(b"\x7fELF\x02\x01\x01" + bytes(11) + (183).to_bytes(2, "little") + bytes(40))
    assert binary_abi(arm) == "arm64-v8a"
    with pytest.raises(UserError, match="built for arm64-v8a; the phone runs x86_64"):
        check_binary(arm, "benchmark_model", ("x86_64", "x86"))
    assert check_binary(arm, "benchmark_model", ("arm64-v8a",)) == "arm64-v8a"
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    with pytest.raises(UserError, match="not an executable"):
        check_binary(text, "benchmark_model", ("x86_64",))
    with pytest.raises(UserError, match="not found"):
        check_binary(tmp_path / "absent", "benchmark_model", ("x86_64",))


@pytest.fixture
def full_storage(phone: FakePhone) -> Iterator[Path]:
    """The phone's push folder on a 64 KB tmpfs (needs root: skipped without)."""
    folder = phone.host_path("/data/local/tmp/full")
    folder.mkdir(parents=True)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(folder)],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True)


# (the fake adbd's transfer thread dies of ENOSPC, the fault itself: it never answers)
@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_a_push_to_a_full_phone_ends_at_its_deadline(adb_server: AdbServer, adbd: Adbd,
                                                     full_storage: Path, tmp_path: Path
                                                     ) -> None:
    """The fake phone's storage fills mid-push (its adbd never answers the push): the push
    is given up at ``transfer_timeout_s`` with one error naming it, not retried, and the
    phone still answers afterwards."""
    transport = Transport(phone_conf(adb_server, adbd.serial, transfer_timeout_s=2.0))
    local = tmp_path / "big.tflite"
    local.write_bytes(bytes(range(256)) * 4096)  # 1 MB into 64 KB
    began = time.monotonic()
    with pytest.raises(TransferDeadline, match=r"did not finish the push of big\.tflite "
                                               r"within 2 s .*full phone storage"):
        transport.push(local, "/data/local/tmp/full/big.tflite", 0o644)
    assert time.monotonic() - began < 15  # (a hang guard: one try, not one per retry)
    assert transport.shell("echo still").stdout == "still\n"
