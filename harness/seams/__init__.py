"""The seams: the small floor every role of the harness codes against.

Nothing here imports anything above it (only the standard library, numpy and SimPy), so a policy,
a device backend and the harness can each depend on this package and on nothing of each
other's:

* :mod:`~harness.seams.graph` — a model as ops and tensors (:class:`ModelGraph`);
* :mod:`~harness.seams.plan` — processors and how a model is cut into subgraphs
  (:class:`Processor`, :class:`Subgraph`, :class:`ModelPlan`);
* :mod:`~harness.seams.records` — what flows at run time: requests, completions, sensor
  samples, what a device says of itself;
* :mod:`~harness.seams.view` — what a scheduler sees (:class:`SchedulerView`) and answers
  (:class:`Decision`);
* :mod:`~harness.seams.policy` and :mod:`~harness.seams.device` — the two protocols, with the
  context each component is built from;
* :mod:`~harness.seams.errors` — bad input (:class:`UserError`) and how commands report it;
* :mod:`~harness.seams.clocks` — the two clocks a run goes by (simulated, wall);
* :mod:`~harness.seams.rows` — the run folder's tables, each row schema declared once;
* :mod:`~harness.seams.units` — time is integer nanoseconds everywhere.
"""
