"""Calibrating a twin from a phone over adb: the slices measured alone and a heat-up trace
(:mod:`.profile`), and the twin fitted to them (:mod:`.fit`).

The command that composes them with the run's config, the twin's own runs and the held-out
check is the composition root's ``python -m harness.calibrate`` (:mod:`harness.calibrate`).
The phone's multi-model runs never feed the twin's constants (DESIGN.md: single-model
measurements only).
"""
