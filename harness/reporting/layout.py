"""What every figure must hold to: one colour per baseline, and nothing drawn over anything.

**Colours.** A baseline has one colour in every plot of every run: :func:`colour` gives the
known baselines fixed colours of matplotlib's ``tab10``/``tab20`` (TFLite blues, Band
oranges, ADMS greens and purples, Band's other schedulers, which ``band_best`` draws side by
side, five more) and any other name one of the eight left, picked by a stable hash of the
name, so it does not depend on which baselines a run holds or in what order (two such names
may share one).

**Overlaps.** :func:`overlaps` draws a figure and lists every pair of its texts and legends
whose boxes (matplotlib's ``get_window_extent`` with the canvas's renderer) intersect: the
title and footer, each axes' title and axis labels, each tick label, every legend; and every
legend that lies over an axes' plotting area (where it hides data: a CDF's tail) or a text
or legend that leaves the canvas. A figure is clean when the list is empty; the tests check
every plot of a run, and that a deliberately bad figure fails.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterable
from typing import Any

from matplotlib import colormaps
from matplotlib.colors import to_hex
from matplotlib.figure import Figure
from matplotlib.transforms import Bbox

_T10 = [to_hex(c) for c in colormaps["tab10"].colors]  # type: ignore[attr-defined]
_T20 = [to_hex(c) for c in colormaps["tab20"].colors]  # type: ignore[attr-defined]
#: the fixed colours of the baselines a reader meets most
FIXED = {"tflite": _T10[0], "tflite_gpu": _T20[1], "threads": _T10[7],
         "band": _T10[1], "band7": _T20[3], "adms": _T10[2], "adms_ef": _T10[4],
         # Band's other schedulers (band_best runs them side by side: no two alike)
         "band_fixed_worker": _T20[10], "band_round_robin": _T20[11], "band_sel": _T20[12],
         "band_heft": _T20[16], "band_heft_reserved": _T20[18]}
#: pixels two boxes may share before they count as overlapping (antialiased edges)
SLACK_PX = 1.0


def colour(baseline: str) -> str:
    """The baseline's colour in every plot (a hex string)."""
    if baseline in FIXED:
        return FIXED[baseline]
    taken = set(FIXED.values())
    free = [c for c in _T20 if c not in taken]
    return free[zlib.crc32(baseline.encode()) % len(free)]


def palette(baselines: Iterable[str], shown: Callable[[str], str] = str) -> dict[str, str]:
    """Shown name -> colour, for seaborn's ``palette=`` with the shown names as hue."""
    return {shown(b): colour(b) for b in baselines}


def _box(artist: Any, renderer: Any) -> Bbox | None:
    if artist is None or not artist.get_visible():
        return None
    if hasattr(artist, "get_text") and not artist.get_text().strip():
        return None
    box = artist.get_window_extent(renderer)
    return box if box.width > 0 and box.height > 0 else None


def _axes_items(ax: Any, n: int) -> list[tuple[str, Any]]:
    items: list[tuple[str, Any]] = [
        (f"axes {n} title", ax.title), (f"axes {n} x label", ax.xaxis.label),
        (f"axes {n} y label", ax.yaxis.label), (f"axes {n} legend", ax.get_legend())]
    for name, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
        items += [(f"axes {n} {name} tick {t.get_text()!r}", t) for t in _drawn_ticks(axis)]
    return items


def _drawn_ticks(axis: Any) -> list[Any]:
    """The major tick labels the axis draws: those inside its view limits."""
    low, high = sorted(axis.get_view_interval())
    room = (high - low) * 1e-9
    return [label for loc, label in zip(axis.get_majorticklocs(), axis.get_majorticklabels(),
                                        strict=False)
            if low - room <= loc <= high + room]


def items(fig: Figure) -> list[tuple[str, Any]]:
    """The figure's texts and legends, each with a name saying where it is."""
    found: list[tuple[str, Any]] = [("suptitle", getattr(fig, "_suptitle", None)),
                                    ("footer", getattr(fig, "_supxlabel", None)),
                                    ("figure y label", getattr(fig, "_supylabel", None))]
    named = {id(artist) for _, artist in found}
    found += [(f"figure text {t.get_text()[:30]!r}", t) for t in fig.texts
              if id(t) not in named]
    found += [(f"figure legend {k}", lg) for k, lg in enumerate(fig.legends)]
    for n, ax in enumerate(fig.axes):
        found += _axes_items(ax, n)
    return found


def _hit(a: Bbox, b: Bbox) -> bool:
    return (min(a.x1, b.x1) - max(a.x0, b.x0) > SLACK_PX
            and min(a.y1, b.y1) - max(a.y0, b.y0) > SLACK_PX)


def overlaps(fig: Figure) -> list[str]:
    """Every overlap of the figure as one line each (see the module docstring)."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    boxes = [(name, box) for name, artist in items(fig)
             if (box := _box(artist, renderer)) is not None]
    found = [f"{a} over {b}" for k, (a, box_a) in enumerate(boxes)
             for b, box_b in boxes[k + 1:] if _hit(box_a, box_b)]
    canvas = fig.bbox
    found += [f"{name} leaves the canvas" for name, box in boxes
              if box.x0 < -SLACK_PX or box.y0 < -SLACK_PX
              or box.x1 > canvas.x1 + SLACK_PX or box.y1 > canvas.y1 + SLACK_PX]
    areas = [(n, ax.get_window_extent(renderer)) for n, ax in enumerate(fig.axes)]
    found += [f"{name} over the plot of axes {n}" for name, box in boxes if "legend" in name
              for n, area in areas if _hit(box, area)]
    return found
