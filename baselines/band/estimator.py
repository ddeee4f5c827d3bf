"""Band's latency estimator: a profiled value per subgraph, then a moving average.

Band keeps, per subgraph key, two numbers (``band/latency_estimator.cc``): the *profiled*
latency measured once when the model is registered, and a *moving-averaged* latency that
every finished execution updates::

    expected <- alpha * measured + (1 - alpha) * expected

``alpha`` is Band's ``profile_smoothing_factor`` (default 0.1). Schedulers read the
moving average (``GetExpected``); the profiled value is kept for records; the *worst*
latency of a model (``GetWorst``, the largest expected value among its subgraphs) is what
Band multiplies by ``slo_scale``. A key with no profile reads as a very large latency, so a
scheduler never prefers an unprofiled subgraph.

Keys here are ``(model, subgraph index)`` and times are integer nanoseconds. ADMS uses the
same estimator (it is built on Band's runtime). Schedulers that read every estimate of a
plan at each decision get them as one list per model (:meth:`LatencyEstimator.costs`), kept
up to date as estimates move, instead of a dictionary lookup per subgraph.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

import numpy as np

#: what an unprofiled subgraph is expected to take (Band returns INT32_MAX microseconds)
UNKNOWN_NS: Final = 2**31 * 1_000
#: subgraph indices from 0 to this (exclusive) are kept in per-model lists
MAX_INDEX: Final = 1 << 20

Key = tuple[str, int]


class LatencyEstimator:
    """Profiled and moving-averaged latency per ``(model, subgraph index)``, in ns."""

    def __init__(self, alpha: float = 0.1) -> None:
        if not 0.0 <= alpha <= 1.0:
            raise ValueError(f"alpha must be in [0, 1], got {alpha}")
        self.alpha = alpha
        self._profiled: dict[Key, int] = {}
        #: model -> expected ns by subgraph index (-1: not profiled); a key whose index or
        #: value does not fit (negative) is in ``_others``. Read at every decision: a list
        #: index is far cheaper than hashing a (model, index) tuple.
        self._expected: dict[str, list[int]] = {}
        self._others: dict[Key, int] = {}
        #: model -> expected ns by subgraph index (built on first use, then kept current)
        self._vectors: dict[str, np.ndarray] = {}
        #: bumped on every change, so callers can cache values derived from estimates
        self.version = 0

    def seed(self, profile: Mapping[Key, int]) -> None:
        """Set the profiled value (and reset the moving average) of every key given."""
        for key, ns in profile.items():
            self._profiled[key] = int(ns)
            self._set(key, int(ns))
        self._vectors.clear()
        self.version += 1

    # Mirrors band/latency_estimator.cc LatencyEstimator::UpdateLatency (unknown keys ignored;
    # the product is truncated to an integer as Band's int64 assignment does).
    def update(self, key: Key, latency_ns: int) -> int | None:
        """Fold one measured latency into the moving average of ``key``; returns the new
        expected value (None, and nothing changes, for an unprofiled key)."""
        known, prev = self._get(key)
        if not known:
            return None
        value = int(self.alpha * latency_ns + (1.0 - self.alpha) * prev)
        self._set(key, value)
        vector = self._vectors.get(key[0])
        if vector is not None and key[1] < len(vector):
            vector[key[1]] = value
        self.version += 1
        return value

    def expected(self, key: Key) -> int:
        known, ns = self._get(key)
        return ns if known else UNKNOWN_NS

    def _get(self, key: Key) -> tuple[bool, int]:
        """(whether ``key`` is profiled, its expected ns)."""
        values = self._expected.get(key[0])
        index = key[1]
        if values is not None and 0 <= index < len(values) and values[index] >= 0:
            return True, values[index]
        ns = self._others.get(key)
        return (False, 0) if ns is None else (True, ns)

    def _set(self, key: Key, ns: int) -> None:
        model, index = key
        if ns < 0 or not 0 <= index < MAX_INDEX:
            self._others[key] = ns
            values_ = self._expected.get(model)
            if values_ is not None and 0 <= index < len(values_):
                values_[index] = -1  # (the list holds no value for it now)
            return
        values = self._expected.setdefault(model, [])
        if index >= len(values):
            values.extend([-1] * (index + 1 - len(values)))
        values[index] = ns
        self._others.pop(key, None)

    def costs(self, model: str, count: int) -> np.ndarray:
        """Expected ns of subgraphs ``0..count-1`` of ``model``, by index (unknown ones read
        as :data:`UNKNOWN_NS`), as int64. The array is the estimator's own, kept current: read
        it, do not change it."""
        vector = self._vectors.get(model)
        if vector is None or len(vector) != count:
            vector = np.fromiter((self.expected((model, k)) for k in range(count)),
                                 dtype=np.int64, count=count)
            self._vectors[model] = vector
        return vector

    def profiled(self, key: Key) -> int:
        return self._profiled.get(key, UNKNOWN_NS)

    def worst(self, model: str) -> int:
        """The largest expected latency among the model's subgraphs (Band ``GetWorst``)."""
        listed = [ns for ns in self._expected.get(model, []) if ns >= 0]
        others = [ns for (m, _), ns in self._others.items() if m == model]
        return max(listed + others, default=0)
