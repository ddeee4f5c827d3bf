"""A reproducible harness for multi-DNN inference on heterogeneous processors.

Three roles with narrow seams (see DESIGN in the README): the harness (configs, traffic, the
clock, recording, reports), the policies (``baselines/``, ``adms/``: analysis of models into
subgraphs and scheduling decisions) and the devices (``devices/``: running subgraphs and
reporting completions and sensor readings).
"""

__version__ = "0.1.0"
