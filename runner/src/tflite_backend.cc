// The `tflite` backend: the classic TensorFlow Lite C API loaded with dlopen, for older phones
// whose NNAPI, Hexagon or GPU-v2 delegates only exist for it (the Huawei P20 and Xiaomi 6 of
// the paper). Processor options: lib= (the C API library, default libtensorflowlite_jni.so as
// in the tensorflow-lite AAR), delegate=none|gpu|nnapi|hexagon, delegate_lib= (the library
// holding the delegate), hexagon_dir= (folder of the Hexagon skeleton libraries).
#include <functional>
#include <vector>

#include "backend.h"
#include "dynamic_library.h"
#include "tflite_c_api.h"

namespace runner {
namespace {

using tflite::Api;
using tflite::Delegate;

std::string option(const ProcessorSpec& p, const std::string& key, const std::string& fallback) {
  auto it = p.options.find(key);
  return it == p.options.end() ? fallback : it->second;
}

Api resolve(const DynamicLibrary& lib) {
  Api api{};
  api.model_create_from_file =
      lib.symbol<decltype(api.model_create_from_file)>("TfLiteModelCreateFromFile");
  api.model_delete = lib.symbol<decltype(api.model_delete)>("TfLiteModelDelete");
  api.options_create = lib.symbol<decltype(api.options_create)>("TfLiteInterpreterOptionsCreate");
  api.options_delete = lib.symbol<decltype(api.options_delete)>("TfLiteInterpreterOptionsDelete");
  api.options_set_num_threads =
      lib.symbol<decltype(api.options_set_num_threads)>("TfLiteInterpreterOptionsSetNumThreads");
  api.options_add_delegate =
      lib.symbol<decltype(api.options_add_delegate)>("TfLiteInterpreterOptionsAddDelegate");
  api.interpreter_create = lib.symbol<decltype(api.interpreter_create)>("TfLiteInterpreterCreate");
  api.interpreter_delete = lib.symbol<decltype(api.interpreter_delete)>("TfLiteInterpreterDelete");
  api.allocate_tensors =
      lib.symbol<decltype(api.allocate_tensors)>("TfLiteInterpreterAllocateTensors");
  api.invoke = lib.symbol<decltype(api.invoke)>("TfLiteInterpreterInvoke");
  api.input_count = lib.symbol<decltype(api.input_count)>("TfLiteInterpreterGetInputTensorCount");
  api.output_count =
      lib.symbol<decltype(api.output_count)>("TfLiteInterpreterGetOutputTensorCount");
  api.input_tensor = lib.symbol<decltype(api.input_tensor)>("TfLiteInterpreterGetInputTensor");
  api.output_tensor = lib.symbol<decltype(api.output_tensor)>("TfLiteInterpreterGetOutputTensor");
  api.byte_size = lib.symbol<decltype(api.byte_size)>("TfLiteTensorByteSize");
  api.copy_from_buffer = lib.symbol<decltype(api.copy_from_buffer)>("TfLiteTensorCopyFromBuffer");
  api.copy_to_buffer = lib.symbol<decltype(api.copy_to_buffer)>("TfLiteTensorCopyToBuffer");
  return api;
}

// Makes one delegate per slice (a delegate instance serves one interpreter).
class DelegateMaker {
 public:
  explicit DelegateMaker(const ProcessorSpec& p, const DynamicLibrary& main_lib) {
    kind_ = option(p, "delegate", "none");
    if (kind_ == "none") return;
    if (kind_ != "gpu" && kind_ != "nnapi" && kind_ != "hexagon") {
      throw RunnerError("processor " + p.name + ": delegate must be none, gpu, nnapi or hexagon");
    }
    std::string file = option(p, "delegate_lib", default_library());
    if (!file.empty())
      own_ = std::make_unique<DynamicLibrary>(file, "TFLite " + kind_ + " delegate");
    const DynamicLibrary& lib = own_ ? *own_ : main_lib;
    if (kind_ == "gpu") bind_gpu(lib);
    if (kind_ == "nnapi") bind_nnapi(lib);
    if (kind_ == "hexagon") bind_hexagon(lib, option(p, "hexagon_dir", ""));
  }
  // a new delegate and its deleter, or {nullptr, {}} for delegate=none
  std::pair<Delegate*, std::function<void(Delegate*)>> make() const {
    if (kind_ == "none") return {nullptr, {}};
    Delegate* d = create_();
    if (d == nullptr) throw RunnerError("the TFLite " + kind_ + " delegate could not be created");
    return {d, destroy_};
  }

