"""The model zoo: the paper's DNNs, rebuilt with seeded random weights, and their graph profiles.

Each :class:`ZooModel` names a builder (``module:function`` under
:mod:`harness.models.zoo.builders`) that writes the model with Keras layers and converts it to
TFLite with a fixed batch of 1. Weights are random (``keras.utils.set_random_seed(seed)``): latency,
op mix and op support do not depend on trained values, and nothing has to be downloaded.

Two products per model:

* its JSON graph profile (:class:`~harness.seams.graph.ModelGraph`), committed as package data in
  ``harness/models/zoo/profiles/<name>.json``, so that simulated devices, analysis and tests need
  neither TensorFlow nor the ``.tflite`` file (:func:`load_graph`); with it, the model's recipe
  (:mod:`harness.models.zoo.recipe`);
* the ``.tflite`` file, in a cache directory (``.cache/zoo`` by default, never committed),
  written from the profile and recipe without TensorFlow (:func:`build`, ``python -m
  harness.zoo build``; :func:`ensure_built` on a device's first use): the same ops, options,
  tensors and weight sizes, other random weights. :func:`build_keras` (``build --keras``, the
  ``zoo`` extra: ``tensorflow-cpu``) is the exact rebuild, which also makes the profiles.

``paper_ops`` is the op count of the ADMS paper's Table III where it gives one;
``matches_paper`` says whether this build claims to be within :data:`PAPER_TOLERANCE` of it
(the tests hold it to the claim). Importing this module does not import TensorFlow.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.metadata
import importlib.util
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.seams.errors import UserError
from harness.seams.graph import ModelGraph
from harness.seams.progress import StartPhase, counted, no_phases, steps

if TYPE_CHECKING:
    from harness.models.zoo.recipe import Recipe

#: relative tolerance on the op count for models that claim to match the paper
PAPER_TOLERANCE = 0.15
#: where built ``.tflite`` files go unless told otherwise (git-ignored)
DEFAULT_CACHE = Path(".cache/zoo")
PROFILE_DIR = Path(__file__).resolve().parent / "profiles"
ZOO_EXTRA_HINT = "install the zoo extra: pip install -e '.[zoo]'"


@dataclass(frozen=True, slots=True)
class ZooModel:
    """One model of the zoo."""

    name: str
    #: what it is, and how it differs from the paper's model where it does
    description: str
    #: input shape without the batch (H, W, C)
    input_shape: tuple[int, int, int]
    #: ``module:function`` under ``harness.models.zoo.builders``; the function maps a seed to bytes
    builder: str
    #: 8-bit integer model
    quantized: bool = False
    #: op count of the paper's Table III, if it gives one
    paper_ops: int | None = None
    #: this build's op count is within PAPER_TOLERANCE of ``paper_ops``
    matches_paper: bool = False


def _m(name: str, builder: str, shape: tuple[int, int, int], description: str,
       **kwargs: Any) -> ZooModel:
    return ZooModel(name, " ".join(description.split()), shape,
                    f"harness.models.zoo.builders.{builder}", **kwargs)


_MODELS = (
    _m("mobilenet_v1", "keras_apps:mobilenet_v1", (224, 224, 3), """MobileNetV1 (Howard et al.
       2017), width 1.0, 1000 classes, keras.applications. 31 ops, as the paper's Table III.""",
       paper_ops=31, matches_paper=True),
    _m("mobilenet_v2", "keras_apps:mobilenet_v2", (224, 224, 3), """MobileNetV2 (Sandler et al.
       2018), width 1.0, 1000 classes, keras.applications. 65 ops against the paper's 66 (Table
       I's shares imply 68 nodes, 2 of them "DLG").""", paper_ops=66, matches_paper=True),
    _m("efficientnet_b4", "keras_apps:efficientnet_b4", (380, 380, 3), """EfficientNet-B4 (Tan &
       Le 2019), keras.applications, with its rescaling/normalisation layers and
       squeeze-and-excitation (~476 ops). Table I's EfficientNet4 mix (about 122 nodes) looks
       like EfficientNet-Lite4, which has no squeeze-and-excitation; the paper gives no op
       count."""),
    _m("efficientnet_b0", "keras_apps:efficientnet_b0", (224, 224, 3), """EfficientNet-B0 (Tan &
       Le 2019), keras.applications, with squeeze-and-excitation. Not in the paper's tables."""),
    _m("inception_v4", "inception_v4:build", (299, 299, 3), """Inception-v4 (Szegedy et al.
       2016): stem, 4 × Inception-A, Reduction-A, 7 × Inception-B, Reduction-B, 3 ×
       Inception-C, 1000 classes; conv-BN-ReLU fused. The paper gives no op count."""),
    _m("arcface_resnet50", "arcface:resnet50", (112, 112, 3), """ArcFace IR-50 (Deng et al.
       2019): improved residual units (BN-conv-BN-PReLU-conv-BN; 3/4/14/3 units), output block
       BN-dropout-FC-BN, 512-d embedding. Pre-activation BNs stay as MUL/ADD and PReLU as PRELU
       ops. The paper gives no op count."""),
    _m("arcface_mobilenet", "arcface:mobilenet", (112, 112, 3), """MobileFaceNet (Chen et al.
       2018) for ArcFace, 128-d embedding. ReLU instead of PReLU, so activations fuse into the
       convolutions as in Table I's ArcFace mix (72 nodes: 17 depthwise, ~35 conv, ~11 add);
       this build: 63 ops, 17 depthwise, 33 conv, 12 add. No Table III count."""),
    _m("retinaface", "retinaface:build", (640, 640, 3), """RetinaFace with MobileNet-0.25 (Deng
       et al. 2020; Pytorch_Retinaface layout) at 640×640: LeakyReLU(0.1) backbone, 3-level
       FPN, SSH context modules, class/box/landmark heads (2 anchors, 16800 priors), softmax
       scores. The paper gives no op count."""),
    _m("deeplabv3", "deeplabv3:build", (257, 257, 3), """DeepLabV3 (Chen et al. 2017) with a
       MobileNetV2 backbone at 257×257, output stride 8, ASPP (1×1, atrous 12/24/36, image
       pooling), bilinear upsampling to 21-class logits. Atrous convolutions are
       SPACE_TO_BATCH_ND/conv/BATCH_TO_SPACE_ND as in TensorFlow's DeepLab graphs. 102 ops
       against the paper's 112 (−9%; Table I counts 134 nodes for it).""",
       paper_ops=112, matches_paper=True),
    _m("yolov3", "yolov3:build", (416, 416, 3), """YOLOv3 (Redmon & Farhadi 2018) at 416×416:
       Darknet-53 (conv-BN-LeakyReLU, padded stride-2 convs), three heads with
       upsample/concat, and the reference box decoding (sigmoid/exp/anchors) to boxes (1, 10647,
       4) and scores (1, 10647, 80). 220 ops against the paper's 232 (−5%).""",
       paper_ops=232, matches_paper=True),
    _m("east", "east:build", (512, 512, 3), """EAST text detector (Zhou et al. 2017) at
       512×512 with the ResNet-50 extractor of the reference implementation: mean subtraction,
       U-shaped merge (bilinear unpool, concat, 1×1 + 3×3 convs), score and RBOX geometry
       heads. 96 ops against the paper's 108 (−11%); its 63 CONV_2D and 16 residual ADDs match
       Table I's East mix (63 and 16 of 113 nodes).""", paper_ops=108, matches_paper=True),
    _m("icn_quant", "icn_quant:build", (224, 224, 3), """ICN_quant: a full-integer int8 image
       classifier (int8 input and output) built to the paper's description of it — 77 ops
       (Table III) and Table I's ICN mix (27% ADD, 57% CONV_2D, 2% DEPTHWISE): a residual
       network with a depthwise-separable stem, 4/6/8/4 basic units and a softmax head,
       post-training quantized with a seeded random representative dataset. 76 ops.""",
       quantized=True, paper_ops=77, matches_paper=True),
    _m("hand_landmark", "hand_landmark:build", (224, 224, 3), """A MediaPipe-like hand-landmark
       regressor (Zhang et al. 2020) at 224×224: MobileNetV2-style residual units (every unit
       adds, as in Table I's HandLmk mix) to 7×7, heads for 21×3 landmarks, hand presence,
       handedness and 21×3 world landmarks. The paper gives no op count."""),
)

