"""What users read names no issue of this project and no "item N" of one.

The manual (``README.md``, ``runner/README.md``, ``docs/**/*.md``), the config files
(``conf/**/*.yaml``: their header comments are what ``harness list`` prints) and every string
literal of the code (printed messages, ``--help`` texts, docstrings that become descriptions)
say what a thing is, not which ticket made it. A line that cites another project's repository
(``github.com/tensorflow/tensorflow, issue 15554``: a source of a device constant) is a
citation, not a reference to this project's tracker, and is allowed.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fixtures.paths import REPO

#: "issue 22", "issue #22", "issues 22", "item 4"
TICKET = re.compile(r"\b(?:issues?\s*#?\d+|items?\s+\d+)", re.IGNORECASE)
#: a line naming another project's repository cites that project's issue
CITATION = re.compile(r"github\.com/[\w.-]+/[\w.-]+")
CODE = ("harness", "devices", "baselines", "adms")


def tickets(text: str) -> list[str]:
    """Each line of ``text`` that names an issue or an item, citations left out."""
    return [line.strip() for line in text.splitlines()
            if TICKET.search(line) and not CITATION.search(line)]


def strings(source: str) -> Iterator[str]:
    """The string literals of a Python source (f-strings' literal parts included)."""
    middle = getattr(tokenize, "FSTRING_MIDDLE", None)
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.STRING or token.type == middle:
            yield token.string


def manual_and_configs() -> list[Path]:
    return [REPO / "README.md", REPO / "runner" / "README.md",
            *sorted((REPO / "docs").rglob("*.md")), *sorted((REPO / "conf").rglob("*.yaml"))]


def code() -> list[Path]:
    return [p for package in CODE for p in sorted((REPO / package).rglob("*.py"))]


def test_the_finder_finds_tickets_and_spares_citations() -> None:
    text = ("# Overload (issue 9): five models\nsubgraphs (Issue #22 item 4)\n"
            "| M | github.com/MediaTek-NeuroPilot/tflite-neuron-delegate, issue 12 |\n"
            "an issue with 3 models; the items of 2 lists\n")
    assert tickets(text) == ["# Overload (issue 9): five models", "subgraphs (Issue #22 item 4)"]
    found = list(strings('x = 1  # issue 3\nprint(f"see item {n}: item 2", "issue 5")\n'))
    assert [s for s in found if tickets(s)] != [] and not any("# issue 3" in s for s in found)


@pytest.mark.parametrize("path", manual_and_configs(), ids=lambda p: str(p.relative_to(REPO)))
def test_the_manual_and_the_configs_name_no_issue(path: Path) -> None:
    assert tickets(path.read_text(encoding="utf-8")) == []


def test_the_codes_strings_name_no_issue() -> None:
    found = [f"{path.relative_to(REPO)}: {line}" for path in code()
             for literal in strings(path.read_text(encoding="utf-8"))
             for line in tickets(literal)]
    assert found == []
