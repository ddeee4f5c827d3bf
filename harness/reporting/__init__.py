"""Reporting: everything derived from a run folder's rows, never from printed text.

* :mod:`~harness.reporting.store` — the run folder: journals as the run goes
  (:mod:`~harness.reporting.journal`), parquet tables (:mod:`~harness.reporting.parquet`),
  the manifest, and reading them back;
* :mod:`~harness.reporting.metrics` — statistics from the rows (FPS, latency, SLO, power),
  built from the definitions of :mod:`~harness.reporting.outcomes` (measured span, request
  outcomes), :mod:`~harness.reporting.frames` and :mod:`~harness.reporting.power`;
* :mod:`~harness.reporting.report` — the comparison table beside the paper's numbers, opened
  by the verdicts (:mod:`~harness.reporting.verdict`), fitted to the terminal
  (:mod:`~harness.reporting.tables`), rows named as :mod:`~harness.reporting.names` says;
* :mod:`~harness.reporting.plots`, :mod:`~harness.reporting.trace` — figures and a Perfetto
  timeline;
* :mod:`~harness.reporting.compare` — runs against each other (nightly regressions);
* :mod:`~harness.reporting.paper` — the paper's reference numbers.
"""
