"""Every table and figure of the ADMS paper, regenerated from run folders into one report.

``python -m harness.paper [device=...] [mode=fast|full]`` (:mod:`harness.paper.build`):
the runs each artifact needs (:mod:`.plan`, :mod:`.runner`), one notebook per artifact
(``notebooks/``, using :mod:`.nb`), executed (:mod:`.execute`), and the report
(:mod:`harness.reporting.html`).
"""
