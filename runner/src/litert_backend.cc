// Backends on LiteRT's compiled-model API: CPU (the opaque `xnnpack` option, whose payload is
// TOML text with kernel_mode and num_threads, see litert/c/options/litert_cpu_options.cc),
// and the GPU and NPU accelerators, which run only when LiteRT registered them (it looks for
// their libraries in the runtime and dispatch folders). Every output buffer is passed to
// LiteRtRunCompiledModel, which otherwise fails with "Output buffer size mismatch".
#include <cstring>
#include <vector>

#include "backend.h"
#include "errors.h"
#include "litert_runtime.h"

namespace runner {
namespace {

// One compiled slice with a managed host buffer per input and output.
class LiteRtSlice : public Slice {
 public:
  LiteRtSlice(LiteRtRuntime& runtime, const std::string& path, LiteRtOptions options) {
    check(LiteRtCreateModelFromFile(runtime.environment(), path.c_str(), &model_),
          "loading " + path);
    check(LiteRtCreateCompiledModel(runtime.environment(), model_, options, &compiled_),
          "compiling " + path);
    LiteRtSignature signature = nullptr;
    check(LiteRtGetModelSignature(model_, 0, &signature), "signature of " + path);
    make_buffers(runtime, signature, true, path);
    make_buffers(runtime, signature, false, path);
  }
  ~LiteRtSlice() override {
    for (auto* b : inputs_) LiteRtDestroyTensorBuffer(b);
    for (auto* b : outputs_) LiteRtDestroyTensorBuffer(b);
    if (compiled_ != nullptr) LiteRtDestroyCompiledModel(compiled_);
    if (model_ != nullptr) LiteRtDestroyModel(model_);
  }
  LiteRtSlice(const LiteRtSlice&) = delete;
  LiteRtSlice& operator=(const LiteRtSlice&) = delete;

  std::size_t num_inputs() const override { return inputs_.size(); }
  std::size_t num_outputs() const override { return outputs_.size(); }
  std::size_t input_bytes(std::size_t i) const override { return input_sizes_[i]; }
  std::size_t output_bytes(std::size_t i) const override { return output_sizes_[i]; }

  void write_input(std::size_t i, const uint8_t* bytes) override {
    void* host = nullptr;
    check(LiteRtLockTensorBuffer(inputs_[i], &host, kLiteRtLockWrite), "locking an input");
    std::memcpy(host, bytes, input_sizes_[i]);
    check(LiteRtUnlockTensorBuffer(inputs_[i]), "unlocking an input");
  }

  void invoke() override {
    check(LiteRtRunCompiledModel(compiled_, 0, inputs_.size(), inputs_.data(), outputs_.size(),
                                 outputs_.data()),
          "running a slice");
  }

  void read_output(std::size_t i, uint8_t* bytes) override {
    void* host = nullptr;
    check(LiteRtLockTensorBuffer(outputs_[i], &host, kLiteRtLockRead), "locking an output");
    std::memcpy(bytes, host, output_sizes_[i]);
    check(LiteRtUnlockTensorBuffer(outputs_[i]), "unlocking an output");
  }

 private:
  void make_buffers(LiteRtRuntime& runtime, LiteRtSignature signature, bool input,
                    const std::string& path) {
    LiteRtParamIndex count = 0;
    check(input ? LiteRtGetNumSignatureInputs(signature, &count)
                : LiteRtGetNumSignatureOutputs(signature, &count),
          "tensors of " + path);
    for (LiteRtParamIndex i = 0; i < count; ++i) {
      LiteRtTensor tensor = nullptr;
      LiteRtRankedTensorTypeValue type{};
      LiteRtTensorBufferRequirements requirements = nullptr;
      LiteRtTensorBuffer buffer = nullptr;
      std::size_t size = 0;
      check(input ? LiteRtGetSignatureInputTensorByIndex(signature, i, &tensor)
                  : LiteRtGetSignatureOutputTensorByIndex(signature, i, &tensor),
            "tensor");
      check(LiteRtGetRankedTensorType(tensor, &type), "tensor type in " + path);
      check(input ? LiteRtGetCompiledModelInputBufferRequirements(compiled_, 0, i, &requirements)
                  : LiteRtGetCompiledModelOutputBufferRequirements(compiled_, 0, i, &requirements),
            "buffer requirements in " + path);
      check(LiteRtCreateManagedTensorBufferFromRequirements(runtime.environment(), &type,
                                                            requirements, &buffer),
            "tensor buffer for " + path);
      (input ? inputs_ : outputs_).push_back(buffer);
      check(LiteRtGetTensorBufferPackedSize(buffer, &size), "buffer size in " + path);
      (input ? input_sizes_ : output_sizes_).push_back(size);
    }
  }

