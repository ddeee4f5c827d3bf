"""``python -m harness.compare RUN_DIR [RUN_DIR ...]``: compare run folders and flag
regressions (the command; the comparison is :mod:`harness.reporting.compare`)."""

import sys

from harness.reporting.compare import main

if __name__ == "__main__":
    sys.exit(main())
