"""The ``harness`` console script and the commands that explain and manage runs.

``harness`` with ``key=value`` overrides is ``python -m harness`` (a Hydra app, so Hydra's shell
completion works for it: ``eval "$(harness -sc install=bash)"``); its first word may instead
name a command (:mod:`harness.cli.main`): ``list``, ``runs``, ``report``, ``compare`` and the
other tools. Each command is a small module here; the run itself stays in
:mod:`harness.experiment`, the readers of run folders in :mod:`harness.reporting`.
"""
