"""Tab completion: the candidates for a partial line, and the script in a real bash.

The candidates are checked against ``conf/`` as ``harness list`` reads it; the script is
sourced by ``bash`` with the variables bash sets for a completion function (the words split
at bash's default ``COMP_WORDBREAKS``, as an interactive bash splits them) and its
``COMPREPLY`` read back.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness.cli import complete
from harness.cli.complete import candidates, raw_words, replies, run_list
from harness.cli.listing import listing
from harness.cli.main import COMMANDS, INTERNAL
from harness.config import CONF_DIR
from tests.fixtures.paths import REPO

#: bash's default COMP_WORDBREAKS
BREAKS = " \t\n\"'@><=;|&(:"


def listed_baselines() -> list[str]:
    """The names ``harness list baselines`` prints, in its order (YAMLs, then groups)."""
    lines = listing(["baselines"]).splitlines()[1:]
    return [line.split()[0] for line in lines if line[2:3].strip()]


def test_the_names_in_a_run_list_are_the_ones_harness_list_shows() -> None:
    assert complete.baseline_names() == listed_baselines()
    assert {"adms", "band", "band_best"} <= set(complete.baseline_names())


def test_the_last_element_of_a_run_list_is_completed_and_the_listed_ones_left_out() -> None:
    found = run_list("run=[adms,band,ad")
    expected = [n for n in listed_baselines() if n.startswith("ad") and n != "adms"]
    assert found == [f"run=[adms,band,{name}" for name in expected]
    assert "run=[adms,band,adms_ef" in found and "run=[adms,band,adms" not in found
    assert candidates(["device=host"], "run=[tflite,band_h") == [
        "run=[tflite,band_heft", "run=[tflite,band_heft_reserved"]
    assert candidates([], "run=") == [f"run=[{name}" for name in listed_baselines()]


@pytest.mark.parametrize(("key", "folder"), list(complete.GROUPS.items()))
def test_a_group_is_completed_with_its_yamls(key: str, folder: str) -> None:
    names = sorted(p.stem for p in (CONF_DIR / folder).glob("*.yaml"))
    assert names  # the folder has options
    assert candidates(["device=p20"], f"{key}=") == [f"{key}={n}" for n in names]
    first = names[0]
    assert candidates([], f"{key}={first[:2]}") == [
        f"{key}={n}" for n in names if n.startswith(first[:2])]


def test_the_first_word_offers_the_commands_and_the_keys() -> None:
    assert candidates([], "li") == ["list"]
    assert candidates([], "comp") == ["compare", "completion"]  # (not the callback)
    every = candidates([], "")  # (an empty word: no Hydra, the fast answer)
    assert every == [*(c for c in COMMANDS if c not in INTERNAL), "help", "device=",
                     "scenario=", "+experiment=", "run=["]
    assert "list" not in candidates(["device=p20"], "")  # not a command past the first word


def test_a_command_gets_its_own_arguments() -> None:
    assert candidates(["list"], "sc") == ["scenarios"]
    assert candidates(["list", "devices"], "") == ["baselines", "devices", "scenarios",
                                                   "experiments", "models", "tools"]
    assert candidates(["completion"], "") == ["bash", "zsh"]
    assert candidates(["report"], "res") == []  # files: the shell completes them


def test_any_other_key_is_hydras_completion() -> None:
    assert candidates(["device=host"], "scenario.dur") == ["scenario.duration_s="]
    assert "scenario.duration_s=" in candidates([], "scenario.d")


def test_words_split_as_the_shell_reads_them() -> None:
    assert raw_words("harness run=[a,b] x") == ["harness", "run=[a,b]", "x"]
    assert raw_words("harness  list ") == ["harness", "list", ""]
    assert raw_words("harness 'a b' \"c d") == ["harness", "'a b'", '"c d']
    assert raw_words("harness a\\ b") == ["harness", "a\\ b"]


def test_replies_replace_only_the_text_after_bashs_last_word_break() -> None:
    assert replies("harness run=[adms,band_heft_r", BREAKS) == (
        ["[adms,band_heft_reserved"], True)  # (in a list: no space after)
    assert replies("harness device=mi", BREAKS) == (["mi6"], False)
    assert replies("harness device=", BREAKS)[0][:2] == ["adb", "host"]
    # in open quotes the word is replaced whole; zsh (no breaks) replaces every word whole
    assert replies("harness 'run=[adms,band_heft_r", BREAKS)[0] == [
        "'run=[adms,band_heft_reserved"]
    assert replies("harness run=[adms,band_heft_r")[0] == ["run=[adms,band_heft_reserved"]
    # a COMP_WORDBREAKS with ",": only the last name is replaced, still with no space after
    assert replies("harness run=[adms,band_heft_r", BREAKS + ",") == (
        ["band_heft_reserved"], True)


def test_the_callback_says_whether_a_space_follows(capsys: pytest.CaptureFixture[str]) -> None:
    complete.callback(["--breaks", BREAKS, "--", "harness run=[adms,band_heft_r"])
    assert capsys.readouterr().out.splitlines() == ["nospace", "[adms,band_heft_reserved"]
    complete.callback(["--breaks", BREAKS, "--", "harness device=mi"])
    assert capsys.readouterr().out.splitlines() == ["space", "mi6"]
    complete.callback(["--", "harness report res"])
    assert capsys.readouterr().out.splitlines() == ["space"]  # no reply line at all


def test_an_unknown_shell_is_one_line_naming_it_and_the_allowed_ones(
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        complete.main(["fish"])
    err = capsys.readouterr().err.strip().splitlines()
    assert exit_.value.code == 2 and len(err) == 1
    assert "'fish'" in err[0] and "bash" in err[0] and "zsh" in err[0]


def test_the_script_is_printed_for_each_shell(capsys: pytest.CaptureFixture[str]) -> None:
    for shell, registers in (("bash", "complete -o default -F"), ("zsh", "compdef _harness")):
        assert complete.main([shell]) == 0
        text = capsys.readouterr().out
        assert registers in text and '" complete --' in text  # (the callback)


# -- a real bash ----------------------------------------------------------------------------

BASH = shutil.which("bash")


@pytest.fixture(scope="module")
def harness_bin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with a ``harness`` that runs this checkout's entry point."""
    folder = tmp_path_factory.mktemp("bin")
    script = folder / "harness"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -c '
                      f'"from harness.cli.main import main; main()" "$@"\n')
    script.chmod(0o755)
    return folder


