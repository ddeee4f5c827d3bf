"""The ``harness`` console script and the commands that explain and manage runs.

``harness`` with ``key=value`` overrides is ``python -m harness`` (a Hydra app); its first word
may instead name a command (:mod:`harness.cli.main`): ``list``, ``runs``, ``report``,
``compare`` and the other tools. ``eval "$(harness completion bash)"`` completes both
(:mod:`harness.cli.complete`). Each command is a small module here; the run itself stays in
:mod:`harness.experiment`, the readers of run folders in :mod:`harness.reporting`.
"""
