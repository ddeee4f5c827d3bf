"""A slice timed beside another: how much one core's work slows another core's.

The twin's bandwidth model slows only memory-bound ops when processors run at once; on a
real machine two cores also share caches and the memory controller's queues (and, on a VM,
possibly one physical core), which slows compute-bound kernels too. :func:`time_beside`
measures it directly, for the twin's ``corun_factor``: a slice timed alone on its worker,
then timed again while another worker runs a background slice in a loop. Both are
single-slice measurements (no scheduler, no multi-model run).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import numpy as np

from devices.host.config import HostSettingsConf
from devices.host.profiles import time_slice
from devices.host.runners import RunnerTable
from devices.host.slicekey import SliceKey
from devices.host.workers import Worker, random_input


def time_beside(runners: RunnerTable, worker_of: Callable[[str], Worker], key: SliceKey,
                background: SliceKey, settings: HostSettingsConf) -> tuple[int, int]:
    """(alone, beside) median ns of slice ``key`` on its processor's worker: alone, then
    while ``background`` runs over and over on its own processor's worker."""
    if key[2] == background[2]:
        raise ValueError(f"the background slice runs on {background[2]!r}, the slice's own "
                         "processor")
    fg, bg = worker_of(key[2]), worker_of(background[2])
    alone = fg.call(lambda: time_slice(runners.runner(key), settings, False)).median_ns
    stop, running = threading.Event(), threading.Event()

    def loop() -> None:
        runner = runners.runner(background)
        rng = np.random.default_rng(settings.seed)
        inputs = {t: random_input(*spec, rng) for t, spec in runner.input_specs.items()}
        runner.run(dict(inputs))
        running.set()
        while not stop.is_set():
            runner.run(dict(inputs))

    bg.post(loop)
    try:
        if not running.wait(60):
            raise TimeoutError(f"the background slice on {background[2]!r} did not start")
        beside = fg.call(lambda: time_slice(runners.runner(key), settings, False)).median_ns
    finally:
        stop.set()
        bg.call(lambda: None)  # (the loop has ended)
    return alone, beside
