"""Bring your own model: a trained ``.tflite`` nobody here built (MediaPipe's selfie
segmentation, ``tests/fixtures/README.md``) analysed, run on a twin and sliced and run on the
host through the documented route; a model whose custom op no kernel provides is refused
with the op's name and the path."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from ai_edge_litert import schema_py_generated as s
from ai_edge_litert.tools import flatbuffer_utils

from harness import analyze
from harness.experiment.models import load_models
from harness.experiment.session import run
from harness.models import byo
from harness.models.tflite_io import sha256_file
from harness.seams.errors import UserError
from tests.fixtures.paths import REPO

SELFIE = REPO / "tests" / "fixtures" / "selfie_segmentation.tflite"
ENTRY = f"selfie:{SELFIE}"
#: the fixture's op count and its custom op (which only XNNPACK provides)
OPS, CUSTOM = 246, "CUSTOM:Convolution2DTransposeBias"


def test_entries_name_zoo_models_files_and_named_files() -> None:
    assert byo.parse("mobilenet_v2") == ("mobilenet_v2", None)
    assert byo.parse("models/x.tflite") == ("x", Path("models/x.tflite"))
    assert byo.parse("seg:models/x.tflite") == ("seg", Path("models/x.tflite"))
    with pytest.raises(UserError, match="name"):
        byo.parse("9bad:models/x.tflite")


def test_the_analyzer_reads_the_file_and_caches_its_profile_by_content(tmp_path: Path,
                                                                         monkeypatch) -> None:
    rows = analyze.run([f"model.path={SELFIE}", f"cache={tmp_path}"])
    assert [(r["model"], r["ops"]) for r in rows] == [("selfie_segmentation", OPS)]
    cached = tmp_path / "profiles" / f"{sha256_file(SELFIE)[:16]}.json"
    profile = json.loads(cached.read_text())
    assert profile["meta"]["needs_xnnpack"] is True
    assert CUSTOM in {op[0] for op in profile["ops"]}

    def no_second_read(*_a: object, **_k: object) -> None:
        raise AssertionError("the cached profile was not used")

    monkeypatch.setattr(byo, "read_tflite", no_second_read)
    assert analyze.run([f"model.path={SELFIE}", f"cache={tmp_path}"])[0]["ops"] == OPS


def _ran(folder: Path) -> dict:
    from harness.reporting.store import load_run

    data = load_run(folder)
    ok = data.requests[data.requests["status"] == "ok"]
    return {"status": data.manifest["status"], "models": set(data.requests["model"]),
            "baselines": set(ok["baseline"]),
            "ok": len(ok), "subgraphs": int(ok["n_subgraphs"].max())}


def test_a_trained_model_runs_on_a_twin(tmp_path: Path) -> None:
    folder = run(["scenario=single", f"scenario.models=[{ENTRY}]", "run=[tflite_gpu]",
                  "scenario.duration_s=0.5", "scenario.warmup_s=0", "seed.count=1",
                  "plots=false", f"zoo_cache={tmp_path / 'cache'}"], tmp_path / "run")
    got = _ran(folder)
    assert got["status"] == "completed" and got["models"] == {"selfie"}
    assert got["ok"] > 10
    # the GPU delegate takes 83% of the ops; the rest fall back to the CPU
    assert got["subgraphs"] > 1


def test_a_trained_model_is_sliced_and_runs_on_the_host(tmp_path: Path) -> None:
    folder = run(["device=host", "scenario=single", f"scenario.models=[{ENTRY}]",
                  "run=[tflite,band]", "scenario.duration_s=0.3", "scenario.warmup_s=0",
                  "seed.count=1", "plots=false", f"zoo_cache={tmp_path / 'cache'}"],
                 tmp_path / "run")
    got = _ran(folder)
    assert got["status"] == "completed" and got["models"] == {"selfie"}
    # vanilla TFLite on the core whose kernels run the custom op, and Band
    assert got["ok"] > 0 and got["baselines"] == {"tflite", "band"}
    # Band profiled the model cut into slices, the custom op's among them (XNNPACK shapes)
    slices = list((tmp_path / "cache" / "slices").rglob("*.tflite"))
    assert len(slices) > 2


def custom_op_model(path: Path, op: str) -> Path:
    """One float input, one custom op ``op`` (no kernel anywhere), one output."""
    tensors = []
    for name in ("in", "out"):
        t = s.TensorT()
        t.shape, t.type, t.name, t.buffer = [1, 4], s.TensorType.FLOAT32, name, 0
        tensors.append(t)
    code = s.OperatorCodeT()
    code.builtinCode = code.deprecatedBuiltinCode = s.BuiltinOperator.CUSTOM
    code.customCode, code.version = op, 1
    operator = s.OperatorT()
    operator.opcodeIndex, operator.inputs, operator.outputs = 0, [0], [1]
    operator.customOptions = np.zeros(0, np.uint8)
    sub = s.SubGraphT()
    sub.tensors, sub.operators, sub.inputs, sub.outputs = tensors, [operator], [0], [1]
    model = s.ModelT()
    model.version, model.subgraphs, model.buffers = 3, [sub], [s.BufferT()]
    model.operatorCodes = [code]
    path.write_bytes(bytes(flatbuffer_utils.convert_object_to_bytearray(model)))
    return path


@pytest.mark.parametrize("files", [False, True], ids=["twin", "host"])
def test_a_custom_op_no_kernel_provides_is_refused_with_its_name_and_path(
    tmp_path: Path, files: bool
) -> None:
    model = custom_op_model(tmp_path / "lmk.tflite", "Landmarks2TransformMatrix")
    with pytest.raises(UserError) as refused:
        load_models("single", [str(model)], files, tmp_path / "cache")
    assert "Landmarks2TransformMatrix" in str(refused.value) and str(model) in str(refused.value)
    assert not (tmp_path / "cache" / "profiles").exists()  # nothing cached for it
