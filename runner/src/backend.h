// A backend runs slices on one kind of processor. The worker that owns a processor creates its
// backend and loads its slices on its own pinned thread; a loaded Slice is then used by that
// thread only. Inputs are written and outputs read as packed bytes, in the slice's own order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "plan.h"

namespace runner {

class Slice {
 public:
  virtual ~Slice() = default;
  virtual std::size_t num_inputs() const = 0;
  virtual std::size_t num_outputs() const = 0;
  virtual std::size_t input_bytes(std::size_t i) const = 0;
  virtual std::size_t output_bytes(std::size_t i) const = 0;
  // copies `bytes` (exactly input_bytes(i) of them) into input i
  virtual void write_input(std::size_t i, const uint8_t* bytes) = 0;
  virtual void invoke() = 0;
  // copies output i (output_bytes(i) bytes) to `bytes`
  virtual void read_output(std::size_t i, uint8_t* bytes) = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  // loads and compiles the .tflite file at `path`; throws RunnerError
  virtual std::unique_ptr<Slice> load(const std::string& path) = 0;
};

class LiteRtRuntime;

// The backend for `processor.accelerator`: cpu (XNNPACK or built-in kernels), gpu and npu
// (LiteRT accelerators), tflite (classic TFLite C API loaded with dlopen). Throws RunnerError
// saying what is missing when the accelerator is not available on this build or host.
std::unique_ptr<Backend> make_backend(const ProcessorSpec& processor, LiteRtRuntime& runtime);

}  // namespace runner