MODELS: dict[str, ZooModel] = {m.name: m for m in _MODELS}


def names() -> list[str]:
    """The zoo's model names, in registry order."""
    return list(MODELS)


def get(name: str) -> ZooModel:
    """The registry entry for ``name``; an unknown name is a :class:`UserError`."""
    try:
        return MODELS[name]
    except KeyError:
        raise UserError(
            f"unknown zoo model {name!r}; known models: {', '.join(MODELS)}"
        ) from None


def profile_path(name: str) -> Path:
    """The committed JSON graph profile of ``name`` (package data)."""
    return PROFILE_DIR / f"{get(name).name}.json"


def load_graph(name: str) -> ModelGraph:
    """The committed graph profile of ``name`` as a :class:`ModelGraph` (no TensorFlow)."""
    return ModelGraph.load(profile_path(name))


def tflite_path(name: str, cache_dir: str | Path = DEFAULT_CACHE) -> Path:
    """Where :func:`build` puts ``name``'s ``.tflite``: ``<cache_dir>/<name>.tflite``."""
    return Path(cache_dir) / f"{get(name).name}.tflite"


def require_tensorflow() -> None:
    """Raise a :class:`UserError` with the install hint when TensorFlow is missing."""
    try:
        found = importlib.util.find_spec("tensorflow") is not None
    except (ImportError, ValueError):  # e.g. sys.modules["tensorflow"] is None
        found = False
    if not found:
        raise UserError(f"building zoo models needs TensorFlow; {ZOO_EXTRA_HINT}")


