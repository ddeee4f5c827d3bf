// The part of LiteRT's C API the runner uses, declared here because the ai-edge-litert wheel
// ships libLiteRt.so without headers. Written from the public headers of
// github.com/google-ai-edge/LiteRT (read at v2.2.0 and at HEAD, where these declarations are
// identical); each block names the header it follows. Only what the runner calls is declared;
// the struct layouts are the ABI-stable ones the headers pin with static_asserts.
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" {

// litert/c/litert_common.h: opaque handles, status, accelerator bits, lock modes.
struct LiteRtEnvironmentT;
struct LiteRtModelT;
struct LiteRtSignatureT;
struct LiteRtTensorT;
struct LiteRtOptionsT;
struct LiteRtOpaqueOptionsT;
struct LiteRtCompiledModelT;
struct LiteRtTensorBufferT;
struct LiteRtTensorBufferRequirementsT;
struct LiteRtAcceleratorT;
using LiteRtEnvironment = LiteRtEnvironmentT*;
using LiteRtModel = LiteRtModelT*;
using LiteRtSignature = LiteRtSignatureT*;
using LiteRtTensor = LiteRtTensorT*;
using LiteRtOptions = LiteRtOptionsT*;
using LiteRtOpaqueOptions = LiteRtOpaqueOptionsT*;
using LiteRtCompiledModel = LiteRtCompiledModelT*;
using LiteRtTensorBuffer = LiteRtTensorBufferT*;
using LiteRtTensorBufferRequirements = LiteRtTensorBufferRequirementsT*;
using LiteRtAccelerator = LiteRtAcceleratorT*;
using LiteRtParamIndex = size_t;
using LiteRtHwAcceleratorSet = int;
using LiteRtStatus = int;  // 0 is success; the wheel exports no LiteRtGetStatusString

constexpr LiteRtStatus kLiteRtOk = 0;
constexpr LiteRtHwAcceleratorSet kLiteRtAccelCpu = 1;
constexpr LiteRtHwAcceleratorSet kLiteRtAccelGpu = 2;
constexpr LiteRtHwAcceleratorSet kLiteRtAccelNpu = 4;
constexpr int kLiteRtLockRead = 0;
constexpr int kLiteRtLockWrite = 1;

// litert/c/litert_any.h: a tagged value (type tag, then an 8-byte union).
struct LiteRtAnyValue {
  int type;  // 2 = int64, 8 = C string, 9 = pointer
  union {
    bool as_bool;
    int64_t as_int;
    double as_real;
    const char* as_string;
    const void* as_pointer;
  };
};
constexpr int kLiteRtAnyString = 8;

// litert/c/litert_environment_options.h: one option = a tag and a value (24 bytes on LP64).
struct LiteRtEnvOptionEntry {
  int tag;
  LiteRtAnyValue value;
};
static_assert(sizeof(void*) != 8 || sizeof(LiteRtEnvOptionEntry) == 24, "LiteRtEnvOption ABI");
constexpr int kLiteRtEnvDispatchLibraryDir = 1;
constexpr int kLiteRtEnvRuntimeLibraryDir = 22;

// litert/c/litert_layout.h and litert_model_types.h: the ranked tensor type (72 bytes).
struct LiteRtLayoutValue {
  unsigned int rank : 7;
  unsigned int has_strides : 1;
  int32_t dimensions[8];
  uint32_t strides[8];
};
struct LiteRtRankedTensorTypeValue {
  int element_type;
  LiteRtLayoutValue layout;
};
static_assert(sizeof(LiteRtRankedTensorTypeValue) == 72, "LiteRtRankedTensorType ABI");

// litert/c/litert_environment.h
LiteRtStatus LiteRtCreateEnvironment(int num_options, const LiteRtEnvOptionEntry* options,
                                     LiteRtEnvironment* environment);
void LiteRtDestroyEnvironment(LiteRtEnvironment environment);

// litert/c/internal/litert_accelerator.h: the accelerators the environment registered.
LiteRtStatus LiteRtGetNumAccelerators(LiteRtEnvironment environment, LiteRtParamIndex* count);
LiteRtStatus LiteRtGetAccelerator(LiteRtEnvironment environment, LiteRtParamIndex index,
                                  LiteRtAccelerator* accelerator);