def in_bash(harness_bin: Path, words: list[str], line: str) -> list[str]:
    """COMPREPLY after bash's completion function ran on ``words`` (the last is the current
    word, as bash splits it) for ``line``."""
    script = complete.script("bash")
    quoted = " ".join("'" + w.replace("'", "'\\''") + "'" for w in words)
    program = (f'{script}\nCOMP_WORDS=({quoted}); COMP_CWORD={len(words) - 1}\n'
               f'COMP_LINE="$LINE"; COMP_POINT=${{#COMP_LINE}}\n'
               f'_harness_complete harness "${{COMP_WORDS[COMP_CWORD]}}" '
               f'"${{COMP_WORDS[COMP_CWORD-1]}}" 2>/dev/null\n'
               'printf "%s\\n" "${COMPREPLY[@]}"')
    env = {**os.environ, "PATH": f"{harness_bin}{os.pathsep}{os.environ['PATH']}",
           "PYTHONPATH": str(REPO), "LINE": line}
    done = subprocess.run([str(BASH), "--norc", "--noprofile", "-c", program], env=env,
                          capture_output=True, text=True, check=True, timeout=60)
    return [r for r in done.stdout.splitlines() if r]


@pytest.mark.skipif(BASH is None, reason="no bash")
def test_bash_completes_inside_a_run_list_and_after_an_equals_sign(harness_bin: Path) -> None:
    assert in_bash(harness_bin, ["harness", "run", "=", "[adms,band_h"],
                   "harness run=[adms,band_h") == ["[adms,band_heft", "[adms,band_heft_reserved"]
    assert in_bash(harness_bin, ["harness", "device", "=", "mi"],
                   "harness device=mi") == ["mi6"]
    assert in_bash(harness_bin, ["harness", "device", "="], "harness device=") == \
        complete.options("device")
    assert in_bash(harness_bin, ["harness", "li"], "harness li") == ["list"]
