// LiteRtRuntime: the environment (with its optional library folders) and the accelerators it
// registered; LiteRT registers GPU and NPU accelerators only when it finds their libraries.
#include "litert_runtime.h"

#include <vector>

#include "errors.h"

namespace runner {

void check(LiteRtStatus status, const std::string& what) {
  if (status != kLiteRtOk) {
    throw RunnerError(what + ": LiteRT status " + std::to_string(status));
  }
}

namespace {

LiteRtEnvOptionEntry folder_option(int tag, const std::string& folder) {
  LiteRtEnvOptionEntry entry{};
  entry.tag = tag;
  entry.value.type = kLiteRtAnyString;
  entry.value.as_string = folder.c_str();
  return entry;
}

}  // namespace

LiteRtRuntime::LiteRtRuntime(const RuntimeFolders& folders) : folders_(folders) {
  std::vector<LiteRtEnvOptionEntry> options;
  if (!folders_.runtime_library_dir.empty()) {
    options.push_back(folder_option(kLiteRtEnvRuntimeLibraryDir, folders_.runtime_library_dir));
  }
  if (!folders_.dispatch_library_dir.empty()) {
    options.push_back(folder_option(kLiteRtEnvDispatchLibraryDir, folders_.dispatch_library_dir));
  }
  check(LiteRtCreateEnvironment(static_cast<int>(options.size()), options.data(), &env_),
        "creating the LiteRT environment");
}

LiteRtRuntime::~LiteRtRuntime() { LiteRtDestroyEnvironment(env_); }

bool LiteRtRuntime::has_accelerator(LiteRtHwAcceleratorSet hardware) const {
  LiteRtParamIndex count = 0;
  if (LiteRtGetNumAccelerators(env_, &count) != kLiteRtOk) return false;
  for (LiteRtParamIndex i = 0; i < count; ++i) {
    LiteRtAccelerator accelerator = nullptr;
    LiteRtHwAcceleratorSet supported = 0;
    if (LiteRtGetAccelerator(env_, i, &accelerator) == kLiteRtOk &&
        LiteRtGetAcceleratorHardwareSupport(accelerator, &supported) == kLiteRtOk &&
        (supported & hardware) != 0) {
      return true;
    }
  }
  return false;
}

std::string LiteRtRuntime::accelerators() const {
  LiteRtParamIndex count = 0;
  std::string text;
  if (LiteRtGetNumAccelerators(env_, &count) != kLiteRtOk) return "none";
  for (LiteRtParamIndex i = 0; i < count; ++i) {
    LiteRtAccelerator accelerator = nullptr;
    const char* name = "?";
    LiteRtHwAcceleratorSet supported = 0;
    if (LiteRtGetAccelerator(env_, i, &accelerator) != kLiteRtOk) continue;
    LiteRtGetAcceleratorName(accelerator, &name);
    LiteRtGetAcceleratorHardwareSupport(accelerator, &supported);
    text += (text.empty() ? "" : ", ") + std::string(name) + " (" + std::to_string(supported) + ")";
  }
  return text.empty() ? "none" : text;
}

}  // namespace runner
