"""The C++ trace reader cannot be crashed (``runner/src/policies/json.cc``, ``replay.cc``):
deep nesting, bad escapes, duplicate keys, numbers outside the grammar and non-objects are
one error line naming the line and the offset (exit 1); a trace cut by a killed run replays
every whole line and says it was cut (exit 0, as many decisions as Python replays); the
fuzz target runs clean over the kept inputs (``runner/fuzz/corpus``: seeded traces,
``runner/fuzz/regressions``: inputs fuzzing found); and on mutated lines the two readers
refuse or accept alike. Skipped when cmake or g++ is missing."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.replay.replay import TraceCut
from harness.replay.trace import TraceError, loads
from tests.fixtures.generated_traces import generated_trace
from tests.fixtures.paths import REPO
from tests.runner import native

pytestmark = pytest.mark.skipif(native.missing_tools() is not None,
                                reason=f"runner not buildable: {native.missing_tools()}")

FUZZ = REPO / "runner" / "fuzz"


@pytest.fixture(scope="module")
def build() -> Path:
    native.build()
    return native.BUILD


def run(binary: Path, *args: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(binary), *map(str, args)], capture_output=True, text=True,
                          timeout=120)


def with_line(tmp_path: Path, k: int, text: str) -> Path:
    """A seeded ADMS trace whose line ``k`` (0: the header) is ``text``."""
    path = generated_trace(1, "adms", tmp_path / "t.jsonl", calls=30)
    lines = path.read_text().splitlines()
    lines[k] = text
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize(("text", "error"), [
    ('{"call":' + "[" * 200_000 + "]" * 200_000 + "}", "nesting deeper than 64 at offset 71"),
    ('{"call":"\\u12zz"}', "bad \\u escape (four hex digits wanted) at offset 13"),
    ('{"call":"observe","call":"schedule"}', 'key "call" given twice at offset 18'),
    ('{"call":"a\\x"}', "bad escape at offset 11"),
    ('{"call":"\x01"}', "raw control character in a string at offset 9"),
    ('{"i":01}', "expected '}' at offset 6"),
    ('{"i":+1}', "unexpected character at offset 5"),
    ('{"i":NaN}', "unexpected character at offset 5"),
    ('{"i":99999999999999999999}', "integer out of the 64-bit range"),
    ("[1]", "not a JSON object"),
])
def test_a_bad_line_is_one_error_naming_line_and_offset(build: Path, tmp_path: Path,
                                                        text: str, error: str) -> None:
    result = run(build / "replay", with_line(tmp_path, 3, text))
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1, result.stderr
    assert f": line 4: JSON: {error}" in result.stderr or (
        error == "not a JSON object" and ": line 4: not a JSON object" in result.stderr
    ), result.stderr


@pytest.mark.parametrize("family", ["tflite", "band", "adms"])
def test_a_cut_trace_replays_every_whole_line(build: Path, tmp_path: Path, family: str) -> None:
    path = generated_trace(4, family, tmp_path / "t.jsonl", calls=80)
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:-1]) + "\n" + lines[-1][:len(lines[-1]) // 2])
    result = run(build / "replay", path)
    assert result.returncode == 0, result.stderr
    with pytest.raises(TraceCut) as cut:
        from harness.replay.replay import replay
        replay(path)
    assert (f": {cut.value.decisions} decisions replay clean before a cut last line "
            f"(line {len(lines)}: JSON: ") in result.stdout


def test_the_kept_fuzz_inputs_read_without_a_crash(build: Path) -> None:
    inputs = sorted((FUZZ / "corpus").iterdir()) + sorted((FUZZ / "regressions").iterdir())
    result = run(build / "replay_corpus", *inputs)
    assert result.returncode == 0, result.stderr
    assert f"{len(inputs)} inputs read without a crash" in result.stdout


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(line=st.integers(1, 20), at=st.integers(0, 3000),
       junk=st.text(alphabet='{}[]":,\\u0123456789aefnrz-.+', min_size=1, max_size=3))
def test_both_readers_refuse_the_same_lines(build: Path, tmp_path: Path, line: int, at: int,
                                            junk: str) -> None:
    """A line with a few characters inserted: the C++ reader refuses its JSON exactly when
    Python's does (each naming the line and an offset)."""
    path = generated_trace(2, "band", tmp_path / "t.jsonl", calls=30)
    lines = path.read_text().splitlines()
    k = line % len(lines)
    lines[k] = lines[k][:at % len(lines[k])] + junk + lines[k][at % len(lines[k]):]
    path.write_text("\n".join(lines) + "\n")
    try:
        loads(lines[k])
        python_refuses = False
    except TraceError:
        python_refuses = True
    result = run(build / "replay", path)
    # (a parse error names an offset; a line that parses but lacks a key does not)
    cpp_refuses = f": line {k + 1}: JSON: " in result.stderr and " at offset " in result.stderr
    assert cpp_refuses == python_refuses, (lines[k], result.stderr)
