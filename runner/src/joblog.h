// The run's logs, tab-separated with a header line, times in CLOCK_REALTIME nanoseconds:
// jobs (one line per executed subgraph) and, optionally, requests (one line per request).
#pragma once

#include <cstdio>
#include <string>

#include "plan.h"
#include "worker.h"

namespace runner {

class LogFile {
 public:
  // an empty path gives a log that writes nothing
  LogFile(const std::string& path, const char* header);
  ~LogFile();
  LogFile(const LogFile&) = delete;
  LogFile& operator=(const LogFile&) = delete;
  std::FILE* get() const { return file_; }
  void flush() {
    if (file_ != nullptr) std::fflush(file_);
  }

 private:
  std::FILE* file_ = nullptr;
};

class RunLog {
 public:
  RunLog(const std::string& jobs_path, const std::string& requests_path);
  void job(const Plan& plan, const Completion& c);
  void request(const Plan& plan, int64_t request, std::size_t model, int64_t arrival_ns,
               int64_t end_ns);
  void flush();

 private:
  LogFile jobs_, requests_;
};

}  // namespace runner
