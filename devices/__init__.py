"""Devices: run subgraphs on processors and report completions and sensor readings.

One protocol (:class:`devices.base.Device`), several backends: ``twin`` (a calibrated SimPy
model of a phone), ``host`` (real LiteRT on this machine's cores) and ``adb`` (a real phone).
Each backend keeps its heavy imports inside its own subpackage.
"""
