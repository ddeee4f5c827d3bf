"""Models: reading ``.tflite`` files into graphs (:mod:`~harness.models.tflite_io`), costing
their ops (:mod:`~harness.models.costs`) and the model zoo (:mod:`~harness.models.zoo`)."""