def load_recipe(name: str) -> Recipe:
    """The recipe (:mod:`harness.models.zoo.recipe`) in ``name``'s committed profile."""
    from harness.models.zoo.recipe import Recipe

    path = profile_path(name)
    data = json.loads(path.read_text())
    if "tflite" not in data:
        raise UserError(f"{str(path)!r} has no recipe; rebuild it with "
                        f"python -m harness.zoo build --keras {name}")
    return Recipe.from_dict(data["tflite"])


def build(name: str, cache_dir: str | Path = DEFAULT_CACHE, seed: int = 0) -> Path:
    """Write ``name``'s ``.tflite`` from its committed profile (no TensorFlow), constants drawn
    from ``seed``, into the cache; returns its path."""
    from harness.models.zoo.writer import write

    data = write(load_graph(name), load_recipe(name), seed)
    return _store(name, cache_dir, data)


def ensure_built(names: Sequence[str], cache_dir: str | Path = DEFAULT_CACHE,
                 phases: StartPhase = no_phases) -> dict[str, Path]:
    """Each model's cached ``.tflite``, written from its profile first where it is missing,
    as a phase of ``phases`` ("writing 3 zoo models to CACHE", a step per model; a device
    that runs real files calls this on first use)."""
    missing = [n for n in names if not tflite_path(n, cache_dir).is_file()]
    if missing:
        writing = f"writing {counted(len(missing), 'zoo model')} to {cache_dir}"
        for name in steps(phases, writing, missing):
            build(name, cache_dir)
    return {n: tflite_path(n, cache_dir) for n in names}


def build_keras(name: str, cache_dir: str | Path = DEFAULT_CACHE, seed: int = 0) -> Path:
    """Build ``name`` with its Keras builder, random weights from ``seed``, and write its
    ``.tflite`` into the cache (the exact rebuild; imports TensorFlow lazily)."""
    model = get(name)
    require_tensorflow()
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    module_name, func_name = model.builder.split(":")
    func = getattr(importlib.import_module(module_name), func_name)
    return _store(name, cache_dir, func(seed))


def _store(name: str, cache_dir: str | Path, data: bytes) -> Path:
    """Write ``data`` as ``name``'s cached file, atomically (a reader never sees half)."""
    path = tflite_path(name, cache_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}")
    partial.write_bytes(data)
    partial.replace(path)
    return path


def make_profile(name: str, tflite: str | Path, seed: int = 0) -> tuple[ModelGraph, Recipe]:
    """Read a Keras-built ``.tflite`` into a graph profile whose ``meta`` records how it was
    made, and its recipe."""
    from harness.models.tflite_io import load_model_object, read_tflite
    from harness.models.zoo.recipe import recipe_of

    model = get(name)
    graph = read_tflite(tflite, model.name)
    meta = {
        **dict(graph.meta),
        "builder": model.builder,
        "seed": seed,
        "tensorflow": _version("tensorflow", "tensorflow-cpu"),
        "keras": _version("keras"),
        "input_shape": list(model.input_shape),
    }
    return dataclasses.replace(graph, meta=meta), recipe_of(load_model_object(tflite))


def save_profile(graph: ModelGraph, recipe: Recipe, path: str | Path) -> Path:
    """Write a profile with its recipe under ``"tflite"`` (as :meth:`ModelGraph.save`)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {**graph.to_dict(), "tflite": recipe.to_dict()}
    path.write_text(json.dumps(data, separators=(",", ":")) + "\n")
    return path


def _version(*distributions: str) -> str:
    for dist in distributions:
        try:
            return importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            continue
    return "unknown"


def deviation(model: ZooModel, ops: int) -> float | None:
    """Relative deviation of ``ops`` from the paper's count, or None when it gives none."""
    if model.paper_ops is None:
        return None
    return (ops - model.paper_ops) / model.paper_ops


def op_mix(graph: ModelGraph, top: int = 3) -> str:
    """The most frequent op kinds with their share, e.g. ``CONV_2D 52%, DEPTHWISE 25%``."""
    total = max(graph.num_ops, 1)
    parts = [
        f"{_short(kind)} {100 * count / total:.0f}%"
        for kind, count in list(graph.op_kind_counts().items())[:top]
    ]
    return ", ".join(parts)


def _short(kind: str) -> str:
    return {"DEPTHWISE_CONV_2D": "DEPTHWISE"}.get(kind, kind)
