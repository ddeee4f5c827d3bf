"""The manual holds together: README.md is a short users' manual that starts with the two
set-up commands, every relative link in README.md and ``docs/`` resolves to a file (and, where
it names one, to a heading of that file), and every ``devices.md §N <source>`` provenance tag in
the device configs names a section of ``docs/reference/devices.md`` that cites that source.

Links are Markdown inline links ``[text](target)``; web links (``http(s)://``, ``mailto:``) are
not followed. A heading's anchor is GitHub's: lower case, punctuation dropped, spaces as ``-``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.fixtures.paths import REPO

README = REPO / "README.md"
DOCS = REPO / "docs"
#: the most lines the README may have
MAX_README_LINES = 200
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.M | re.S)
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*$", re.M)
#: a provenance tag: "devices.md §5 X", "devices.md §2 J,K", "devices.md §4 B2,T"
TAG = re.compile(r"devices\.md §(\d) ((?:[A-Z]{1,2}\d?)(?:, ?[A-Z]{1,2}\d?)*)\b")


def manual() -> list[Path]:
    return [README, *sorted(DOCS.rglob("*.md"))]


def links(path: Path) -> list[str]:
    """The inline link targets of ``path``, outside fenced code blocks."""
    return LINK.findall(FENCE.sub("", path.read_text(encoding="utf-8")))


def anchor(heading: str) -> str:
    """GitHub's anchor of a heading's text."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    return {anchor(h) for h in HEADING.findall(FENCE.sub("", path.read_text(encoding="utf-8")))}


def broken(path: Path, target: str) -> str | None:
    """Why ``target`` (linked from ``path``) does not resolve, or None."""
    if re.match(r"[a-z]+:", target):
        return None
    file, _, fragment = target.partition("#")
    resolved = (path.parent / file).resolve() if file else path
    if not resolved.exists():
        return f"{path.relative_to(REPO)}: {target} (no such file)"
    if fragment and resolved.suffix == ".md" and fragment not in anchors(resolved):
        return f"{path.relative_to(REPO)}: {target} (no such heading)"
    return None


def test_the_readme_is_short_and_starts_with_the_two_commands() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_README_LINES, f"README.md has {len(lines)} lines"
    first_block = lines[lines.index("```bash") + 1:lines.index("```")]
    assert [line.split()[:2] for line in first_block] == [["make", "run"], ["make", "test"]]
    assert "```bash" in lines[:4], "the commands come first"


@pytest.mark.parametrize("path", manual(), ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_resolves(path: Path) -> None:
    problems = [p for t in links(path) if (p := broken(path, t)) is not None]
    assert problems == []


def test_the_readme_links_every_page_of_the_manual() -> None:
    reachable = {(README.parent / t.partition("#")[0]).resolve() for t in links(README)}
    for page in sorted(DOCS.rglob("*.md")):
        reachable |= {(page.parent / t.partition("#")[0]).resolve() for t in links(page)
                      if page.resolve() in reachable and not re.match(r"[a-z]+:", t)}
    unreached = [str(p.relative_to(REPO)) for p in sorted(DOCS.rglob("*.md"))
                 if p.resolve() not in reachable]
    assert unreached == []


#: what in a section's text is not a source key: tags ([S], [E]...), degrees, volts, watts
NOT_A_SOURCE = re.compile(r"\[[^\]]*\]|°C|\d\s?[VWK]\b")


def sections(path: Path) -> dict[str, str]:
    """``§N`` -> the text of the section whose heading starts with it, less what could be
    mistaken for a source key."""
    parts = re.split(r"^## §(\d) ", path.read_text(encoding="utf-8"), flags=re.M)
    return {number: NOT_A_SOURCE.sub("", text)
            for number, text in zip(parts[1::2], parts[2::2], strict=True)}


def test_every_device_provenance_tag_names_a_section_that_cites_its_source() -> None:
    cited = sections(DOCS / "reference" / "devices.md")
    tags = {(number, source.strip()) for path in sorted((REPO / "conf").rglob("*.yaml"))
            for number, sources in TAG.findall(path.read_text(encoding="utf-8"))
            for source in sources.split(",")}
    assert len(tags) > 20  # the configs do cite it
    missing = sorted(f"§{n} {s}" for n, s in tags
                     if n not in cited or not re.search(rf"\b{s}\b", cited[n]))
    assert missing == []
