"""The device side of the adb protocol, on a loopback port (a FAKE adbd, for tests).

The adb server (the real one, from the adbutils wheel) reaches it after ``adb connect
127.0.0.1:PORT`` exactly as it reaches a phone over Wi-Fi: 24-byte messages
(command, arg0, arg1, length, checksum, magic), a CNXN handshake without AUTH, then streams
opened by OPEN, acknowledged by OKAY, fed by WRTE and ended by CLSE. One WRTE is in flight
per stream: the device waits for the host's OKAY before sending the next (the protocol's flow
control). Services:

* ``shell:CMD`` (v1: stdout and stderr interleaved, no exit code) and ``shell,v2:CMD`` (each
  packet ``id`` + length + data; 1 stdout, 2 stderr, 3 the exit code);
* ``sync:``: STAT, LIST, SEND (``path,mode``, DATA chunks, DONE), RECV (DATA chunks, DONE or
  FAIL), QUIT.

The banner is ``device::ro.product.model=…;features=shell_v2`` with **no trailing NUL**
(with one, adb 36 does not see ``shell_v2``: FINDINGS.md). Commands run through
:meth:`FakePhone.spawn <tests.devices.adb.fakephone.phone.FakePhone.spawn>`. Closing a shell
stream does not kill its process, as on a phone (FINDINGS.md: a timed-out shell keeps
running). :meth:`Adbd.kill` drops every connection and the port, as a phone that vanished.
"""

from __future__ import annotations

import contextlib
import queue
import socket
import stat as statmod
import struct
import subprocess
import threading
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tests.devices.adb.fakephone.phone import FakePhone

CNXN, OPEN, OKAY, WRTE, CLSE = (struct.unpack("<I", w)[0]
                                for w in (b"CNXN", b"OPEN", b"OKAY", b"WRTE", b"CLSE"))
VERSION = 0x01000001
MAX_PAYLOAD = 256 * 1024
HEADER = struct.Struct("<6I")
SYNC_CHUNK = 64 * 1024


def message(command: int, arg0: int, arg1: int, data: bytes = b"") -> bytes:
    check = sum(data) & 0xFFFFFFFF
    return HEADER.pack(command, arg0, arg1, len(data), check, command ^ 0xFFFFFFFF) + data


class Connection:
    """One host connection (the adb server's transport to this 'phone')."""

    def __init__(self, sock: socket.socket, phone: FakePhone) -> None:
        self.sock, self.phone = sock, phone
        self.send_lock = threading.Lock()
        self.streams: dict[int, Stream] = {}
        self.next_id = 1
        self.max_payload = MAX_PAYLOAD

    def send(self, command: int, arg0: int, arg1: int, data: bytes = b"") -> bool:
        """One message; False when the connection is gone (:meth:`Adbd.kill`: the phone
        vanished), and what was to be sent goes nowhere."""
        with self.send_lock:
            try:
                self.sock.sendall(message(command, arg0, arg1, data))
            except OSError:
                return False
        return True

    def serve(self) -> None:
        try:
            while True:
                head = self._read(HEADER.size)
                command, arg0, arg1, length, _check, _magic = HEADER.unpack(head)
                self.dispatch(command, arg0, arg1, self._read(length) if length else b"")
        except (OSError, EOFError):
            pass
        finally:
            for s in list(self.streams.values()):
                s.closed.set()
                s.acked.set()
            self.sock.close()

    def _read(self, n: int) -> bytes:
        buf = b""
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise EOFError
            buf += chunk
        return buf

    def dispatch(self, command: int, arg0: int, arg1: int, data: bytes) -> None:
        if command == CNXN:
            self.max_payload = min(arg1, MAX_PAYLOAD)
            self.send(CNXN, VERSION, MAX_PAYLOAD, self.phone.banner().encode())
        elif command == OPEN:
            self.open_stream(arg0, data.rstrip(b"\0").decode())
        elif command == OKAY and arg1 in self.streams:
            self.streams[arg1].remote = arg0
            self.streams[arg1].acked.set()
        elif command == WRTE and arg1 in self.streams:
            self.send(OKAY, arg1, arg0)
            self.streams[arg1].receive(data)
        elif command == CLSE and arg1 in self.streams:
            self.streams.pop(arg1).close_from_host()

    def open_stream(self, remote: int, service: str) -> None:
        local, self.next_id = self.next_id, self.next_id + 1
        kind, _, arg = service.partition(":")
        options = kind.split(",")
        if options[0] == "shell":
            stream: Stream = ShellStream(self, local, remote, arg, "v2" in options)
        elif kind == "sync":
            stream = SyncStream(self, local, remote)
        else:
            self.send(CLSE, 0, remote)
            return
        self.streams[local] = stream
        self.send(OKAY, local, remote)
        stream.begin()


