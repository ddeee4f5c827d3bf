"""``python -m harness``: run every baseline on a device and a scenario, then report.

    python -m harness                                  # device=k50pro scenario=frs
    python -m harness device=p20 scenario=ros run=[band,adms]
    python -m harness device=host scenario=frs         # real LiteRT on this machine
    python -m harness -m seed.base=0,1,2 hydra/launcher=joblib   # a sweep
    python -m harness --cfg job                        # Hydra's own flags work as documented
    python -m harness --help                           # every option: unit, range, meaning
    harness device=p20 ...                             # the console script (harness/cli/main.py)

This is the composition root's command: Hydra composes ``conf/config.yaml`` (every built-in
schema registered first), the config becomes a typed :class:`~harness.config.schema.RunConf`
once, and the session runs it. Bad input ends with one ``error:`` line and exit code 2.

A folder given as ``hydra.run.dir`` is claimed before Hydra writes into it
(:func:`~harness.config.rundir.claim_run_dir`); from the first line on, SIGINT and SIGTERM
interrupt the run (a further one is noted, not obeyed), and however the command ends, a
folder it claimed records how (:func:`~harness.experiment.endings.endings_recorded`). The
terminal may be closed or ASCII-only: the run's files do not depend on it
(:mod:`harness.experiment.terminal`). Each job of a sweep (``-m``) is isolated
(:mod:`harness.experiment.sweepjob`): a failing job is recorded in its own folder, the others
run, and the sweep ends with one line per job and a non-zero exit if any failed
(:class:`~harness.cli.sweepend.SweepEndings`).
"""

# ruff: noqa: E402  (Ctrl-C during the seconds of imports below must already be one line)
from __future__ import annotations

import errno
import signal
import sys
from typing import Any


def _outside_a_run(signum: int, _frame: object) -> None:
    """Ctrl-C while the command starts (its imports take seconds) or after its run ended:
    one line, no traceback; nothing was being measured."""
    print(f"stopped by {signal.Signals(signum).name} outside a run (nothing was being "
          "measured)", file=sys.stderr)
    raise SystemExit(128 + signum)


if __name__ == "__main__":  # (not when imported: a test or the console script owns signals)
    signal.signal(signal.SIGINT, _outside_a_run)

from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from hydra.types import RunMode
from omegaconf import DictConfig

from harness.cli.help import asks_help, help_text
from harness.config.compose import hydra_errors, task_errors, to_object
from harness.config.names import register as register_names
from harness.config.rundir import check_run_dir, claim_run_dir
from harness.config.rundir import register as register_run_dir
from harness.config.schema import RunConf
from harness.config.sweep import check_jobs, seed_note
from harness.experiment.components import register
from harness.experiment.endings import endings_recorded, note_signals, stop_on_signals
from harness.experiment.sweepjob import isolated
from harness.experiment.terminal import forgiving_streams
from harness.seams.errors import cli_guard, fail

#: the shell's code for a run ended by Ctrl-C (128 + SIGINT); SIGTERM ends with 143
EXIT_INTERRUPTED = 130

register()
register_run_dir()
register_names()


def compose_run(overrides: list[str]) -> object:
    """One job's config, composed, typed and checked (:func:`check_jobs`)."""
    from harness.experiment.session import compose_run as compose_checked

    return compose_checked(overrides)


@hydra.main(config_path="../conf", config_name="config", version_base="1.3")
def _app(cfg: DictConfig) -> str | None:
    from harness.experiment.session import run_session

    hydra_cfg = HydraConfig.get()
    folder = hydra_cfg.runtime.output_dir

    def job() -> None:
        run_conf: RunConf = to_object(cfg, RunConf)
        run_session(run_conf, cfg, folder)

    if hydra_cfg.mode == RunMode.MULTIRUN:  # a sweep's job: its failure is its own
        name = f"#{hydra_cfg.job.num} [{' '.join(hydra_cfg.overrides.task)}]"
        return isolated(Path(folder), name, job)
    with task_errors(), endings_recorded():
        job()
    return None


def _say_seeds(checked: list[tuple[list[str], Any]]) -> None:
    """Print what a sweep over ``seed.base`` does when its jobs repeat seeds."""
    from harness.experiment.components import seed_list

    note = seed_note([(job, seed_list(conf[0])) for job, conf in checked])
    if note:
        print(note, file=sys.stderr)


def main() -> None:
    forgiving_streams()
    if asks_help(sys.argv[1:]):
        with cli_guard(), hydra_errors():
            print(help_text(sys.argv[1:]))
        return
    try:
        with cli_guard(), stop_on_signals(), endings_recorded(), hydra_errors():
            check_run_dir(sys.argv[1:])
            _say_seeds(check_jobs(sys.argv[1:], compose_run))
            claim_run_dir(sys.argv[1:])
            _app()
    except OSError as exc:
        if exc.errno not in (errno.ENOSPC, errno.EDQUOT):
            raise
        fail(f"no space left on the device while writing the run: {exc}; the run folder "
             "keeps every row written before (its manifest says failed)")
    except KeyboardInterrupt as exc:
        note_signals()
        # the recorder closed on the way out: every finished request is in the run folder
        signum = getattr(exc, "signum", signal.SIGINT)
        print(f"interrupted: finished requests are kept in the run folder "
              f"({signal.Signals(signum).name})", file=sys.stderr)
        raise SystemExit(128 + signum) from None


if __name__ == "__main__":
    main()
