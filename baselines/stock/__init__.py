"""The stock tools of a phone as cross-check baselines (``tflite_stock``, ``band_stock``).

On a phone, vanilla TFLite, Band and ADMS all run in the harness's native runner, with the
same executor, clocks and logs. Beside them, the tools their authors ship stay as
cross-checks: the stock TFLite ``benchmark_model`` (one process per model on its
processor's delegate) and Band's own ``band_benchmark``. Only the ``adb`` device runs them
(:mod:`devices.adb.vanilla`, :mod:`devices.adb.band_run`); their configs are vanilla
TFLite's and Band's schemas (:mod:`.policy` names the classes their ``_target_`` names).
"""

from baselines.stock.policy import StockBand, StockTflite

__all__ = ["StockBand", "StockTflite"]
