"""``python -m harness.validate``: a twin of this machine, checked against the machine.

Steps (each its own module):

1. :mod:`.measure`: the host measured from single-model runs only, by the procedure a phone's
   calibration uses (:mod:`harness.calibrate`): every slice of the scenario's models that
   Band's analyzer cuts at minimum size 1, alone on its processor (the host's profile, from
   its profile cache), and the copy of its inputs; each model alone as a chain of subgraphs
   for the runtime's overhead per subgraph; the memory bandwidth; the profiles' spread;
2. :mod:`.twin`: the twin's device YAML (:class:`devices.host.twin.HostTwinDevice`), every
   measured constant marked ``[M]``;
3. :mod:`.runs`: every row of the scenario on the host and on the twin, same seeds (runs with
   the same arguments are reused);
4. :mod:`.compare` and :mod:`.report`: the twin's error per row (FPS and mean latency, paired
   95% intervals) and whether the rows' order agrees, in ``validation.md``.

The multi-model runs never feed the twin: they are what it is checked against.
"""
