"""The composition root: the one place that names concrete devices and policies.

* :mod:`~harness.experiment.components` — config nodes to devices and policies (``_target_``)
  and the registration of every built-in schema;
* :mod:`~harness.experiment.models` — the scenario's models: graph profiles or ``.tflite``;
* :mod:`~harness.experiment.baseline` — one baseline on one device: plan, load, profile, run;
* :mod:`~harness.experiment.slo` — the SLO budgets (vanilla TFLite alone as the base);
* :mod:`~harness.experiment.session` — every baseline of a run into one results folder,
  then the report.
"""
