"""A runner run's rows written while it runs, as its logs come to the host.

After every pull of the runner's logs (:func:`devices.adb.runner_watch.watch`) the new whole
lines go to a :class:`~devices.adb.runner_logs.RowWriter`, and the rows of the requests that
are *settled* are written to the run's sink, whose journals flush them each second: an
interrupted or killed host keeps them. At the end (:meth:`LiveRows.finish`) every request
not written yet is written as :func:`~devices.adb.runner_logs.write_rows` would write it from
the whole logs (unfinished requests, the closed loop's cut, lines whose job lines were cut
off); rows written on the way plus those are the rows of the whole logs, row for row.

Settled. The runner writes a request's job lines (one per subgraph, as each ends) before its
request line, through stdio buffers that it writes out every second (``runner/src/
executor.cc``, ``kFlushNs``), jobs first; but a full buffer is also written out on its own, so
a request line can reach the phone's file before the last job lines of its request. Every
line written before the request line is in its file within one flush interval of it,
though. So a request line first seen in a pull of the request log that ended at ``R`` (host
clock) was in the file by ``R``, its job lines by ``R`` plus one flush interval, and a pull
of the job log that began after that holds them: the request is settled once a job-log pull
began :data:`SETTLE_S` after ``R`` (one flush interval, and one more for a flush the phone
ran late: the executor flushes from its main thread, under its lock, behind completions).

The run's clock (0: the traffic's start) is fixed once request 0's line is seen, the line
:func:`~devices.adb.runner_logs.start_of_traffic` reads from the whole logs when it is there
(the lowest number); until then nothing is written. Sensor lines become rows as they come,
once the clock is fixed.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping

from devices.adb.runner_logs import (
    JOB_HEADER,
    REQUEST_HEADER,
    LineFeed,
    RowWriter,
    Written,
    job_lines,
    request_lines,
    start_of_traffic,
)
from devices.adb.runner_sensors import LOG_HEADER, sensor_samples
from devices.adb.runner_watch import LogTail
from harness.seams.rows import sensor_row

#: how often the runner writes its job and request logs out, s (runner/src/executor.cc)
FLUSH_S = 1.0
#: how long after a request line was seen a job-log pull must begin to hold every job line
#: of its request, s (module docstring)
SETTLE_S = 2 * FLUSH_S


class LiveRows:
    """See the module docstring; ``pulled`` after each pull of the logs, ``finish`` once."""

    def __init__(self, writer: RowWriter) -> None:
        self.writer = writer
        self.feeds = {"jobs": LineFeed(JOB_HEADER), "requests": LineFeed(REQUEST_HEADER),
                      "sensors": LineFeed(LOG_HEADER)}
        #: request numbers not written yet by when their line was seen, host s
        self.seen: deque[tuple[float, list[int]]] = deque()
        #: sensor lines waiting for the run's clock
        self.sensor_lines: list[list[str]] = []
        self.samples = 0

    @property
    def t0_ns(self) -> int | None:
        """The run's 0, phone ns (None: not known yet)."""
        return self.writer.t0_ns

    def pulled(self, logs: Mapping[str, LogTail]) -> None:
        """Take the logs' new whole lines; write the rows of the settled requests and the
        sensors."""
        self._take(logs)
        if self.t0_ns is None:
            return
        began_s = logs["jobs"].began_s
        while self.seen and self.seen[0][0] < began_s - SETTLE_S:
            numbers = self.seen.popleft()[1]
            self.writer.write(n for n in numbers if self.writer.ready(n))
        self._sensors()

    def finish(self, logs: Mapping[str, LogTail]) -> Written:
        """Every row not written yet, from every whole line of the logs."""
        self._take(logs)
        self.seen.clear()
        written = self.writer.finish()
        self._sensors()
        return written

    def _take(self, logs: Mapping[str, LogTail]) -> None:
        requests = request_lines(self.feeds["requests"].take(logs["requests"].text))
        jobs = job_lines(self.feeds["jobs"].take(logs["jobs"].text))
        self.writer.add(jobs, requests)
        if requests:
            self.seen.append((logs["requests"].ended_s, [r.request for r in requests]))
        self.sensor_lines += self.feeds["sensors"].take(logs["sensors"].text)
        first = self.writer.ended.get(0)
        if self.t0_ns is None and first is not None:
            self.writer.t0_ns = start_of_traffic(self.writer.traffic, [first], [])

    def _sensors(self) -> None:
        if self.t0_ns is None:
            return
        w, lines = self.writer, self.sensor_lines
        self.sensor_lines = []  # (first: a signal among the rows leaves none twice)
        for sample in sensor_samples(lines, self.t0_ns):
            w.sink.append("sensors", sensor_row(w.name, w.seed, sample))
            self.samples += 1
