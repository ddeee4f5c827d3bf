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
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Generic, Protocol, TypeVar, overload

from harness.seams.view import JobView


class Viewable(Protocol):
    job_id: int

    def view(self) -> JobView: ...


J = TypeVar("J", bound=Viewable)


Kind = tuple[str, int]


def kind_of(job: Viewable) -> Kind:
    view = job.view()
    return view.request.model, view.next_unit


class JobQueue(Generic[J]):
    """Waiting jobs, front first; O(1) append, appendleft and take (and, once
    :meth:`heads` was asked, an index of them by kind, kept as they come and go)."""

    def __init__(self) -> None:
        self._jobs: OrderedDict[int, J] = OrderedDict()
        #: kind -> its jobs in queue order; job id -> (kind, position: lower is nearer the front)
        self._kinds: dict[Kind, OrderedDict[int, J]] = {}
        self._where: dict[int, tuple[Kind, int]] = {}
        self._front, self._back = 0, 0
        #: the kind index is built at the first :meth:`heads` and kept from then on (a policy
        #: that never asks for heads does not pay for it)
        self._indexed = False

    def append(self, job: J) -> None:
        self._jobs[job.job_id] = job
        if self._indexed:
            self._back += 1
            self._file(job, self._back).move_to_end(job.job_id)

    def appendleft(self, job: J) -> None:
        self._jobs[job.job_id] = job
        self._jobs.move_to_end(job.job_id, False)  # (last=False: the front)
        if self._indexed:
            self._front -= 1
            self._file(job, self._front).move_to_end(job.job_id, False)  # (last=False: the front)

    def _file(self, job: J, position: int) -> OrderedDict[int, J]:
        kind = kind_of(job)
        self._where[job.job_id] = (kind, position)
        group = self._kinds.setdefault(kind, OrderedDict())
        group[job.job_id] = job
        return group

    def _index(self) -> None:
        """File every waiting job, front first (as appending each in turn would have)."""
        self._indexed = True
        for job in self._jobs.values():
            self._back += 1
            self._file(job, self._back).move_to_end(job.job_id)

    def take(self, job_id: int) -> J:
        """Remove and return the job; AssertionError if it is not waiting."""
        job = self._jobs.pop(job_id, None)
        assert job is not None, f"policy chose job {job_id}, which is not waiting in the queue"
        if self._indexed:
            kind, _ = self._where.pop(job_id)
            group = self._kinds[kind]
            del group[job_id]
            if not group:
                del self._kinds[kind]
        return job

    def __len__(self) -> int:
        return len(self._jobs)

    def __iter__(self) -> Iterator[J]:
        return iter(self._jobs.values())

    def view(self) -> QueueView:
        return QueueView(self._jobs, self)

    def heads(self) -> list[J]:
        """The first job of every kind, front first."""
        if not self._indexed:
            self._index()
        firsts = [next(iter(group.values())) for group in self._kinds.values()]
        return sorted(firsts, key=lambda job: self._where[job.job_id][1])


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