class Stream:
    """One stream: sends WRTEs one at a time, each after the host's OKAY of the last."""

    def __init__(self, conn: Connection, local: int, remote: int) -> None:
        self.conn, self.local, self.remote = conn, local, remote
        self.acked = threading.Event()
        self.acked.set()
        self.closed = threading.Event()
        self._writing = threading.Lock()

    def write(self, data: bytes) -> None:
        step = self.conn.max_payload
        with self._writing:
            for i in range(0, len(data), step):
                self.acked.wait()
                if self.closed.is_set():
                    return
                self.acked.clear()
                if not self.conn.send(WRTE, self.local, self.remote, data[i:i + step]):
                    self.closed.set()  # the connection dropped: no OKAY will come
                    self.acked.set()
                    return

    def finish(self) -> None:
        self.acked.wait(5)
        if not self.closed.is_set():
            self.closed.set()
            self.conn.streams.pop(self.local, None)
            self.conn.send(CLSE, self.local, self.remote)

    def begin(self) -> None: ...

    def receive(self, data: bytes) -> None: ...

    def close_from_host(self) -> None:
        self.closed.set()
        self.acked.set()
        self.conn.send(CLSE, self.local, self.remote)


class ShellStream(Stream):
    """``shell:`` / ``shell,v2:``: one command, run by the fake phone's shell."""

    def __init__(self, conn: Connection, local: int, remote: int, command: str, v2: bool
                 ) -> None:
        super().__init__(conn, local, remote)
        self.command, self.v2 = command, v2
        self.proc: subprocess.Popen[bytes] | None = None

    def begin(self) -> None:
        threading.Thread(target=self.run, daemon=True).start()

    def run(self) -> None:
        self.proc = self.conn.phone.spawn(self.command, merge_stderr=not self.v2)
        threads = [threading.Thread(target=self.pump, args=(self.proc.stdout, 1), daemon=True)]
        if self.v2:
            threads.append(threading.Thread(target=self.pump, args=(self.proc.stderr, 2),
                                            daemon=True))
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        code = self.proc.wait()
        for pipe in (self.proc.stdout, self.proc.stderr):
            if pipe is not None:
                pipe.close()
        if self.v2:
            self.write(bytes([3]) + struct.pack("<I", 1) + bytes([code & 0xFF]))
        self.finish()

    def pump(self, pipe: object, channel: int) -> None:
        read, pending = pipe.read1, b""  # type: ignore[attr-defined]
        while chunk := read(SYNC_CHUNK):
            pending += chunk
            cut = pending.rfind(b"\n") + 1
            if cut:
                self.emit(channel, pending[:cut])
                pending = pending[cut:]
        if pending:
            self.emit(channel, pending)

    def emit(self, channel: int, data: bytes) -> None:
        data = self.conn.phone.unrewrite(data)
        self.write(bytes([channel]) + struct.pack("<I", len(data)) + data if self.v2 else data)


