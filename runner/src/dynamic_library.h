// A shared library opened with dlopen and closed when the object goes; symbols by name.
#pragma once

#include <dlfcn.h>

#include <string>

#include "errors.h"

namespace runner {

class DynamicLibrary {
 public:
  // throws RunnerError("<what> not available on this build/host: dlopen(...) failed: ...")
  DynamicLibrary(const std::string& file, const std::string& what) : file_(file) {
    handle_ = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle_ == nullptr) {
      const char* reason = dlerror();
      throw RunnerError(what + " not available on this build/host: dlopen(" + file +
                        ") failed: " + (reason != nullptr ? reason : "unknown reason"));
    }
  }
  ~DynamicLibrary() { dlclose(handle_); }
  DynamicLibrary(const DynamicLibrary&) = delete;
  DynamicLibrary& operator=(const DynamicLibrary&) = delete;

  // the symbol as a function pointer of type F; throws RunnerError when absent
  template <typename F>
  F symbol(const char* name) const {
    void* address = dlsym(handle_, name);
    if (address == nullptr) throw RunnerError(file_ + " has no symbol " + name);
    return reinterpret_cast<F>(address);
  }
  // nullptr when absent
  template <typename F>
  F optional_symbol(const char* name) const {
    return reinterpret_cast<F>(dlsym(handle_, name));
  }

 private:
  std::string file_;
  void* handle_ = nullptr;
};

}  // namespace runner
