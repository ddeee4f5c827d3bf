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

Key = tuple[str, int]


class LatencyEstimator:
    """Profiled and moving-averaged latency per ``(model, subgraph index)``, in ns."""

    def __init__(self, alpha: float = 0.1) -> None:
        if not 0.0 <= alpha <= 1.0:
            raise ValueError(f"alpha must be in [0, 1], got {alpha}")
        self.alpha = alpha
        self._profiled: dict[Key, int] = {}
        self._expected: dict[Key, int] = {}
        #: model -> expected ns by subgraph index (built on first use, then kept current)
        self._vectors: dict[str, np.ndarray] = {}
        #: bumped on every change, so callers can cache values derived from estimates
        self.version = 0

    def seed(self, profile: Mapping[Key, int]) -> None:
        """Set the profiled value (and reset the moving average) of every key given."""
        for key, ns in profile.items():
            self._profiled[key] = int(ns)
            self._expected[key] = int(ns)
        self._vectors.clear()
        self.version += 1

    # Mirrors band/latency_estimator.cc LatencyEstimator::UpdateLatency (unknown keys ignored;
    # the product is truncated to an integer as Band's int64 assignment does).
    def update(self, key: Key, latency_ns: int) -> int | None:
        """Fold one measured latency into the moving average of ``key``; returns the new
        expected value (None, and nothing changes, for an unprofiled key)."""
        prev = self._expected.get(key)
        if prev is None:
            return None
        value = self._expected[key] = int(self.alpha * latency_ns + (1.0 - self.alpha) * prev)
        vector = self._vectors.get(key[0])
        if vector is not None and key[1] < len(vector):
            vector[key[1]] = value
        self.version += 1
        return value

    def expected(self, key: Key) -> int:
        return self._expected.get(key, UNKNOWN_NS)

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
        return max((ns for (m, _), ns in self._expected.items() if m == model), default=0)
