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
from harness.seams.device import Device, DeviceClass, DeviceContext
from harness.seams.errors import UserError
from harness.seams.policy import Policy, PolicyClass, PolicyContext


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


def device_class(node: Any) -> DeviceClass:
    cls: DeviceClass = component_class(node, "device")
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
    cls: PolicyClass = component_class(baselines[name], f"baseline {name!r}")
    return cls


def resolve(cfg: RunConf) -> RunConf:
    """The run with its device and every baseline typed by their classes' schemas, and every
    baseline named in ``run`` (directly or through a group) present: all checked before
    anything runs.

    A device class may also check the run before it starts and fill in what only its
    hardware knows, with a classmethod ``prepare_run(conf, run, baselines, dry_run) -> conf``
    (a phone refuses baselines it cannot run and names itself after its probed model). A
    policy class may refuse a device kind with a classmethod ``check_device(name, kind)``
    (``threads`` runs only on the host)."""
    cls = device_class(cfg.device)
    device = typed(cfg.device, cls)
    baselines = {name: typed(node, policy_class(name, cfg.baselines))
                 for name, node in cfg.baselines.items()}
    resolved = dataclasses.replace(cfg, device=device, baselines=baselines)
    for name in baselines_to_run(resolved):
        check = getattr(policy_class(name, baselines), "check_device", None)
        if callable(check):
            check(name, cls.kind)
    prepare = getattr(cls, "prepare_run", None)
    if callable(prepare):
        device = prepare(device, baselines_to_run(resolved), baselines, cfg.dry_run)
        resolved = dataclasses.replace(resolved, device=device)
    return resolved


def baselines_to_run(cfg: RunConf) -> list[str]:
    """``run`` with its groups expanded, each baseline once, in order."""
    names: list[str] = []
    for name in cfg.run:
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