  LiteRtModel model_ = nullptr;
  LiteRtCompiledModel compiled_ = nullptr;
  std::vector<LiteRtTensorBuffer> inputs_, outputs_;
  std::vector<std::size_t> input_sizes_, output_sizes_;
};

// Compilation options owned for the life of the backend (LiteRT copies what it keeps).
class Options {
 public:
  Options() { check(LiteRtCreateOptions(&options_), "creating compilation options"); }
  ~Options() { LiteRtDestroyOptions(options_); }
  Options(const Options&) = delete;
  Options& operator=(const Options&) = delete;
  LiteRtOptions get() const { return options_; }

 private:
  LiteRtOptions options_ = nullptr;
};

std::string cpu_toml(const ProcessorSpec& processor) {
  auto it = processor.options.find("kernel");
  std::string kernel = it == processor.options.end() ? "xnnpack" : it->second;
  std::string toml = "num_threads = " + std::to_string(processor.threads) + "\n";
  if (kernel == "builtin" || kernel == "reference") {
    toml += "kernel_mode = \"" + kernel + "\"\n";
  } else if (kernel != "xnnpack") {
    throw RunnerError("processor " + processor.name +
                      ": kernel must be xnnpack, builtin or "
                      "reference, not '" +
                      kernel + "'");
  }
  return toml;
}

void add_cpu_options(LiteRtOptions options, const std::string& toml) {
  char* payload = new char[toml.size() + 1];
  std::memcpy(payload, toml.c_str(), toml.size() + 1);
  LiteRtOpaqueOptions opaque = nullptr;
  auto free_payload = [](void* p) { delete[] static_cast<char*>(p); };
  if (LiteRtCreateOpaqueOptions("xnnpack", payload, free_payload, &opaque) != kLiteRtOk) {
    delete[] payload;
    throw RunnerError("creating the xnnpack CPU options");
  }
  check(LiteRtAddOpaqueOptions(options, opaque), "adding the xnnpack CPU options");
}

class LiteRtBackend : public Backend {
 public:
  LiteRtBackend(LiteRtRuntime& runtime, const ProcessorSpec& processor) : runtime_(runtime) {
    LiteRtHwAcceleratorSet accelerators = kLiteRtAccelCpu;
    if (processor.accelerator == "gpu") accelerators |= kLiteRtAccelGpu;
    if (processor.accelerator == "npu") accelerators |= kLiteRtAccelNpu;
    check(LiteRtSetOptionsHardwareAccelerators(options_.get(), accelerators),
          "choosing accelerators for " + processor.name);
    add_cpu_options(options_.get(), cpu_toml(processor));
  }
  std::unique_ptr<Slice> load(const std::string& path) override {
    return std::make_unique<LiteRtSlice>(runtime_, path, options_.get());
  }

 private:
  LiteRtRuntime& runtime_;
  Options options_;
};

void require_accelerator(const ProcessorSpec& processor, LiteRtRuntime& runtime) {
  bool gpu = processor.accelerator == "gpu";
  if (runtime.has_accelerator(gpu ? kLiteRtAccelGpu : kLiteRtAccelNpu)) return;
  const auto& folders = runtime.folders();
  std::string folder = gpu ? folders.runtime_library_dir : folders.dispatch_library_dir;
  throw RunnerError(
      "processor " + processor.name + ": LiteRT " + (gpu ? "GPU accelerator" : "NPU dispatch") +
      " not available on this build/host (no " + (gpu ? "GPU" : "NPU") +
      " accelerator registered; looked in " + (folder.empty() ? "no folder" : "'" + folder + "'") +
      " given by " + (gpu ? "--litert-runtime-dir" : "--litert-dispatch-dir") +
      "; registered: " + runtime.accelerators() + ")");
}

}  // namespace

std::unique_ptr<Backend> make_tflite_backend(const ProcessorSpec& processor);

std::unique_ptr<Backend> make_backend(const ProcessorSpec& processor, LiteRtRuntime& runtime) {
  if (processor.accelerator == "tflite") return make_tflite_backend(processor);
  if (processor.accelerator != "cpu") require_accelerator(processor, runtime);
  return std::make_unique<LiteRtBackend>(runtime, processor);
}

}  // namespace runner
