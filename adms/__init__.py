"""ADMS, the system under study: its Model Analyzer (:mod:`.analyzer`: Band's procedure with a
window size per processor, chosen by :mod:`.tuner`), its Processor Monitor (:mod:`.monitor`)
and its priority Scheduler (:mod:`.scheduler`, over :mod:`.chains`), tied together by
:class:`~adms.policy.AdmsPolicy`; its config is :mod:`.config`."""

import harness  # noqa: F401  (first: it loads the compiled core, harness.native)
from adms.policy import AdmsPolicy

__all__ = ["AdmsPolicy"]
