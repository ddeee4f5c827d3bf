"""Traffic: a scenario turned into seeded requests (the load generator, as MLPerf LoadGen).

Traffic is separate from the system under test: it only says when each request arrives.

* ``frames`` (closed loop over video frames): ``frames_in_flight`` frames are outstanding;
  each frame is one request per model, all arriving together; when every request of a frame
  has ended (finished or dropped), the next frame is issued at once. This is an app feeding
  camera frames as fast as the device takes them.

In both closed loops a *dropped* request (a policy that sheds load, as Band does past an SLO)
makes its client wait one camera period (``1/fps``) before the next request: the app skips to
the next camera frame. Without that wait a busy device would drop and re-issue the same
instant forever.
* ``stream`` (closed loop): each model has ``streams_per_model`` clients; a client issues its
  next request the moment its previous one ends (or is dropped). Request *k* of every client
  carries ``frame_id = k``, so frame *k* is complete when every model's *k*-th request is.
* ``periodic``: a frame every ``1/fps`` seconds; every model gets one request per frame.
* ``poisson`` (open loop): each model's requests arrive with exponential gaps of mean
  ``1/fps`` seconds, from the traffic seed; frame ids count per model.

Requests stop being issued at ``warmup_s + duration_s``; the ones issued before ``warmup_s``
are warm-up and are excluded from metrics. Times are integer nanoseconds from the run start.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from harness.config.schema import Arrival, ScenarioConf
from harness.seams.records import Request
from harness.seams.units import NS_PER_S


@dataclass(frozen=True, slots=True)
class Span:
    warmup_end_ns: int
    end_ns: int


def span_of(scenario: ScenarioConf) -> Span:
    warm = int(scenario.warmup_s * NS_PER_S)
    return Span(warm, warm + int(scenario.duration_s * NS_PER_S))


class Traffic:
    """Issues requests: timed ones from a heap, closed-loop ones on completion."""

    def __init__(
        self,
        scenario: ScenarioConf,
        slo_ns: Mapping[str, int],
        rng: np.random.Generator,
        cap: int = 0,
    ) -> None:
        self.scenario = scenario
        #: closed loops stop after this many frames (``frames``) or requests per stream
        #: (``stream``), as the phone runner's ``--frames`` / ``--streams``; 0: by time only
        self._cap = cap
        self.span = span_of(scenario)
        self._slo_ns = dict(slo_ns)
        self._rng = rng
        self._ids = itertools.count()
        self._heap: list[tuple[int, int, Request]] = []
        self._frame_of_stream: dict[int, int] = {}
        self._model_of_stream: dict[int, str] = {}
        self._open_frames: dict[int, int] = {}
        self._frame_dropped: dict[int, bool] = {}
        self._next_frame = 0
        self._seed_arrivals()

    # -- the driver's interface ------------------------------------------------------------

    def next_arrival_ns(self) -> int | None:
        """When the earliest pending request arrives, or None when none is pending."""
        return self._heap[0][0] if self._heap else None

    def pop_due(self, now_ns: int) -> list[Request]:
        """Every pending request that has arrived by ``now_ns``, in arrival order."""
        due = []
        while self._heap and self._heap[0][0] <= now_ns:
            due.append(heapq.heappop(self._heap)[2])
            self._refill(due[-1])
        return due

    def on_done(self, request: Request, now_ns: int, dropped: bool = False) -> None:
        """A request ended (finished or dropped): a closed-loop client issues its next one."""
        if self.scenario.arrival is Arrival.stream:
            self._issue_stream(request.stream, now_ns + self._skip(dropped))
        elif self.scenario.arrival is Arrival.frames:
            self._frame_dropped[request.frame_id] |= dropped
            self._open_frames[request.frame_id] -= 1
            if self._open_frames[request.frame_id] == 0:
                del self._open_frames[request.frame_id]
                skip = self._skip(self._frame_dropped.pop(request.frame_id))
                self._issue_frame(now_ns + skip)

    def _skip(self, dropped: bool) -> int:
        """The wait before a client's next request: one camera period after a drop."""
        return int(NS_PER_S / self.scenario.fps) if dropped else 0

    # -- arrivals ----------------------------------------------------------------------------

    def _seed_arrivals(self) -> None:
        arrival = self.scenario.arrival
        if arrival is Arrival.frames:
            for _ in range(self.scenario.frames_in_flight):
                self._issue_frame(0)
        elif arrival is Arrival.stream:
            self._seed_streams()
        elif arrival is Arrival.periodic:
            self._push_frame(0, 0)
        else:
            for stream, model in enumerate(self.scenario.models):
                self._model_of_stream[stream] = model
                self._frame_of_stream[stream] = 0
                self._push(model, 0, self._poisson_gap(), stream)

    def _seed_streams(self) -> None:
        streams = itertools.count()
        for _ in range(self.scenario.streams_per_model):
            for model in self.scenario.models:
                stream = next(streams)
                self._model_of_stream[stream] = model
                self._frame_of_stream[stream] = -1
                self._issue_stream(stream, 0)

    def _issue_stream(self, stream: int, now_ns: int) -> None:
        if self._cap and self._frame_of_stream[stream] + 1 >= self._cap:
            return
        self._frame_of_stream[stream] += 1
        model = self._model_of_stream[stream]
        self._push(model, self._frame_of_stream[stream], now_ns, stream)

    def _issue_frame(self, now_ns: int) -> None:
        if now_ns >= self.span.end_ns or (self._cap and self._next_frame >= self._cap):
            return
        frame = self._next_frame
        self._next_frame += 1
        self._open_frames[frame] = len(self.scenario.models)
        self._frame_dropped[frame] = False
        self._push_frame(frame, now_ns)

    def _refill(self, issued: Request) -> None:
        """After an open-loop arrival, schedule the next one of its kind."""
        if self.scenario.arrival is Arrival.periodic:
            if issued.model == self.scenario.models[0]:
                period = int(NS_PER_S / self.scenario.fps)
                self._push_frame(issued.frame_id + 1, issued.arrival_ns + period)
        elif self.scenario.arrival is Arrival.poisson:
            stream = issued.stream
            self._frame_of_stream[stream] += 1
            t = issued.arrival_ns + self._poisson_gap()
            self._push(issued.model, self._frame_of_stream[stream], t, stream)

    def _push_frame(self, frame_id: int, t_ns: int) -> None:
        for stream, model in enumerate(self.scenario.models):
            self._push(model, frame_id, t_ns, stream)

    def _push(self, model: str, frame_id: int, t_ns: int, stream: int) -> None:
        if t_ns >= self.span.end_ns:
            return
        rid = next(self._ids)
        request = Request(rid, model, frame_id, t_ns, self._slo_ns.get(model, 0), stream)
        heapq.heappush(self._heap, (t_ns, rid, request))

    def _poisson_gap(self) -> int:
        return max(1, int(self._rng.exponential(1.0 / self.scenario.fps) * NS_PER_S))

    def is_warmup(self, request: Request) -> bool:
        return request.arrival_ns < self.span.warmup_end_ns
