"""A reproducible harness for multi-DNN inference on heterogeneous processors.

Three roles with narrow seams: the harness (configs, traffic, the clock, recording, reports),
the policies (``baselines/``, ``adms/``: analysis of models into subgraphs and scheduling
decisions) and the devices (``devices/``: running subgraphs and reporting completions and
sensor readings). Inside ``harness/``:

* the modules at the top are the commands (``python -m harness``, ``harness.analyze``,
  ``harness.compare``, ``harness.zoo``);
* the folders are the concepts: :mod:`~harness.seams` (the floor every role codes against),
  :mod:`~harness.config`, :mod:`~harness.models`, :mod:`~harness.runtime`,
  :mod:`~harness.experiment` (the composition root, the one place that names concrete
  devices and policies) and :mod:`~harness.reporting`.

``docs/concepts.md`` is the glossary.
"""

__version__ = "0.1.0"

from harness import native as _native

# before any compiled module is imported (see harness.native): the packages adms, baselines
# and devices import harness first for the same reason
_native.install()
