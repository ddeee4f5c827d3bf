"""``harness list tools`` names every command a user can type after ``harness``."""

from __future__ import annotations

from harness.cli.listing import listing
from harness.cli.main import COMMANDS, INTERNAL


def test_every_command_is_listed_as_a_tool() -> None:
    text = listing(["tools"])
    named = {line.split()[0] for line in text.splitlines()[1:] if line.startswith("  ")
             and not line.startswith("   ")}
    assert named == set(COMMANDS) - {"list", *INTERNAL} and "completion" in named


def test_a_tool_with_its_own_config_file_names_it() -> None:
    text = " ".join(listing(["tools"]).split())
    assert "(conf/validate.yaml)" in text and "(conf/decisions.yaml)" not in text
