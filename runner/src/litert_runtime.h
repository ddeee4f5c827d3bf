// The LiteRT environment of one run, shared by the LiteRT backends of every worker: created
// once in main with the folders where LiteRT looks for accelerator and dispatch libraries.
#pragma once

#include <string>

#include "litert_c_api.h"

namespace runner {

struct RuntimeFolders {
  std::string runtime_library_dir;   // GPU accelerator libraries (env option 22); may be empty
  std::string dispatch_library_dir;  // NPU dispatch libraries (env option 1); may be empty
};

class LiteRtRuntime {
 public:
  explicit LiteRtRuntime(const RuntimeFolders& folders);
  ~LiteRtRuntime();
  LiteRtRuntime(const LiteRtRuntime&) = delete;
  LiteRtRuntime& operator=(const LiteRtRuntime&) = delete;

  LiteRtEnvironment environment() const { return env_; }
  // whether a registered accelerator supports `hardware` (kLiteRtAccelGpu, kLiteRtAccelNpu)
  bool has_accelerator(LiteRtHwAcceleratorSet hardware) const;
  // "name (hardware bits), ..." of the registered accelerators, for messages
  std::string accelerators() const;
  const RuntimeFolders& folders() const { return folders_; }

 private:
  RuntimeFolders folders_;
  LiteRtEnvironment env_ = nullptr;
};

// throws RunnerError("<what>: LiteRT status <status>") unless status is kLiteRtOk
void check(LiteRtStatus status, const std::string& what);

}  // namespace runner
