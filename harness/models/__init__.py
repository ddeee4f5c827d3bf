"""Models: reading ``.tflite`` files into graphs (:mod:`~harness.models.tflite_io`), costing
their ops (:mod:`~harness.models.costs`), the model zoo (:mod:`~harness.models.zoo`), and the
upper bound on frames per second their plans allow on a device's processors
(:mod:`~harness.models.bound`, over :mod:`~harness.models.plan_network`), which a policy may
plan by and every report stands beside its FPS."""
