"""A second calibration of the K50 Pro twin: its fragmentation constants fitted to the
paper's Table V.

Table V gives five models' single-model latencies on the Redmi K50 Pro under Band and ADMS
(with their subgraph counts); Table II gives MobileNetV1 alone on each processor. The
``k50pro`` twin is calibrated to Table II (each accelerator's efficiency) and prices
fragmentation with estimated constants. ``k50pro_table5`` keeps everything of ``k50pro`` and
fits those constants (the costs a subgraph pays for being one: the planner's wake-up per
dispatched subgraph, the fixed cost of moving a tensor between processors, the bookkeeping of
a copy between interpreters) to Table V's ten latencies, by least squares on relative error,
non-negative, with the twin run deterministically (:mod:`.fit`). Single-model data only: no
multi-model result is looked at.

``python -m harness.table5`` runs the fit and prints the fitted values and each model's
residual (``docs/reference/table5-calibration.md``).
"""
