"""Configuration: the run's schemas (:mod:`~harness.config.schema`) and the one way every
entry point composes ``conf/`` with Hydra (:mod:`~harness.config.compose`).

Components (devices, baselines) keep their own schemas beside their code and register them
with Hydra's ConfigStore; the composition root (:mod:`harness.experiment.components`)
registers them all before composing.
"""

from pathlib import Path

#: the YAML configs: ``conf/`` beside the ``harness`` package (in a checkout and when
#: installed, where ``conf`` is a package of its own); found by path, so that a ``conf/``
#: folder in the user's working directory cannot shadow it. Defined here, where reading it
#: imports nothing heavy (tab completion reads ``conf/`` without Hydra)
CONF_DIR = Path(__file__).resolve().parents[2] / "conf"
