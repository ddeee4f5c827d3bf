"""The case battery of issue 25: ordinary and hostile inputs run as real processes, judged by
the one-line ``error:`` contract and by whether anything measured was lost. Slow (minutes),
so not part of the default test run: ``python -m tests.cases.battery --out FILE.md``."""