 private:
  std::string default_library() const {
    if (kind_ == "gpu") return "libtensorflowlite_gpu_jni.so";
    if (kind_ == "hexagon") return "libtensorflowlite_hexagon_jni.so";
    return "";  // NNAPI's delegate is in the C API library itself
  }
  void bind_gpu(const DynamicLibrary& lib) {
    auto create = lib.symbol<tflite::PluginCreate>("tflite_plugin_create_delegate");
    destroy_ = lib.symbol<tflite::PluginDestroy>("tflite_plugin_destroy_delegate");
    create_ = [create] { return create(nullptr, nullptr, 0, nullptr); };
  }
  void bind_nnapi(const DynamicLibrary& lib) {
    auto defaults = lib.symbol<tflite::NnapiOptionsDefault>("TfLiteNnapiDelegateOptionsDefault");
    auto create = lib.symbol<tflite::NnapiCreate>("TfLiteNnapiDelegateCreate");
    destroy_ = lib.symbol<tflite::NnapiDelete>("TfLiteNnapiDelegateDelete");
    create_ = [defaults, create] {
      tflite::NnapiOptions options = defaults();
      return create(&options);
    };
  }
  void bind_hexagon(const DynamicLibrary& lib, const std::string& folder) {
    auto init = lib.symbol<tflite::HexagonInitWithPath>("TfLiteHexagonInitWithPath");
    auto defaults =
        lib.symbol<tflite::HexagonOptionsDefault>("TfLiteHexagonDelegateOptionsDefault");
    auto create = lib.symbol<tflite::HexagonCreate>("TfLiteHexagonDelegateCreate");
    destroy_ = lib.symbol<tflite::HexagonDelete>("TfLiteHexagonDelegateDelete");
    init(folder.c_str());
    create_ = [defaults, create] {
      tflite::HexagonOptions options = defaults();
      return create(&options);
    };
  }

  std::string kind_;
  std::unique_ptr<DynamicLibrary> own_;
  std::function<Delegate*()> create_;
  std::function<void(Delegate*)> destroy_;
};

class TfliteSlice : public Slice {
 public:
  TfliteSlice(const Api& api, const std::string& path, int threads, const DelegateMaker& maker)
      : api_(api) {
    model_ = api_.model_create_from_file(path.c_str());
    if (model_ == nullptr) throw RunnerError("TFLite cannot load " + path);
    auto* options = api_.options_create();
    api_.options_set_num_threads(options, threads);
    std::tie(delegate_, delete_delegate_) = maker.make();
    if (delegate_ != nullptr) api_.options_add_delegate(options, delegate_);
    interpreter_ = api_.interpreter_create(model_, options);
    api_.options_delete(options);
    if (interpreter_ == nullptr || api_.allocate_tensors(interpreter_) != 0) {
      throw RunnerError("TFLite cannot build an interpreter for " + path);
    }
  }
  ~TfliteSlice() override {
    if (interpreter_ != nullptr) api_.interpreter_delete(interpreter_);
    if (delegate_ != nullptr) delete_delegate_(delegate_);
    api_.model_delete(model_);
  }
  TfliteSlice(const TfliteSlice&) = delete;
  TfliteSlice& operator=(const TfliteSlice&) = delete;

  std::size_t num_inputs() const override {
    return static_cast<std::size_t>(api_.input_count(interpreter_));
  }
  std::size_t num_outputs() const override {
    return static_cast<std::size_t>(api_.output_count(interpreter_));
  }
  std::size_t input_bytes(std::size_t i) const override { return api_.byte_size(in(i)); }
  std::size_t output_bytes(std::size_t i) const override { return api_.byte_size(out(i)); }
  void write_input(std::size_t i, const uint8_t* bytes) override {
    if (api_.copy_from_buffer(in(i), bytes, input_bytes(i)) != 0)
      throw RunnerError("TFLite input copy failed");
  }
  void invoke() override {
    if (api_.invoke(interpreter_) != 0) throw RunnerError("TFLite invoke failed");
  }
  void read_output(std::size_t i, uint8_t* bytes) override {
    if (api_.copy_to_buffer(out(i), bytes, output_bytes(i)) != 0)
      throw RunnerError("TFLite output copy failed");
  }

 private:
  tflite::Tensor* in(std::size_t i) const {
    return api_.input_tensor(interpreter_, static_cast<int32_t>(i));
  }
  const tflite::Tensor* out(std::size_t i) const {
    return api_.output_tensor(interpreter_, static_cast<int32_t>(i));
  }

  const Api& api_;
  tflite::Model* model_ = nullptr;
  tflite::Interpreter* interpreter_ = nullptr;
  Delegate* delegate_ = nullptr;
  std::function<void(Delegate*)> delete_delegate_;
};

class TfliteBackend : public Backend {
 public:
  explicit TfliteBackend(const ProcessorSpec& p)
      : lib_(option(p, "lib", "libtensorflowlite_jni.so"), "classic TFLite C API"),
        api_(resolve(lib_)),
        delegates_(p, lib_),
        threads_(p.threads) {}
  std::unique_ptr<Slice> load(const std::string& path) override {
    return std::make_unique<TfliteSlice>(api_, path, threads_, delegates_);
  }

 private:
  DynamicLibrary lib_;
  Api api_;
  DelegateMaker delegates_;
  int threads_;
};

}  // namespace

std::unique_ptr<Backend> make_tflite_backend(const ProcessorSpec& processor) {
  return std::make_unique<TfliteBackend>(processor);
}

}  // namespace runner
