"""``python -m harness.farm``: the nightly device farm.

An inventory (``conf/farm/inventory/*.yaml``) names phones by serial and twins; the farm's
matrix is device × scenario × baseline × seed, one *cell* per combination, each one
``python -m harness`` run (:func:`harness.experiment.session.run`) into a dated results tree,
``results/farm/<YYYY-MM-DD>/<device>/<scenario>/<baseline>/seed<k>/``. The modules:

* :mod:`.config`: the schemas; :mod:`.plan`: the cells of a night (``plan.json``);
* :mod:`.cell`: one cell as a Hydra job (``python -m harness.farm.cell -m cell=0,1,…``), so
  that Hydra's launchers run the matrix: ``joblib`` on one host, ``submitit_slurm`` across
  farm hosts (``submitit_local`` has its shape and runs in the tests); a phone is held by one
  job at a time through a per-serial file lock (:mod:`.lock`); a failing cell writes its
  error and the sweep goes on;
* :mod:`.night`: every cell's outcome, the comparison with the previous night through
  :mod:`harness.reporting.compare` (per-metric thresholds), ``report.md`` with plots;
* :mod:`.__main__`: the command: plan, launch, collect, compare, report, exit code.
"""
