"""A Monsoon HVPM as a :class:`~devices.power.PowerMonitor`, through the vendor's package.

The ``monsoon`` package (module ``Monsoon``; FINDINGS.md): ``HVPM.Monsoon().setup_usb()``
connects over USB but, when no monitor is plugged in, *prints* "Unable to find device" and
returns without raising: :meth:`MonsoonMonitor.open` turns that into a UserError (and so
pyusb's ``NoBackendError``, raised instead on a machine without libusb). Sampling runs
in a thread of its own: ``SampleEngine.periodicStartSampling()`` puts the monitor in sample
mode, ``periodicCollectSamples(n)`` blocks until ``n`` more samples came and returns them as
``getSamples()`` does, six lists ``[time_s, main_mA, usb_mA, aux_mA, main_V, usb_V]`` (the
time in seconds since sampling started, although the CSV header says ms), and
``periodicStopSampling()`` ends it. Power is main current × main voltage. The time of a
sample on the run's clock is the host's wall clock read just before ``periodicStartSampling``
plus its ``time_s``, minus the run's time 0.

``driver`` names the package providing ``HVPM`` and ``sampleEngine`` (the vendor's
``Monsoon`` by default; tests name a drop-in with the same API).
"""

from __future__ import annotations

import contextlib
import importlib
import io
import threading
import time
from typing import Any

from devices.power import PowerSample
from harness.seams.errors import UserError

NOT_FOUND = "Unable to find device"
#: samples per periodicCollectSamples call (5000 Hz: 0.1 s)
BATCH = 500
#: the six lists of getSamples()
TIME, MAIN_MA, USB_MA, AUX_MA, MAIN_V, USB_V = range(6)


class MonsoonMonitor:
    """Samples a Monsoon HVPM in a thread; see the module docstring."""

    def __init__(self, driver: str = "Monsoon", serial: int | None = None,
                 voltage_v: float = 0.0) -> None:
        self.driver, self.serial, self.voltage_v = driver, serial, voltage_v
        self._samples: list[PowerSample] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None
        self.engine: Any = None

    def open(self) -> MonsoonMonitor:
        """Connect over USB; a UserError when no monitor answers."""
        hvpm, sample_engine = self._modules()
        monitor = hvpm.Monsoon()
        printed = io.StringIO()
        try:
            with contextlib.redirect_stdout(printed):
                monitor.setup_usb(self.serial)
        except Exception as exc:  # pyusb without a libusb backend raises NoBackendError
            raise UserError(f"the Monsoon cannot be reached over USB: {type(exc).__name__}: "
                            f"{exc} (install libusb-1.0, or set device.power.monitor=none)"
                            ) from None
        protocol = getattr(monitor, "Protocol", None)
        if NOT_FOUND in printed.getvalue() or getattr(protocol, "DEVICE", None) is None:
            which = f"serial {self.serial}" if self.serial else "any serial"
            raise UserError(f"no Monsoon HVPM found over USB ({which}; setup_usb said "
                            f"{printed.getvalue().strip() or 'nothing'!r}): check the cable "
                            f"and USB permissions, or set device.power.monitor=none")
        if self.voltage_v > 0:
            monitor.setVout(self.voltage_v)
        self.engine = sample_engine.SampleEngine(monitor)
        self.engine.ConsoleOutput(False)
        return self

    def _modules(self) -> tuple[Any, Any]:
        try:
            return (importlib.import_module(f"{self.driver}.HVPM"),
                    importlib.import_module(f"{self.driver}.sampleEngine"))
        except ImportError as exc:
            raise UserError(f"the Monsoon driver {self.driver!r} cannot be imported ({exc}): "
                            f"pip install monsoon") from None

    def start(self, t0_epoch_ns: int) -> None:
        if self.engine is None:
            self.open()
        self._thread = threading.Thread(target=self._sample, args=(t0_epoch_ns,),
                                        name="monsoon", daemon=True)
        self._thread.start()

    def _sample(self, t0_epoch_ns: int) -> None:
        try:
            started_ns = time.time_ns()
            self.engine.periodicStartSampling()
            while not self._stop.is_set():
                self._add(self.engine.periodicCollectSamples(BATCH), started_ns - t0_epoch_ns)
            self.engine.periodicStopSampling()
        except Exception as exc:  # the USB link broke: keep what came, report at stop()
            self._error = exc

    def _add(self, lists: Any, shift_ns: int) -> None:
        for t_s, main_ma, volts in zip(lists[TIME], lists[MAIN_MA], lists[MAIN_V],
                                       strict=False):
            amps = float(main_ma) / 1000.0
            self._samples.append(PowerSample(shift_ns + int(float(t_s) * 1e9),
                                             amps * float(volts), float(volts), amps))

    def stop(self) -> list[PowerSample]:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
        if self._error is not None and not self._samples:
            raise UserError(f"the Monsoon stopped sampling: {self._error}")
        return list(self._samples)

    def facts(self) -> dict[str, object]:
        return {"monitor": "monsoon", "driver": self.driver, "serial": self.serial,
                "voltage_v": self.voltage_v or None, "samples": len(self._samples),
                "error": str(self._error) if self._error else None}
