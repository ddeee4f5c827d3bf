"""The baselines ADMS is compared with: vanilla TFLite and Band (MobiSys'22, mrsnu/band)."""

import harness  # noqa: F401  (first: it loads the compiled core, harness.native)
