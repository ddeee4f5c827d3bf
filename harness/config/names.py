"""Names that become paths are plain names.

A scenario's, a device's or a farm night's name becomes a folder name under the results tree
(``results/<device>/<time>_<scenario>/``, ``<results>/<night>/``). A plain name holds no
path separator, is not ``.`` or ``..`` and is not empty, so it cannot write outside that tree.
``conf/config.yaml`` passes the names it puts in the run folder's path through the ``plain``
resolver registered here; the farm checks its night names with :func:`plain_name`.
"""

from __future__ import annotations

from omegaconf import OmegaConf

from harness.seams.errors import UserError

#: characters a plain name may not hold
SEPARATORS = ("/", "\\", "\0")


def plain_name(key: str, value: str) -> str:
    """``value`` if it is a plain name, else :class:`UserError` naming ``key``."""
    if not value or value in (".", "..") or any(s in value for s in SEPARATORS):
        raise UserError(f"{key}={value!r} is not a plain name: it becomes a folder name, so it "
                        f"must be non-empty, not '.' or '..', and hold no '/' or '\\'")
    return value


def _resolve(key: str, value: object) -> str:
    """``${plain:key,value}``: Hydra reports a ValueError as the override's error."""
    try:
        return plain_name(key, str(value))
    except UserError as exc:
        raise ValueError(str(exc)) from None


def register() -> None:
    if not OmegaConf.has_resolver("plain"):
        OmegaConf.register_new_resolver("plain", _resolve)
