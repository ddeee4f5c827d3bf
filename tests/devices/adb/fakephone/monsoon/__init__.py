"""A drop-in for the vendor's ``Monsoon`` package (a FAKE power monitor, for tests).

Same modules and calls as ``monsoon`` 0.1.88: ``HVPM.Monsoon().setup_usb(serialno)`` (which,
with no monitor plugged in, prints "Unable to find device" and returns without raising, as
the real one does; set ``FAKE_MONSOON=absent`` for that), ``setVout``, and
``sampleEngine.SampleEngine(monsoon)`` with ``periodicStartSampling``,
``periodicCollectSamples(n)`` and ``periodicStopSampling``, whose samples have the real
``getSamples()`` shape: six lists ``[time_s, main_mA, usb_mA, aux_mA, main_V, usb_V]``, time in
seconds since sampling started. The phone it powers is the fake phone under
``FAKE_PHONE_ROOT``: it draws 1.1 W idle plus 1.6 W per running tool.
"""
