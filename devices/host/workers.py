"""Worker threads and the LiteRT interpreters they own.

A host processor is one :class:`Worker`: a thread pinned to a core set that runs tasks one at
a time from its own queue. ``os.sched_setaffinity(0, cores)`` is called from inside the
thread, where on Linux it applies to that thread only; interpreters are built on the worker,
so the thread pool an interpreter starts (``num_threads`` > 1) inherits the same cores.
LiteRT's ``invoke()`` releases the GIL, so workers run in parallel.

A :class:`SliceRunner` is one interpreter for one slice of a model. It speaks the original
model's tensor numbering: :meth:`SliceRunner.run` reads the slice's inputs from a dict of
tensors, invokes, and writes the slice's outputs back (real copies, as between processors).

:func:`xnnpack_unsupported_ops` finds by trial the ops XNNPACK will not take: with node fusion
disabled, every delegated op gets its own ``DELEGATE`` node, matched by output tensor.
:func:`litert_version` is the installed LiteRT's version (a machine fact, and part of every
profile's key).
"""

from __future__ import annotations

import importlib.metadata
import logging
import os
import queue
import threading
from collections.abc import Callable, Mapping, MutableMapping, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
from ai_edge_litert.interpreter import Interpreter, OpResolverType

from devices.host.config import Kernel

log = logging.getLogger(__name__)
T = TypeVar("T")

_RESOLVERS: Mapping[Kernel, OpResolverType] = {
    Kernel.xnnpack: OpResolverType.AUTO,
    Kernel.builtin: OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES,
    Kernel.reference: OpResolverType.BUILTIN_REF,
}


class Worker:
    """One processor's thread: pinned to ``cores``, runs posted tasks in order."""

    def __init__(self, name: str, cores: Sequence[int]) -> None:
        self.name = name
        self.cores = tuple(cores)
        self._tasks: queue.SimpleQueue[Callable[[], object] | None] = queue.SimpleQueue()
        self._pinned = threading.Event()
        self._pin_error: OSError | None = None
        self._thread = threading.Thread(target=self._main, name=f"host-{name}", daemon=True)
        self._thread.start()
        self._pinned.wait()
        if self._pin_error is not None:
            raise OSError(f"cannot pin worker {name!r} to cores {self.cores}: {self._pin_error}")

    def _main(self) -> None:
        try:
            os.sched_setaffinity(0, self.cores)
        except OSError as exc:
            self._pin_error = exc
        self._pinned.set()
        while self._pin_error is None and (task := self._tasks.get()) is not None:
            try:
                task()
            except Exception:
                log.exception("task on worker %s failed", self.name)

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    def post(self, task: Callable[[], object]) -> None:
        """Run ``task`` on the worker after the tasks already posted; return at once."""
        self._tasks.put(task)

    def submit(self, fn: Callable[[], T]) -> Future[T]:
        """Run ``fn`` on the worker; its result (or exception) arrives in the future."""
        future: Future[T] = Future()

        def task() -> None:
            try:
                future.set_result(fn())
            except BaseException as exc:
                future.set_exception(exc)

        if threading.current_thread() is self._thread:
            task()
        else:
            self.post(task)
        return future

    def call(self, fn: Callable[[], T]) -> T:
        """Run ``fn`` on the worker and wait for its result."""
        return self.submit(fn).result()

    def close(self, timeout_s: float) -> bool:
        """Finish the queued tasks, stop the thread; False if it did not end in time."""
        if self._thread.is_alive():
            self._tasks.put(None)
            self._thread.join(timeout_s)
        return not self._thread.is_alive()


def make_interpreter(
    path: Path, kernel: Kernel, threads: int, *, disable_fusion: bool = False
) -> Interpreter:
    """A LiteRT interpreter for ``path`` with ``kernel``'s resolver, tensors allocated."""
    interpreter = Interpreter(
        model_path=str(path),
        num_threads=threads,
        experimental_op_resolver_type=_RESOLVERS[kernel],
        experimental_disable_delegate_node_fusion=disable_fusion,
    )
    interpreter.allocate_tensors()
    return interpreter


