"""Components from config: the one place that turns a config node into a device or a policy.

A device or baseline config node names its class in ``_target_`` (Hydra's convention); the
class carries its schema as ``Conf`` and builds itself (``open`` for a device,
``from_config`` for a policy). So adding a device or a scheduler is one module (the class
and its schema) plus one YAML that names it; nothing here changes.

Built-in components register their schemas with Hydra's ConfigStore (:func:`register`), so
Hydra rejects a typo inside their YAML at composition. A component outside this list is
validated against its ``Conf`` here, before anything runs.
"""

from __future__ import annotations

import dataclasses
from dataclasses import is_dataclass
from typing import Any

from hydra.utils import get_class
from omegaconf import DictConfig, OmegaConf

from harness.config.compose import to_object
from harness.config.schema import RunConf
from harness.seams.device import Device, DeviceClass, DeviceContext, DeviceDefaults, DeviceKind
from harness.seams.errors import UserError
from harness.seams.policy import Policy, PolicyClass, PolicyContext, PolicyDefaults


def register() -> None:
    """Every built-in schema: the run's, each device backend's and each baseline's."""
    import adms.config
    import baselines.band.config
    import baselines.tflite
    import baselines.threads
    import devices.adb.config
    import devices.host.config
    import devices.twin.config
    from harness.config import schema

    for module in (schema, devices.twin.config, devices.host.config, devices.adb.config,
                   baselines.tflite, baselines.band.config, baselines.threads, adms.config):
        module.register()


def target_of(node: Any, what: str) -> str:
    """The ``_target_`` of a config node (a dataclass, a mapping or a DictConfig)."""
    value = node.get("_target_") if isinstance(node, dict | DictConfig) else getattr(
        node, "_target_", None)
    if not isinstance(value, str) or not value:
        raise UserError(f"{what} names no class: give it a _target_ (e.g. "
                        f"_target_: devices.twin.TwinDevice)")
    return value


def component_class(node: Any, what: str) -> Any:
    """The class a node's ``_target_`` names (Hydra's ``get_class``)."""
    target = target_of(node, what)
    try:
        cls = get_class(target)
    except Exception as exc:  # Hydra wraps import errors of the target
        raise UserError(f"{what}: cannot import _target_ {target!r} ({exc})") from None
    if not isinstance(getattr(cls, "Conf", None), type):
        raise UserError(f"{what}: {target} has no Conf schema")
    return cls


def typed(node: Any, cls: Any) -> Any:
    """The node as an instance of the class's ``Conf`` (validated; typos are errors)."""
    if is_dataclass(node) and isinstance(node, cls.Conf):
        return node
    raw = OmegaConf.structured(node) if is_dataclass(node) else node
    return to_object(raw, cls.Conf)


#: the members a device class and a policy class must have (the optional ones' defaults are
#: :class:`~harness.seams.device.DeviceDefaults` and :class:`~harness.seams.policy.PolicyDefaults`)
DEVICE_MEMBERS = ("kind", "needs_model_files", "default_seeds", "open", "prepare_run")
POLICY_MEMBERS = ("runner", "from_config", "check_device")


def conforming(cls: Any, members: tuple[str, ...], defaults: type, what: str) -> Any:
    """``cls``, once it has every member of its protocol: a missing one is a UserError
    naming the class its default comes from."""
    missing = [m for m in members if not hasattr(cls, m)]
    if missing:
        raise UserError(f"{what}: {cls.__module__}.{cls.__qualname__} lacks "
                        f"{', '.join(missing)}; inherit {defaults.__module__}."
                        f"{defaults.__qualname__} for the defaults")
    return cls


def device_class(node: Any) -> DeviceClass:
    cls: DeviceClass = conforming(component_class(node, "device"), DEVICE_MEMBERS,
                                  DeviceDefaults, "device")
    if not isinstance(cls.kind, DeviceKind):
        raise UserError(f"device: {target_of(node, 'device')}.kind must be a "
                        f"harness.seams.device.DeviceKind (its word and meaning)")
    return cls


def open_device(node: Any, context: DeviceContext) -> Device:
    """The device a device config describes."""
    cls = device_class(node)
    device: Device = cls.open(typed(node, cls), context)
    return device


def policy_class(name: str, baselines: Any) -> PolicyClass:
    """The class of baseline ``name`` (a key of ``baselines``)."""
    if name not in baselines:
        allowed = ", ".join(baselines) or "none"
        raise UserError(f"unknown baseline {name!r}; allowed: {allowed} (a new one needs "
                        f"+baseline@baselines.{name}=<its config>)")
    what = f"baseline {name!r}"
    cls: PolicyClass = conforming(component_class(baselines[name], what), POLICY_MEMBERS,
                                  PolicyDefaults, what)
    return cls


def resolve(cfg: RunConf) -> RunConf:
    """The run with its device and every baseline typed by their classes' schemas, and every
    baseline named in ``run`` (directly or through a group) present: all checked before
    anything runs.

    Each baseline's class may refuse the device's kind (``check_device``: ``threads`` runs
    only on the host); then the device class checks the run and fills in what only its
    hardware knows (``prepare_run``: a phone refuses baselines it cannot run and names itself
    after its probed model). Both are members of the classes' protocols."""
    cls = device_class(cfg.device)
    device = typed(cfg.device, cls)
    baselines = {name: typed(node, policy_class(name, cfg.baselines))
                 for name, node in cfg.baselines.items()}
    resolved = dataclasses.replace(cfg, device=device, baselines=baselines)
    run = baselines_to_run(resolved)
    for name in run:
        policy_class(name, baselines).check_device(name, cls.kind.word)
    runners = {name: policy_class(name, baselines).runner for name in run}
    device = cls.prepare_run(device, run, runners, cfg.dry_run)
    return dataclasses.replace(resolved, device=device)


def baselines_to_run(cfg: RunConf) -> list[str]:
    """``run`` with its groups expanded, each baseline once, in order."""
    names: list[str] = []
    for i, name in enumerate(cfg.run):
        if not isinstance(name, str):
            raise UserError(f"run.{i}={name!r} is not a baseline name: give names, e.g. "
                            f"run=[tflite,band]")
        if name not in cfg.baselines and name not in cfg.groups:
            allowed = ", ".join([*cfg.baselines, *cfg.groups]) or "none"
            raise UserError(f"unknown baseline {name!r}; allowed: {allowed} (a new one needs "
                            f"+baseline@baselines.{name}=<its config>)")
        names += cfg.groups.get(name, [name]) if name not in cfg.baselines else [name]
    return list(dict.fromkeys(names))


def seed_list(cfg: RunConf) -> list[int]:
    """The repetitions' seeds: ``seed.count`` of them (0: the device's default) from
    ``seed.base``."""
    count = cfg.seed.count or device_class(cfg.device).default_seeds
    return [cfg.seed.base + i for i in range(count)]


def build_policy(name: str, baselines: Any, context: PolicyContext) -> Policy:
    """The policy of baseline ``name``, built from its config for ``context``."""
    cls = policy_class(name, baselines)
    policy: Policy = cls.from_config(typed(baselines[name], cls), context)
    return policy
