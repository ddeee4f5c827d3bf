"""Configuration: the run's schemas (:mod:`~harness.config.schema`) and the one way every
entry point composes ``conf/`` with Hydra (:mod:`~harness.config.compose`).

Components (devices, baselines) keep their own schemas beside their code and register them
with Hydra's ConfigStore; the composition root (:mod:`harness.experiment.components`)
registers them all before composing.
"""