class SliceRunner:
    """One interpreter for one slice; inputs and outputs in the original tensor numbering.

    ``inputs[i]`` / ``outputs[i]`` name the original tensor of the slice model's i-th input /
    output.
    """

    def __init__(
        self, path: Path, inputs: Sequence[int], outputs: Sequence[int], kernel: Kernel,
        threads: int,
    ) -> None:
        self.path = path
        self.interpreter = make_interpreter(path, kernel, threads)
        in_details = self.interpreter.get_input_details()
        out_details = self.interpreter.get_output_details()
        _check_arity(path, "inputs", inputs, in_details)
        _check_arity(path, "outputs", outputs, out_details)
        self._inputs = tuple((t, int(d["index"])) for t, d in zip(inputs, in_details, strict=True))
        self._outputs = tuple(
            (t, int(d["index"])) for t, d in zip(outputs, out_details, strict=True)
        )
        #: original input tensor -> (shape, dtype) as the interpreter allocated it
        self.input_specs = {
            t: (tuple(int(x) for x in d["shape"]), np.dtype(d["dtype"]))
            for t, d in zip(inputs, in_details, strict=True)
        }

    @property
    def inputs(self) -> tuple[int, ...]:
        return tuple(t for t, _ in self._inputs)

    @property
    def outputs(self) -> tuple[int, ...]:
        return tuple(t for t, _ in self._outputs)

    def copy_in(self, tensors: Mapping[int, np.ndarray]) -> None:
        """Copy the slice's inputs in from ``tensors`` (``set_tensor`` copies)."""
        interpreter = self.interpreter
        for tensor, index in self._inputs:
            interpreter.set_tensor(index, tensors[tensor])

    def run(self, tensors: MutableMapping[int, np.ndarray]) -> None:
        """Copy the inputs in from ``tensors``, invoke, copy the outputs into ``tensors``."""
        interpreter = self.interpreter
        self.copy_in(tensors)
        interpreter.invoke()
        for tensor, index in self._outputs:
            tensors[tensor] = interpreter.get_tensor(index)


def _check_arity(path: Path, what: str, expected: Sequence[int], details: list[Any]) -> None:
    if len(expected) != len(details):
        raise ValueError(f"{path}: slice lists {len(expected)} {what}, model has {len(details)}")


def random_input(
    shape: Sequence[int], dtype: np.dtype[Any], rng: np.random.Generator
) -> np.ndarray:
    """Random data for a model input: normal floats, full-range 8-bit integers, wider
    integers in [0, 8) (safe as indices), booleans."""
    if np.issubdtype(dtype, np.floating):
        return rng.standard_normal(shape).astype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if np.issubdtype(dtype, np.integer) and dtype.itemsize == 1:
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=dtype)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(0, 8, size=shape, dtype=dtype)
    raise ValueError(f"no random data for model inputs of dtype {dtype}")


def request_input(
    seed: int, frame: int, tensor: int, shape: Sequence[int], dtype: np.dtype[Any]
) -> np.ndarray:
    """The data of model input ``tensor`` in input frame ``frame`` (same every run)."""
    return random_input(shape, dtype, np.random.default_rng([seed, frame, tensor]))


def xnnpack_unsupported_ops(model_path: Path) -> frozenset[int]:
    """Op indices of ``model_path`` that XNNPACK does not take (found by trial)."""
    interpreter = Interpreter(
        model_path=str(model_path), experimental_disable_delegate_node_fusion=True
    )
    interpreter.allocate_tensors()  # the default delegate is applied here
    details = interpreter._get_ops_details()
    delegated = {
        int(t) for d in details if d["op_name"] == "DELEGATE" for t in d["outputs"] if t >= 0
    }
    return frozenset(
        int(d["index"])
        for d in details
        if d["op_name"] != "DELEGATE" and not {int(t) for t in d["outputs"] if t >= 0} <= delegated
    )


def litert_version() -> str | None:
    """The installed ``ai-edge-litert`` version (``None`` when not installed as a package)."""
    try:
        return importlib.metadata.version("ai-edge-litert")
    except importlib.metadata.PackageNotFoundError:
        return None
