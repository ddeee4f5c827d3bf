"""How the ``host`` device keys and names a slice: a set of ops of one model on one processor.

The device builds one interpreter per distinct slice, and profiles each once, whatever
subgraphs of whatever plans ask for it; so it keys runners and profiles by
:data:`SliceKey` ``(model, op set, processor)`` (:func:`slice_key` of a subgraph), not by the
subgraph. Errors and warnings name a slice by :func:`describe_slice`, with its op set written
as ranges (:func:`harness.seams.plan.op_ranges`).
"""

from __future__ import annotations

from harness.seams.plan import Subgraph, op_ranges

#: a slice on a processor: (model, op set, processor)
SliceKey = tuple[str, frozenset[int], str]


def slice_key(subgraph: Subgraph) -> SliceKey:
    """The slice a subgraph runs."""
    return (subgraph.model, subgraph.ops, subgraph.processor)


def describe_slice(key: SliceKey) -> str:
    """``slice of model 'm' ops 0-2,5 on processor 'p'``."""
    model, ops, proc = key
    return f"slice of model {model!r} ops {op_ranges(ops)} on processor {proc!r}"

