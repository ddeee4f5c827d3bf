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
from typing import Generic, Protocol, TypeVar, overload

from harness.seams.view import JobView


class Viewable(Protocol):
    job_id: int

    def view(self) -> JobView: ...


J = TypeVar("J", bound=Viewable)


class JobQueue(Generic[J]):
    """Waiting jobs, front first; O(1) append, appendleft and take."""

    def __init__(self) -> None:
        self._jobs: OrderedDict[int, J] = OrderedDict()

    def append(self, job: J) -> None:
        self._jobs[job.job_id] = job

    def appendleft(self, job: J) -> None:
        self._jobs[job.job_id] = job
        self._jobs.move_to_end(job.job_id, last=False)

    def take(self, job_id: int) -> J:
        """Remove and return the job; AssertionError if it is not waiting."""
        job = self._jobs.pop(job_id, None)
        assert job is not None, f"policy chose job {job_id}, which is not waiting in the queue"
        return job

    def __len__(self) -> int:
        return len(self._jobs)

    def __iter__(self) -> Iterator[J]:
        return iter(self._jobs.values())

    def view(self) -> QueueView:
        return QueueView(self._jobs)


class QueueView(Sequence[JobView]):
    """The queue as a scheduler sees it: job views, front first, made on access."""

    __slots__ = ("_jobs",)

    def __init__(self, jobs: Mapping[int, Viewable]) -> None:
        self._jobs = jobs

    def __len__(self) -> int:
        return len(self._jobs)

    def __iter__(self) -> Iterator[JobView]:
        return (job.view() for job in self._jobs.values())

    @overload
    def __getitem__(self, index: int) -> JobView: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[JobView, ...]: ...

    def __getitem__(self, index: int | slice) -> JobView | tuple[JobView, ...]:
        if isinstance(index, slice):
            if index.step not in (None, 1) or (index.start or 0) < 0 or (
                    index.stop is not None and index.stop < 0):
                return tuple(list(self)[index])
            head = itertools.islice(self._jobs.values(), index.start, index.stop)
            return tuple(job.view() for job in head)
        if index < 0:
            index += len(self._jobs)
        if not 0 <= index < len(self._jobs):
            raise IndexError(index)
        return next(itertools.islice(self._jobs.values(), index, None)).view()

    def __bool__(self) -> bool:
        return bool(self._jobs)
