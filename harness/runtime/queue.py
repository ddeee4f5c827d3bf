"""The global job queue, and the window a scheduler reads it through.

The queue keeps waiting jobs in order (front first) in a dict keyed by job id, so a job is
appended, put back at the front or taken out in O(1) whatever the queue's length. A
scheduler reads it through :class:`QueueView`: a read-only sequence of
:class:`~harness.seams.view.JobView` made on access, so a decision that looks at the first
``k`` jobs costs ``O(k)``, not ``O(queue)``, even when arrivals outrun the processors. A view
is valid while the policy decides; the runtime changes the queue only after it answered.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Generic, Protocol, TypeVar, overload

from harness.seams.view import JobView


class Viewable(Protocol):
    job_id: int

    def view(self) -> JobView: ...


J = TypeVar("J", bound=Viewable)


Kind = tuple[str, int]


def kind_of(job: Viewable) -> Kind:
    """A job's kind: (model, next unit)."""
    view = job.view()
    return view.request.model, view.next_unit


def stream_of(job: Viewable) -> Kind:
    """A job's interpreter: (model, stream)."""
    request = job.view().request
    return request.model, request.stream


class _Index(Generic[J]):
    """Waiting jobs grouped by a key (:func:`kind_of` or :func:`stream_of`), each group in
    queue order, with every job's position (lower is nearer the front)."""

    def __init__(self, key: Callable[[Viewable], Kind], jobs: Iterable[J]) -> None:
        self._key = key
        self._groups: dict[Kind, OrderedDict[int, J]] = {}
        self._where: dict[int, tuple[Kind, int]] = {}
        self._front, self._back = 0, 0
        for job in jobs:  # (front first, as appending each in turn would)
            self.append(job)

    def append(self, job: J) -> None:
        self._back += 1
        self._file(job, self._back).move_to_end(job.job_id)

    def appendleft(self, job: J) -> None:
        self._front -= 1
        self._file(job, self._front).move_to_end(job.job_id, False)  # (last=False: the front)

    def _file(self, job: J, position: int) -> OrderedDict[int, J]:
        kind = self._key(job)
        self._where[job.job_id] = (kind, position)
        group = self._groups.setdefault(kind, OrderedDict())
        group[job.job_id] = job
        return group

    def take(self, job_id: int) -> None:
        kind, _ = self._where.pop(job_id)
        group = self._groups[kind]
        del group[job_id]
        if not group:
            del self._groups[kind]

    def heads(self) -> list[J]:
        """The first job of every group, front first."""
        firsts = [next(iter(group.values())) for group in self._groups.values()]
        return sorted(firsts, key=lambda job: self._where[job.job_id][1])


class JobQueue(Generic[J]):
    """Waiting jobs, front first; O(1) append, appendleft and take (and, once
    :meth:`heads` or :meth:`stream_heads` was asked, an index of them by kind or by stream,
    kept as they come and go)."""

    def __init__(self) -> None:
        self._jobs: OrderedDict[int, J] = OrderedDict()
        #: the indexes asked for so far, each built at its first use and kept from then on
        #: (a policy that never asks for heads does not pay for them)
        self._indexes: list[_Index[J]] = []
        self._by_kind: _Index[J] | None = None
        self._by_stream: _Index[J] | None = None

    def append(self, job: J) -> None:
        self._jobs[job.job_id] = job
        for index in self._indexes:
            index.append(job)

    def appendleft(self, job: J) -> None:
        self._jobs[job.job_id] = job
        self._jobs.move_to_end(job.job_id, False)  # (last=False: the front)
        for index in self._indexes:
            index.appendleft(job)

    def take(self, job_id: int) -> J:
        """Remove and return the job; AssertionError if it is not waiting."""
        job = self._jobs.pop(job_id, None)
        assert job is not None, f"policy chose job {job_id}, which is not waiting in the queue"
        for index in self._indexes:
            index.take(job_id)
        return job

    def __len__(self) -> int:
        return len(self._jobs)

    def __iter__(self) -> Iterator[J]:
        return iter(self._jobs.values())

    def view(self) -> QueueView:
        return QueueView(self._jobs, self)

    def heads(self) -> list[J]:
        """The first job of every kind (model, next unit), front first."""
        if self._by_kind is None:
            self._by_kind = _Index(kind_of, self._jobs.values())
            self._indexes.append(self._by_kind)
        return self._by_kind.heads()

    def stream_heads(self) -> list[J]:
        """The first job of every interpreter (model, stream), front first."""
        if self._by_stream is None:
            self._by_stream = _Index(stream_of, self._jobs.values())
            self._indexes.append(self._by_stream)
        return self._by_stream.heads()


class QueueView(Sequence[JobView]):
    """The queue as a scheduler sees it: job views, front first, made on access."""

    __slots__ = ("_jobs", "_queue", "visited")

    def __init__(self, jobs: Mapping[int, Viewable], queue: JobQueue[Any] | None = None
                 ) -> None:
        self._jobs = jobs
        self._queue = queue
        #: jobs walked so far to hand out views (a job read twice counts twice)
        self.visited = 0

    def heads(self) -> tuple[JobView, ...]:
        """The first job of every kind (model, next unit), front first: every job a policy
        that takes the first runnable job per processor can choose (a later job of a kind
        can run only what the kind's first can)."""
        if self._queue is None:
            raise NotImplementedError("heads() needs the queue's kind index")
        firsts = self._queue.heads()
        self.visited += len(firsts)
        return tuple(job.view() for job in firsts)

    def stream_heads(self) -> tuple[JobView, ...]:
        """The first job of every interpreter (model, stream), front first: every job a
        policy that runs one job per interpreter at a time can start (a later job of an
        interpreter waits for its first)."""
        if self._queue is None:
            raise NotImplementedError("stream_heads() needs the queue's stream index")
        firsts = self._queue.stream_heads()
        self.visited += len(firsts)
        return tuple(job.view() for job in firsts)

    def __len__(self) -> int:
        return len(self._jobs)

    def __iter__(self) -> Iterator[JobView]:
        for job in self._jobs.values():
            self.visited += 1
            yield job.view()

    @overload
    def __getitem__(self, index: int) -> JobView: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[JobView, ...]: ...

    def __getitem__(self, index: int | slice) -> JobView | tuple[JobView, ...]:
        if isinstance(index, slice):
            start, stop, step = index.start, index.stop, index.step
            if start is None and step is None and stop is not None \
                    and stop >= 0:  # the head, as a scheduler reads it
                return self._head(stop)
            if step not in (None, 1) or (start or 0) < 0 or (stop is not None and stop < 0):
                return tuple(list(self)[index])
            head = tuple(itertools.islice(self._jobs.values(), start, stop))
            self.visited += (start or 0) + len(head)  # skipped jobs are walked too
            return tuple(job.view() for job in head)
        if index < 0:
            index += len(self._jobs)
        if not 0 <= index < len(self._jobs):
            raise IndexError(index)
        self.visited += index + 1
        return next(itertools.islice(self._jobs.values(), index, None)).view()

    def _head(self, n: int) -> tuple[JobView, ...]:
        """Views of the first ``n`` jobs (walked as :meth:`__iter__` walks them)."""
        out: list[JobView] = []
        if n > 0:
            for job in self._jobs.values():
                out.append(job.view())
                if len(out) >= n:
                    break
            self.visited += len(out)
        return tuple(out)

    def __bool__(self) -> bool:
        return bool(self._jobs)
