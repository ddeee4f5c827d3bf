"""The model zoo: registry, configs and committed graph profiles (no TensorFlow needed),
plus one build test for the ``zoo`` extra."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from omegaconf import DictConfig, OmegaConf

from harness.config.compose import to_object
from harness.config.schema import ModelConf
from harness.models import zoo
from harness.seams.errors import UserError
from tests.fixtures.paths import REPO

CONF_MODEL = REPO / "conf" / "model"
NAMES = zoo.names()


def test_registry_has_the_papers_models() -> None:
    assert len(NAMES) == 13
    assert {"mobilenet_v1", "mobilenet_v2", "east", "yolov3", "icn_quant", "deeplabv3"} <= set(
        NAMES
    )
    assert zoo.MODELS["mobilenet_v1"].paper_ops == 31
    assert zoo.MODELS["deeplabv3"].paper_ops == 112


@pytest.mark.parametrize("name", NAMES)
def test_conf_model_yaml_matches_registry(name: str) -> None:
    raw = OmegaConf.load(CONF_MODEL / f"{name}.yaml")
    assert isinstance(raw, DictConfig)
    conf = to_object(raw, ModelConf)
    model = zoo.MODELS[name]
    assert conf.name == name
    assert tuple(conf.input_shape) == model.input_shape
    assert conf.quantized == model.quantized
    assert conf.paper_ops == model.paper_ops
    assert conf.path is None
    assert conf.description == model.description


@pytest.mark.parametrize("name", NAMES)
def test_committed_profile_loads(name: str) -> None:
    graph = zoo.load_graph(name)
    assert graph.name == name
    assert graph.num_ops > 0
    assert graph.meta["builder"] == zoo.MODELS[name].builder
    assert {"seed", "tensorflow", "keras"} <= set(graph.meta)
    shape = graph.tensors[graph.inputs[0]].shape
    assert tuple(shape) == (1, *zoo.MODELS[name].input_shape)


CLAIMING = [m.name for m in zoo.MODELS.values() if m.matches_paper]


@pytest.mark.parametrize("name", CLAIMING)
def test_op_count_honours_the_paper_claim(name: str) -> None:
    model = zoo.MODELS[name]
    assert model.paper_ops is not None
    dev = zoo.deviation(model, zoo.load_graph(name).num_ops)
    assert dev is not None and abs(dev) <= zoo.PAPER_TOLERANCE


def test_models_with_a_paper_count_claim_to_match_it() -> None:
    unclaimed = [m.name for m in zoo.MODELS.values() if m.paper_ops and not m.matches_paper]
    assert unclaimed == []


def test_unknown_name_is_a_user_error() -> None:
    for call in (zoo.load_graph, zoo.profile_path, zoo.tflite_path, zoo.get):
        with pytest.raises(UserError, match="known models: mobilenet_v1"):
            call("resnet1000")


def test_cli_unknown_name_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    from harness.models.zoo.__main__ import main

    with pytest.raises(SystemExit) as exc:
        main(["build", "mobilenet_v1", "resnet1000"])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: unknown zoo model 'resnet1000'") and "\n" not in err


def test_cli_list_prints_every_model(capsys: pytest.CaptureFixture[str]) -> None:
    from harness.models.zoo.__main__ import main

    main(["list"])
    out = capsys.readouterr().out
    for name in NAMES:
        assert name in out


def test_tflite_path_is_in_the_cache(tmp_path: Path) -> None:
    assert zoo.tflite_path("yolov3", tmp_path) == tmp_path / "yolov3.tflite"


def test_keras_build_without_tensorflow_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "tensorflow", None)
    with pytest.raises(UserError, match=r"pip install -e '\.\[zoo\]'"):
        zoo.build_keras("mobilenet_v1", tmp_path)
    assert not (tmp_path / "mobilenet_v1.tflite").exists()


def test_cli_keras_build_without_tensorflow_exits_2(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from harness.models.zoo.__main__ import main

    monkeypatch.setitem(sys.modules, "tensorflow", None)
    with pytest.raises(SystemExit) as exc:
        main(["build", "--keras", "mobilenet_v1", "--cache", str(tmp_path)])
    assert exc.value.code == 2
    assert "zoo extra" in capsys.readouterr().err


def test_icn_quant_is_int8() -> None:
    graph = zoo.load_graph("icn_quant")
    assert zoo.MODELS["icn_quant"].quantized
    assert graph.is_quantized
    assert graph.tensors[graph.inputs[0]].dtype == "int8"
    conv = [op for op in graph.ops if op.kind == "CONV_2D"]
    assert conv and all(graph.tensors[op.inputs[1]].dtype == "int8" for op in conv)


def test_float_models_are_not_quantized() -> None:
    for name in NAMES:
        if not zoo.MODELS[name].quantized:
            assert not zoo.load_graph(name).is_quantized, name


def test_op_mix_is_readable() -> None:
    mix = zoo.op_mix(zoo.load_graph("mobilenet_v1"))
    assert mix.startswith("CONV_2D 48%, DEPTHWISE 42%")


def test_importing_the_zoo_does_not_import_tensorflow() -> None:
    import subprocess

    code = ("import sys, harness.zoo, harness.models.zoo.__main__; "
            "print('tensorflow' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.zoo
def test_keras_build_of_mobilenet_v1_matches_committed_profile(tmp_path: Path) -> None:
    pytest.importorskip("tensorflow")
    path = zoo.build_keras("mobilenet_v1", tmp_path, seed=0)
    assert path == tmp_path / "mobilenet_v1.tflite" and path.is_file()
    graph, recipe = zoo.make_profile("mobilenet_v1", path, seed=0)
    assert graph.num_ops == 31
    committed = zoo.load_graph("mobilenet_v1")
    assert [op.kind for op in graph.ops] == [op.kind for op in committed.ops]
    assert graph.meta["seed"] == 0 and graph.meta["builder"] == committed.meta["builder"]
    assert recipe == zoo.load_recipe("mobilenet_v1")
