"""The report opened in a real headless browser (Debian's ``chromium``): a screenshot that
is not blank. Skipped, saying why, where chromium is not installed
(``apt-get install -y chromium``). docs/reference/paper.md ("How the harness compares")
gives the same command to look at a report by eye."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from harness.paper.build import Built

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (Debian: apt-get install -y chromium)")


def screenshot(page: Path, png: Path, height: int = 3000) -> subprocess.CompletedProcess[str]:
    """``chromium --headless --screenshot`` of a local HTML file."""
    assert CHROMIUM is not None
    return subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         f"--screenshot={png}", f"--window-size=1280,{height}", page.resolve().as_uri()],
        capture_output=True, text=True, timeout=120, check=False)


@needs_chromium
def test_the_report_renders_in_chromium(small_report: tuple[Built, Path], tmp_path: Path
                                        ) -> None:
    from PIL import Image

    built, _ = small_report
    png = tmp_path / "report.png"
    done = screenshot(built.html, png, 1200)
    assert done.returncode == 0, done.stderr[-2000:]
    with Image.open(png) as image:
        assert image.size == (1280, 1200)
        colours = image.convert("L").getcolors(maxcolors=1 << 16)
    assert colours is not None and len(colours) > 20  # text and tables, not a blank page
