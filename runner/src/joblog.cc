// Writing the job and request logs; stdio buffering keeps writes out of the critical path,
// and the executor flushes them every second (a killed runner keeps its lines up to then;
// the last one may be cut) and when the run ends.
#include "joblog.h"

#include <cinttypes>

#include "errors.h"

namespace runner {

LogFile::LogFile(const std::string& path, const char* header) {
  if (path.empty()) return;
  file_ = std::fopen(path.c_str(), "w");
  if (file_ == nullptr) throw RunnerError("cannot write log " + path);
  std::fputs(header, file_);
}

LogFile::~LogFile() {
  if (file_ != nullptr) std::fclose(file_);
}

RunLog::RunLog(const std::string& jobs_path, const std::string& requests_path)
    : jobs_(jobs_path,
            "request\tmodel\tsubgraph\tprocessor\tstart_ns\tend_ns\tcopy_ns\tinvoke_ns\n"),
      requests_(requests_path, "request\tmodel\tarrival_ns\tend_ns\n") {}

void RunLog::job(const Plan& plan, const Completion& c) {
  if (jobs_.get() == nullptr) return;
  const SubgraphSpec& s = plan.subgraphs[c.subgraph];
  std::fprintf(
      jobs_.get(), "%" PRId64 "\t%s\t%zu\t%s\t%" PRId64 "\t%" PRId64 "\t%" PRId64 "\t%" PRId64 "\n",
      c.request, plan.models[s.model].name.c_str(), s.index,
      plan.processors[c.processor].name.c_str(), c.start_ns, c.end_ns, c.copy_ns, c.invoke_ns);
}

void RunLog::request(const Plan& plan, int64_t request, std::size_t model, int64_t arrival_ns,
                     int64_t end_ns) {
  if (requests_.get() == nullptr) return;
  std::fprintf(requests_.get(), "%" PRId64 "\t%s\t%" PRId64 "\t%" PRId64 "\n", request,
               plan.models[model].name.c_str(), arrival_ns, end_ns);
}

void RunLog::flush() {
  jobs_.flush();
  requests_.flush();
}

}  // namespace runner
