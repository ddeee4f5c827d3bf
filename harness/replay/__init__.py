"""Decision traces: what a policy saw and answered, call by call, and their replay.

A :class:`~harness.replay.record.Recorder` wraps any policy and writes a trace (JSON lines,
:mod:`harness.replay.trace`, format in ``docs/decision-traces.md``): a header with everything
the policy's decisions read besides the calls (its config, the processors, the plans, the
profile, facts it derived when prepared), then every ``schedule`` call with the view as the
policy read it and the decision it answered, and every ``observe`` call with its completion.
:func:`~harness.replay.replay.replay` rebuilds the policy from the header, feeds it the calls
in order and names the first decision that differs: a trace that replays clean is complete.
The native runner's decision library (``runner/src/policies/``) replays the same traces.
"""
