"""A run folder, read: its manifest's facts as typed values and its tables as frames.

``RunFolder(path)`` reads ``results/<device>/<timestamp>_<scenario>/`` as the session wrote
it (:mod:`harness.experiment.session`, :mod:`harness.reporting.store`) and never writes into
it: a table whose journal was never converted (a run still going, or killed) is read from the
journal in place (:func:`~harness.reporting.store.read_table`); conversion is the recorder's.
Notebooks, ``compare``, the farm and the paper driver read runs through it rather than
indexing the manifest's dictionaries or parsing its strings.

What it gives:

* every fact of its manifest, typed, as a :class:`~harness.reporting.runrecord.RunRecord`
  (state, device, kind, scenario, config, seeds, per baseline and seed a
  :class:`~harness.reporting.runrecord.SeedRun` or a
  :class:`~harness.reporting.runrecord.Failure`, bounds), whose names are importable from
  here too;
* whether a run still records into the folder (:attr:`~RunFolder.recorder_pid`: the folder's
  claim is held, :mod:`harness.seams.claim`), which tells a run going on from one killed;
* the tables ``requests``, ``subgraphs``, ``sensors``, ``phone_runs``, ``phone_ops`` and all of
  them as a :class:`~harness.reporting.store.RunData` (what metrics and reports take).
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path

import pandas as pd

from harness.reporting.runrecord import RUN_DIR_KEYS as RUN_DIR_KEYS
from harness.reporting.runrecord import BoundFacts as BoundFacts
from harness.reporting.runrecord import Failure as Failure
from harness.reporting.runrecord import RunRecord
from harness.reporting.runrecord import SeedRun as SeedRun
from harness.reporting.runrecord import State as State
from harness.reporting.runrecord import config_digest as config_digest
from harness.reporting.runrecord import failures_in as failures_in
from harness.reporting.runrecord import recorded as recorded
from harness.reporting.store import TABLES, RunData, read_manifest, read_table
from harness.seams.claim import holder
from harness.seams.errors import UserError


class RunFolder(RunRecord):
    """One run folder, read (module docstring); reading never writes into it."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise UserError(f"{folder} is not a folder")
        super().__init__(read_manifest(self.folder))

    def __repr__(self) -> str:
        return f"RunFolder({str(self.folder)!r})"

    @property
    def recorder_pid(self) -> int | None:
        """The pid of the run still recording into the folder (its claim is held); None when
        none does: the run ended, or was killed if its state is still ``running``."""
        return holder(self.folder)

    # -- tables ---------------------------------------------------------------------------

    def table(self, name: str) -> pd.DataFrame:
        """One of the folder's tables (:data:`~harness.reporting.store.TABLES`), read in
        place; a fresh frame at each call."""
        if name not in TABLES:
            raise KeyError(f"no table {name!r}; tables: {', '.join(TABLES)}")
        return read_table(self.folder, name, self.manifest)

    @cached_property
    def data(self) -> RunData:
        """Every table and the manifest, as metrics and reports take them (read once)."""
        frames = {name: self.table(name) for name in TABLES}
        return RunData(self.folder, frames["requests"], frames["subgraphs"], frames["sensors"],
                       self.manifest, frames["phone_runs"], frames["phone_ops"])

    @property
    def requests(self) -> pd.DataFrame:
        return self.data.requests

    @property
    def subgraphs(self) -> pd.DataFrame:
        return self.data.subgraphs

    @property
    def sensors(self) -> pd.DataFrame:
        return self.data.sensors

    @property
    def phone_runs(self) -> pd.DataFrame:
        return self.data.phone_runs

    @property
    def phone_ops(self) -> pd.DataFrame:
        return self.data.phone_ops
