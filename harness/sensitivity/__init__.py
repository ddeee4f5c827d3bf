"""Where the verdict turns: every estimated twin constant swept, one at a time.

A twin's constants marked [E] (estimated) or [U] (not found) in ``conf/device/*.yaml`` carry
a plausible range, written with its reason in ``conf/sensitivity.yaml``
(:mod:`.config`). The sweep (:mod:`.cells`, :mod:`.execute`) runs the configured rows (by
name) at the low and the high end of each range, every other constant at its default, on
each device and scenario and every seed; each cell's FPS per row is kept. From those
(:mod:`.analysis`):

* the ratios of the configured pairs (ADMS over Band, ADMS over TFLite), each a mean with a
  paired 95% interval over seeds, at every swept value;
* a tornado figure (:mod:`.figure`): how far each constant moves each ratio across its range;
* a crossover table: for a constant whose range carries a ratio across a verdict line (1, or
  the paper's stated ratio), the value at which it crosses, interpolated between the swept
  values (on a log scale where the range is).

Measured values of a constant (anchors, e.g. the decision cost measured on this machine) are
an optional input file and are marked on the figure.

    python -m harness.sensitivity                      # the whole sweep (conf/sensitivity.yaml)
    harness sensitivity seeds=2 'devices=[k50pro]' 'only=[scheduler_ns_per_op]'
"""
