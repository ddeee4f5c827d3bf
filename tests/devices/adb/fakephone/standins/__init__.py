"""Stand-ins for the phone's tools (FAKES that speak the real interfaces): ``benchmark_model``,
``band_benchmark``, and a Monsoon driver package (:mod:`.monsoon`)."""
