"""The ``host`` device's slices on its workers: one interpreter per slice, built and profiled.

The device runs each distinct slice, a :data:`~devices.host.slicekey.SliceKey` ``(model, op
set, processor)``, on one interpreter (:class:`~devices.host.workers.SliceRunner`), whatever
subgraphs of whatever plans ask for it, and profiles it once. :class:`RunnerTable` keeps both.

**Building.** A slice is cut from its model's ``.tflite`` on the calling thread, one at a time
(:class:`~devices.host.slicecache.SliceCache` under the device's cache folder), and its
interpreter is built on its processor's worker, so workers build in parallel
(:meth:`RunnerTable.build`). :meth:`RunnerTable.load` notes the slices of the plans the device
loads as *planned* and builds the first ``host.eager_build_limit`` of them, cutting and
building each a phase of the run's progress (:mod:`harness.seams.progress`); the rest are built
on first use (:meth:`RunnerTable.runner`, called on the slice's worker). A slice that cannot
be cut or built is a :class:`~harness.seams.errors.UserError` naming model and ops; a slice
file that another run's cache trim dropped is cut again.

**Profiles.** :meth:`RunnerTable.profile` times a slice alone on its processor's worker
(:func:`~devices.host.profiles.time_slice`: ``host.warmup_runs`` untimed runs, then the median
of ``host.profile_runs``), once per slice. Measurements persist on disk
(:class:`~devices.host.profiles.ProfileCache`, under ``<cache_dir>/profiles``, keyed by all
that changes them) unless ``host.profile_cache`` is false. A measurement made while other work
shared the core is retried once and, if still contended, used for this run only. A planned
slice is built whether or not its profile is cached; one that is only profiled (a window
tuner's candidate) is dropped after timing, so that candidates' interpreters (each holding its
slice's weights) do not pile up.

**Closing** (:meth:`RunnerTable.close`) drops every interpreter and trims the slice cache to
its budget (:meth:`~devices.host.slicecache.SliceCache.trim`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from devices.host.config import HostSettingsConf
from devices.host.profiles import ProfileCache, Timing, time_slice
from devices.host.sensors import cpu_model
from devices.host.slicekey import SliceKey, describe_slice
from devices.host.spec import HostProcessorSpec
from devices.host.workers import SliceRunner, Worker, litert_version
from harness.seams.errors import UserError
from harness.seams.progress import StartPhase, counted, no_phases, steps

log = logging.getLogger(__name__)
#: wall seconds between two lines of profiling progress
SAY_EVERY_S = 3.0


class RunnerTable:
    """The host device's interpreters by slice key, and each slice's profile; see the module
    docstring."""

    def __init__(
        self, settings: HostSettingsConf, specs: Mapping[str, HostProcessorSpec], cache_dir: Path,
        worker: Callable[[str], Worker], model_path: Callable[[str], Path],
        phases: StartPhase = no_phases,
    ) -> None:
        self.settings = settings
        #: where load() reports cutting and building (harness.seams.progress)
        self._phases = phases
        self.specs = specs
        self.cache_dir = cache_dir
        #: a processor's worker (a UserError for an unknown processor)
        self._worker = worker
        #: a model's ``.tflite`` (a UserError for an unknown model)
        self._model_path = model_path
        self._runners: dict[SliceKey, SliceRunner] = {}
        self._profiles: dict[SliceKey, int] = {}
        #: slices of the plans given to load(): built before the clock, kept
        self._planned: set[SliceKey] = set()
        self._profile_store: ProfileCache | None = None
        self._slice_lock = threading.Lock()
        self._slicer: Any = None
        #: slices timed so far, and when progress was last said (wall s)
        self._timed_count = 0
        self._said_s = time.monotonic()

    # -- building --------------------------------------------------------------------------

    def load(self, keys: Sequence[SliceKey]) -> None:
        """Note the slices of loaded plans (built before the clock, kept) and build the first
        ``host.eager_build_limit`` of them now; the rest on first use."""
        self._planned.update(keys)
        self.build(keys[: self.settings.eager_build_limit], self._phases)

    def build(self, keys: Iterable[SliceKey], phases: StartPhase = no_phases) -> None:
        """Slice (here) and build interpreters (on each slice's worker, in parallel): two
        phases of ``phases``, "cutting N slices" and "building N interpreters", a step per
        slice (none when every slice is built)."""
        todo = [k for k in keys if k not in self._runners]
        if not todo:
            return
        futures = [(k, self._worker(k[2]).submit(self._builder(k)))
                   for k in steps(phases, f"cutting {counted(len(todo), 'slice')}", todo)]
        building = f"building {counted(len(todo), 'interpreter')}"
        for key, future in steps(phases, building, futures):
            try:
                self._runners[key] = future.result()
            except Exception as exc:
                raise UserError(f"cannot build {describe_slice(key)}: {exc}") from None

    def _builder(self, key: SliceKey) -> Callable[[], SliceRunner]:
        model, ops, proc = key
        try:
            with self._slice_lock:
                piece = self._slice_cache().slice(self._model_path(model), ops)
        except Exception as exc:
            raise UserError(f"cannot slice {describe_slice(key)}: {exc}") from None
        spec = self.specs[proc]

        def build() -> SliceRunner:
            path = Path(piece.path)
            if not path.is_file():  # another run's cache trim dropped it: cut it again
                with self._slice_lock:
                    path = Path(self._slice_cache().slice(self._model_path(model), ops).path)
            return SliceRunner(path, piece.input_tensors, piece.output_tensors, spec.kernel,
                               spec.threads)

        return build

    def runner(self, key: SliceKey) -> SliceRunner:
        """The slice's runner; built here on first use (call on its worker)."""
        if key not in self._runners:
            self._runners[key] = self._builder(key)()
        return self._runners[key]

    def _slice_cache(self) -> Any:
        if self._slicer is None:
            from devices.host.slicecache import SliceCache

            self._slicer = SliceCache(self.cache_dir)
        return self._slicer

    # -- profiles --------------------------------------------------------------------------

    def profile(self, key: SliceKey) -> int:
        """Median ns of the slice alone on its processor (from the disk cache if there)."""
        if key not in self._profiles:
            self._profiles[key] = self._measure(key)
        return self._profiles[key]

    def _measure(self, key: SliceKey) -> int:
        """From the disk cache, else timed on the slice's worker (and stored if clean)."""
        planned = key in self._planned
        if planned:
            self.build([key])
        store = self._profiles_on_disk()
        model_path, spec = self._model_path(key[0]), self.specs[key[2]]
        if store is not None and (cached := store.get(model_path, key[1], spec)) is not None:
            return cached
        self.build([key])
        self._say_progress(key)
        timing = self._timed(key)
        if not timing.clean:  # other work shared the core: once more, keep the cleaner one
            timing = max(timing, self._timed(key), key=lambda t: t.cpu_share or 0.0)
        if not timing.clean:
            log.warning("%s: profiled while other work ran on its cores (thread ran %.0f%% of "
                        "the time); used for this run only, not cached", describe_slice(key),
                        100 * (timing.cpu_share or 0.0))
        if not planned:
            self._runners.pop(key, None)
        if store is not None:
            store.put(model_path, key[1], spec, timing)
        return timing.median_ns

    def _say_progress(self, key: SliceKey) -> None:
        """Profiling a plan's slices can take a minute on first use: a line every
        :data:`SAY_EVERY_S` wall seconds says how far it is."""
        self._timed_count += 1
        now = time.monotonic()
        if now - self._said_s >= SAY_EVERY_S:
            self._said_s = now
            log.info("profiling slices on this machine: %d timed so far (now %s); timings "
                     "are cached for the next run", self._timed_count, describe_slice(key))

    def _timed(self, key: SliceKey) -> Timing:
        return self._worker(key[2]).call(lambda: self._time_slice(key))

    def _time_slice(self, key: SliceKey) -> Timing:
        """The slice alone, timed (call on its worker): see
        :func:`~devices.host.profiles.time_slice`."""
        judged = self.specs[key[2]].threads == 1
        return time_slice(self.runner(key), self.settings, judged)

    @property
    def profile_store(self) -> ProfileCache | None:
        """The on-disk profile cache (with its hit and store counts), or ``None`` when
        ``host.profile_cache`` is false."""
        return self._profiles_on_disk()

    def _profiles_on_disk(self) -> ProfileCache | None:
        if not self.settings.profile_cache:
            return None
        if self._profile_store is None:
            machine = {"litert_version": litert_version(), "cpu_model": cpu_model()}
            self._profile_store = ProfileCache(self.cache_dir / "profiles", self.settings,
                                               machine)
        return self._profile_store

    # -- closing ---------------------------------------------------------------------------

    def log_profile_use(self) -> None:
        """Log the profile cache's hits and stores (when it was opened)."""
        if self._profile_store is not None:
            store = self._profile_store
            log.info("host profiles: %d from %s, %d measured and stored", store.hits,
                     store.root, store.stores)

    def close(self) -> None:
        """Drop every interpreter; trim the slice cache to its budget (if it was opened)."""
        self._runners.clear()
        if self._slicer is not None:
            self._slicer.trim()