LiteRtStatus LiteRtGetAcceleratorName(const LiteRtAcceleratorT* accelerator, const char** name);
LiteRtStatus LiteRtGetAcceleratorHardwareSupport(const LiteRtAcceleratorT* accelerator,
                                                 LiteRtHwAcceleratorSet* hardware);

// litert/c/litert_model.h
LiteRtStatus LiteRtCreateModelFromFile(LiteRtEnvironment environment, const char* filename,
                                       LiteRtModel* model);
void LiteRtDestroyModel(LiteRtModel model);
LiteRtStatus LiteRtGetModelSignature(LiteRtModel model, LiteRtParamIndex index,
                                     LiteRtSignature* signature);
LiteRtStatus LiteRtGetNumSignatureInputs(LiteRtSignature signature, LiteRtParamIndex* count);
LiteRtStatus LiteRtGetNumSignatureOutputs(LiteRtSignature signature, LiteRtParamIndex* count);
LiteRtStatus LiteRtGetSignatureInputTensorByIndex(LiteRtSignature signature, LiteRtParamIndex index,
                                                  LiteRtTensor* tensor);
LiteRtStatus LiteRtGetSignatureOutputTensorByIndex(LiteRtSignature signature,
                                                   LiteRtParamIndex index, LiteRtTensor* tensor);
LiteRtStatus LiteRtGetRankedTensorType(LiteRtTensor tensor, LiteRtRankedTensorTypeValue* type);

// litert/c/litert_options.h and litert_opaque_options.h: compilation options; the CPU
// settings travel as an opaque option whose payload is a C string (TOML text), freed by the
// destructor passed along (litert/c/options/litert_cpu_options.cc builds it this way).
LiteRtStatus LiteRtCreateOptions(LiteRtOptions* options);
void LiteRtDestroyOptions(LiteRtOptions options);
LiteRtStatus LiteRtSetOptionsHardwareAccelerators(LiteRtOptions options,
                                                  LiteRtHwAcceleratorSet accelerators);
LiteRtStatus LiteRtAddOpaqueOptions(LiteRtOptions options, LiteRtOpaqueOptions opaque);
LiteRtStatus LiteRtCreateOpaqueOptions(const char* identifier, void* payload,
                                       void (*payload_destructor)(void*),
                                       LiteRtOpaqueOptions* options);
void LiteRtDestroyOpaqueOptions(LiteRtOpaqueOptions options);

// litert/c/litert_compiled_model.h
LiteRtStatus LiteRtCreateCompiledModel(LiteRtEnvironment environment, LiteRtModel model,
                                       LiteRtOptions options, LiteRtCompiledModel* compiled);
void LiteRtDestroyCompiledModel(LiteRtCompiledModel compiled);
LiteRtStatus LiteRtGetCompiledModelInputBufferRequirements(
    LiteRtCompiledModel compiled, LiteRtParamIndex signature, LiteRtParamIndex input,
    LiteRtTensorBufferRequirements* requirements);
LiteRtStatus LiteRtGetCompiledModelOutputBufferRequirements(
    LiteRtCompiledModel compiled, LiteRtParamIndex signature, LiteRtParamIndex output,
    LiteRtTensorBufferRequirements* requirements);
LiteRtStatus LiteRtRunCompiledModel(LiteRtCompiledModel compiled, LiteRtParamIndex signature,
                                    size_t num_inputs, LiteRtTensorBuffer* inputs,
                                    size_t num_outputs, LiteRtTensorBuffer* outputs);
LiteRtStatus LiteRtCompiledModelIsFullyAccelerated(LiteRtCompiledModel compiled, bool* fully);

// litert/c/litert_tensor_buffer.h
LiteRtStatus LiteRtCreateManagedTensorBufferFromRequirements(
    LiteRtEnvironment environment, const LiteRtRankedTensorTypeValue* type,
    LiteRtTensorBufferRequirements requirements, LiteRtTensorBuffer* buffer);
void LiteRtDestroyTensorBuffer(LiteRtTensorBuffer buffer);
LiteRtStatus LiteRtGetTensorBufferPackedSize(LiteRtTensorBuffer buffer, size_t* size);
LiteRtStatus LiteRtLockTensorBuffer(LiteRtTensorBuffer buffer, void** host_address, int lock_mode);
LiteRtStatus LiteRtUnlockTensorBuffer(LiteRtTensorBuffer buffer);

}  // extern "C"
