// The part of the classic TensorFlow Lite C API the `tflite` backend resolves with dlsym (no
// wheel ships it; on Android it is libtensorflowlite_jni.so from the tensorflow-lite AAR, or a
// libtensorflowlite_c.so built from source). Written from the public headers in
// github.com/google-ai-edge/LiteRT: tflite/core/c/c_api.h (interpreter, tensors),
// tflite/delegates/gpu/delegate.h (the external-delegate entry points GPU v2 exports),
// tflite/delegates/nnapi/nnapi_delegate_c_api.h and tflite/delegates/hexagon/hexagon_delegate.h
// (their option structs, declared with the same member order).
#pragma once

#include <cstddef>
#include <cstdint>

namespace runner::tflite {

struct Model;
struct InterpreterOptions;
struct Interpreter;
struct Tensor;
struct Delegate;
using Status = int;  // kTfLiteOk = 0

struct Api {
  Model* (*model_create_from_file)(const char* path);
  void (*model_delete)(Model* model);
  InterpreterOptions* (*options_create)();
  void (*options_delete)(InterpreterOptions* options);
  void (*options_set_num_threads)(InterpreterOptions* options, int32_t threads);
  void (*options_add_delegate)(InterpreterOptions* options, Delegate* delegate);
  Interpreter* (*interpreter_create)(const Model* model, const InterpreterOptions* options);
  void (*interpreter_delete)(Interpreter* interpreter);
  Status (*allocate_tensors)(Interpreter* interpreter);
  Status (*invoke)(Interpreter* interpreter);
  int32_t (*input_count)(const Interpreter* interpreter);
  int32_t (*output_count)(const Interpreter* interpreter);
  Tensor* (*input_tensor)(const Interpreter* interpreter, int32_t index);
  const Tensor* (*output_tensor)(const Interpreter* interpreter, int32_t index);
  size_t (*byte_size)(const Tensor* tensor);
  Status (*copy_from_buffer)(Tensor* tensor, const void* data, size_t size);
  Status (*copy_to_buffer)(const Tensor* tensor, void* data, size_t size);
};

// tflite/delegates/gpu/delegate.h: the external-delegate plugin entry points
using PluginCreate = Delegate* (*)(const char* const* keys, const char* const* values, size_t count,
                                   void (*report_error)(const char*));
using PluginDestroy = void (*)(Delegate* delegate);

// tflite/delegates/nnapi/nnapi_delegate_c_api.h
struct NnapiOptions {
  int execution_preference;  // -1 undefined, 0 low power, 1 fast single answer, 2 sustained
  const char* accelerator_name;
  const char* cache_dir;
  const char* model_token;
  int disallow_nnapi_cpu;
  int allow_fp16;
  int max_number_delegated_partitions;
  void* nnapi_support_library_handle;
};
using NnapiOptionsDefault = NnapiOptions (*)();
using NnapiCreate = Delegate* (*)(const NnapiOptions* options);
using NnapiDelete = void (*)(Delegate* delegate);

// tflite/delegates/hexagon/hexagon_delegate.h
struct HexagonOptions {
  int debug_level;
  int powersave_level;
  bool print_graph_profile;
  bool print_graph_debug;
  int max_delegated_partitions;
  int min_nodes_per_partition;
  bool enable_dynamic_batch_size;
  int max_batch_size;
  void* input_batch_dimensions;   // TfLiteIntArray*
  void* output_batch_dimensions;  // TfLiteIntArray*
};
using HexagonInitWithPath = void (*)(const char* folder);
using HexagonOptionsDefault = HexagonOptions (*)();
using HexagonCreate = Delegate* (*)(const HexagonOptions* options);
using HexagonDelete = void (*)(Delegate* delegate);

}  // namespace runner::tflite
