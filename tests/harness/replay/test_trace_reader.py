"""The Python trace reader cannot be crashed (:mod:`harness.replay.trace`): deep nesting, bad
escapes, duplicate keys, NaN and non-objects are one :class:`TraceError` naming the line and
the offset; a trace cut by a killed run replays every whole line, then says it was cut.
Fuzzed with hypothesis: any text, JSON values, and seeded traces with a line mutated or cut
only ever replay or raise the reader's own errors."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from harness.replay.__main__ import main
from harness.replay.phone import check_phone_trace
from harness.replay.replay import TraceCut, TraceIncomplete, replay
from harness.replay.trace import MAX_DEPTH, TraceError, loads
from harness.seams.errors import UserError
from tests.fixtures.generated_traces import generated_trace

#: what reading or replaying a trace may raise (anything else is a crash)
REFUSALS = (TraceError, TraceCut, TraceIncomplete, UserError)
#: examples per fuzz test (`make fuzz` runs many more; the default run takes seconds)
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "0")) or None


@pytest.mark.parametrize(("text", "error"), [
    ("[" * 200_000 + "]" * 200_000, f"nesting deeper than {MAX_DEPTH} at offset {MAX_DEPTH}"),
    ('{"a":"\\u12zz"}', "Invalid \\uXXXX escape at offset 7"),  # (Python's: at the u)
    ('{"a":1,"b":2,"a":3}', 'key "a" given twice at offset 13'),
    ('{"a":NaN}', "NaN is not a JSON number at offset 5"),
    ('{"a":-Infinity}', "-Infinity is not a JSON number at offset 5"),
    ('{"a":1e400}', "number out of range 1e400 at offset 5"),
    ('{"a":"\x01"}', "Invalid control character at offset 6"),
    ('{"a":"\\x"}', "Invalid \\escape at offset 6"),
    ("[1,2]", "not a JSON object at offset 0"),
])
def test_a_bad_line_is_one_error_naming_the_offset(text: str, error: str) -> None:
    with pytest.raises(TraceError) as refused:
        loads(text)
    assert str(refused.value) == error


def test_a_deep_line_in_a_trace_names_its_line(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    path = generated_trace(0, "adms", tmp_path / "t.jsonl", calls=30)
    lines = path.read_text().splitlines()
    lines[3] = '{"call":' + "[" * 200_000 + "]" * 200_000 + "}"
    path.write_text("\n".join(lines) + "\n")
    assert main([str(path)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "line 4: nesting deeper than 64 at offset" in err


def schedule_calls(lines: list[str]) -> int:
    return sum('"call":"schedule"' in line for line in lines)


@pytest.mark.parametrize("family", ["tflite", "band", "adms"])
def test_a_cut_trace_replays_every_whole_line(tmp_path: Path, family: str,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    path = generated_trace(3, family, tmp_path / "t.jsonl", calls=80)
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:-1]) + "\n" + lines[-1][:len(lines[-1]) // 2])
    with pytest.raises(TraceCut) as cut:
        replay(path)
    assert cut.value.decisions == schedule_calls(lines[1:-1]) > 0
    assert f"line {len(lines)}: " in str(cut.value)
    assert isinstance(check_phone_trace(path), str)
    assert main([str(path)]) == 0
    assert "replay clean before a cut last line" in capsys.readouterr().out


def test_a_bad_line_before_the_last_is_not_a_cut(tmp_path: Path) -> None:
    path = generated_trace(3, "band", tmp_path / "t.jsonl", calls=60)
    lines = path.read_text().splitlines()
    lines[5] = lines[5][:20]
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(TraceError, match=r"^line 6: .* at offset"):
        replay(path)


def test_a_whole_last_line_without_its_newline_replays(tmp_path: Path) -> None:
    path = generated_trace(3, "adms", tmp_path / "t.jsonl", calls=60)
    text = path.read_text()
    path.write_text(text.rstrip("\n"))
    assert replay(path)[1] is None


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20)


@settings(max_examples=EXAMPLES or 150, deadline=None, derandomize=EXAMPLES is None)
@given(st.one_of(st.text(), json_values.map(json.dumps),
                 st.tuples(json_values.map(json.dumps), st.integers(0, 200), st.text(max_size=3))
                 .map(lambda t: t[0][:t[1]] + t[2] + t[0][t[1]:])))
def test_loads_never_crashes(text: str) -> None:
    try:
        assert isinstance(loads(text), dict)
    except TraceError as e:
        assert " at offset " in str(e)


@settings(max_examples=EXAMPLES or 60, deadline=None, derandomize=EXAMPLES is None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(family=st.sampled_from(["tflite", "band", "adms"]), seed=st.integers(0, 20),
       line=st.integers(0, 40), at=st.integers(0, 2000), cut=st.booleans(),
       junk=st.text(alphabet='{}[]":,\\u0123456789aeflnrstz-.', max_size=4))
# found by fuzzing: a time times 1000 overflowed Band's numpy estimator (OverflowError)
@example(family="band", seed=11, line=2, at=147, cut=False, junk="000")
# found by fuzzing: a schedule call without its "decision" (KeyError)
@example(family="adms", seed=6, line=36, at=708, cut=False, junk="")
def test_replay_of_a_mutated_trace_never_crashes(tmp_path: Path, family: str, seed: int,
                                                 line: int, at: int, cut: bool,
                                                 junk: str) -> None:
    path = generated_trace(seed, family, tmp_path / f"{family}_{seed}.jsonl", calls=40)
    lines = path.read_text().splitlines()
    k = line % len(lines)
    text = lines[k]
    lines[k] = text[:at % (len(text) + 1)] + junk + text[at % (len(text) + 1) + (not cut):]
    path.write_text("\n".join(lines[:k + 1]) + ("" if cut else "\n" + "\n".join(lines[k + 1:])))
    with contextlib.suppress(*REFUSALS):
        replay(path)
