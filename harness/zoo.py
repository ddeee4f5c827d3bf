"""``python -m harness.zoo``: list the model zoo, build its ``.tflite`` files (the command;
the zoo itself is :mod:`harness.models.zoo`)."""

from harness.models.zoo.__main__ import main

if __name__ == "__main__":
    main()