class SyncStream(Stream):
    """``sync:``: file transfer requests, parsed from the byte stream as they arrive (on a
    thread of its own: a reply waits for the host's OKAYs, which the reader thread reads)."""

    def __init__(self, conn: Connection, local: int, remote: int) -> None:
        super().__init__(conn, local, remote)
        self.buf = b""
        self.sending: tuple[Path, int, bytearray] | None = None
        self.inbox: queue.Queue[bytes | None] = queue.Queue()

    def begin(self) -> None:
        threading.Thread(target=self.work, daemon=True).start()

    def receive(self, data: bytes) -> None:
        self.inbox.put(data)

    def close_from_host(self) -> None:
        self.inbox.put(None)
        super().close_from_host()

    def work(self) -> None:
        while (data := self.inbox.get()) is not None and not self.closed.is_set():
            self.buf += data
            while self.step():
                pass

    def step(self) -> bool:
        if len(self.buf) < 8:
            return False
        req, length = self.buf[:4].decode(), struct.unpack("<I", self.buf[4:8])[0]
        body_len = 0 if req == "DONE" else length
        if len(self.buf) < 8 + body_len:
            return False
        body, self.buf = self.buf[8:8 + body_len], self.buf[8 + body_len:]
        self.handle(req, length, body)
        return True

    def handle(self, req: str, length: int, body: bytes) -> None:
        phone = self.conn.phone
        if req == "STAT":
            self.write(b"STAT" + struct.pack("<III", *phone.stat(body.decode())))
        elif req == "LIST":
            self.write(phone.listing(body.decode()) + b"DONE" + bytes(16))
        elif req == "SEND":
            path, _, mode = body.decode().rpartition(",")
            self.sending = (phone.host_path(path), int(mode), bytearray())
        elif req == "DATA" and self.sending:
            self.sending[2].extend(body)
        elif req == "DONE" and self.sending:
            self.write(self.store(*self.sending))
            self.sending = None
        elif req == "RECV":
            self.write(self.content(body.decode()))
        elif req == "QUIT":
            self.finish()

    def store(self, path: Path, mode: int, data: bytearray) -> bytes:
        failure = self.conn.phone.push_failure(path)
        if failure:
            return b"FAIL" + struct.pack("<I", len(failure)) + failure.encode()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(bytes(data))
        path.chmod(statmod.S_IMODE(mode) or 0o644)
        return b"OKAY" + bytes(4)

    def content(self, phone_path: str) -> bytes:
        try:
            data = self.conn.phone.host_path(phone_path).read_bytes()
        except OSError as exc:
            text = f"remote open failed: {exc.strerror}".encode()
            return b"FAIL" + struct.pack("<I", len(text)) + text
        chunks = [b"DATA" + struct.pack("<I", len(data[i:i + SYNC_CHUNK])) +
                  data[i:i + SYNC_CHUNK] for i in range(0, len(data), SYNC_CHUNK)]
        return b"".join(chunks) + b"DONE" + bytes(4)


class Adbd:
    """Listens on a loopback port; one :class:`Connection` per host connection."""

    def __init__(self, phone: FakePhone, port: int = 0) -> None:
        self.phone = phone
        self.server = socket.create_server(("127.0.0.1", port))
        self.port = self.server.getsockname()[1]
        self.connections: list[Connection] = []
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    @property
    def serial(self) -> str:
        return f"127.0.0.1:{self.port}"

    def _accept(self) -> None:
        while True:
            try:
                sock, _ = self.server.accept()
            except OSError:
                return
            conn = Connection(sock, self.phone)
            self.connections.append(conn)
            threading.Thread(target=conn.serve, daemon=True).start()

    def kill(self) -> None:
        """The phone vanishes: the port closes and every connection drops."""
        with contextlib.suppress(OSError):
            self.server.shutdown(socket.SHUT_RDWR)  # wakes the thread blocked in accept()
        self.server.close()
        for conn in self.connections:
            with contextlib.suppress(OSError):
                conn.sock.shutdown(socket.SHUT_RDWR)
            conn.sock.close()
