"""``python -m harness``: run every baseline on a device and a scenario, then report.

    python -m harness                                  # device=k50pro scenario=frs
    python -m harness device=p20 scenario=ros run=[band,adms]
    python -m harness device=host scenario=frs         # real LiteRT on this machine
    python -m harness -m seed.base=0,1,2 hydra/launcher=joblib   # a sweep
    python -m harness --cfg job                        # Hydra's own flags work as documented

This is the composition root's command: Hydra composes ``conf/config.yaml`` (every built-in
schema registered first), the config becomes a typed :class:`~harness.config.schema.RunConf`
once, and the session runs it. Bad input ends with one ``error:`` line and exit code 2.
"""

from __future__ import annotations

import sys

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig

from harness.config.compose import hydra_errors, task_errors, to_object
from harness.config.schema import RunConf
from harness.experiment.components import register
from harness.seams.errors import cli_guard

#: the shell's code for a run ended by Ctrl-C (128 + SIGINT)
EXIT_INTERRUPTED = 130

register()


@hydra.main(config_path="../conf", config_name="config", version_base="1.3")
def _app(cfg: DictConfig) -> None:
    from harness.experiment.session import run_session

    with task_errors():
        run_conf: RunConf = to_object(cfg, RunConf)
        run_session(run_conf, cfg, HydraConfig.get().runtime.output_dir)


def main() -> None:
    try:
        with cli_guard(), hydra_errors():
            _app()
    except KeyboardInterrupt:
        # the recorder closed on the way out: every finished request is in the run folder
        print("interrupted: finished requests are kept in the run folder", file=sys.stderr)
        raise SystemExit(EXIT_INTERRUPTED) from None


if __name__ == "__main__":
    main()
