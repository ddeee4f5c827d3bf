"""``harness --help`` lists the composed run's options with their unit, range and meaning."""

from __future__ import annotations

from harness.cli.help import help_text, run_options, template
from harness.experiment.session import compose_run


def test_the_help_lists_each_option_with_unit_range_and_meaning() -> None:
    cfg, _ = compose_run(["device=host", "run=[threads,adms]"])
    text = template(run_options(cfg))
    assert "scenario.duration_s = 10.0  [s, > 0" in text
    assert "measured duration, after warm-up" in text
    assert "device.host." in text and "baselines.adms." in text
    assert "baselines.band." not in text  # only what `run` names
    assert "$APP_CONFIG_GROUPS" not in text and "$FLAGS_HELP" in text


def test_the_help_of_a_command_line_has_its_options_and_hydras_flags() -> None:
    text = help_text(["--help", "device=p20", "run=[band]"])
    assert "device.name = p20" in text and "baselines.band." in text
    assert "--multirun" in text and "Overrides :" in text
    assert "$FLAGS_HELP" not in text and "$$" not in text
