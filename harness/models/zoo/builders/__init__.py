"""Builders of the zoo's models: Keras graphs with seeded random weights, converted to TFLite.

Every builder is a function ``build(seed: int) -> bytes`` returning a ``.tflite`` flatbuffer.
TensorFlow is imported only inside these modules; :mod:`harness.zoo` imports them lazily.
"""
