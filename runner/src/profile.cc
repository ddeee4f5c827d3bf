// Profiling every subgraph alone (see profile.h).
#include "profile.h"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <vector>

#include "errors.h"

namespace runner {
namespace {

int64_t median_low(std::vector<int64_t> values) {
  std::sort(values.begin(), values.end());
  return values[(values.size() - 1) / 2];
}

std::string line_of(const Plan& plan, const SubgraphSpec& sg, const std::vector<Completion>& runs) {
  std::vector<int64_t> invoke, copy;
  for (const Completion& c : runs) {
    invoke.push_back(c.invoke_ns);
    copy.push_back(c.copy_ns);
  }
  return plan.models[sg.model].name + "\t" + std::to_string(sg.index) + "\t" +
         plan.processors[sg.processor].name + "\t" + std::to_string(sg.first_unit) + "\t" +
         std::to_string(sg.last_unit) + "\t" + std::to_string(runs.size()) + "\t" +
         std::to_string(median_low(invoke)) + "\t" +
         std::to_string(*std::min_element(invoke.begin(), invoke.end())) + "\t" +
         std::to_string(median_low(copy)) + "\n";
}

}  // namespace

void write_profile(const std::string& path, const Plan& plan, Executor& executor, int times) {
  if (times < 1) throw UsageError("--profile wants at least 1 run");
  std::ofstream out(path);
  if (!out) throw RunnerError("cannot write the profile " + path);
  out << "model\tindex\tprocessor\tfirst_unit\tlast_unit\tn\tinvoke_ns_median\t"
         "invoke_ns_min\tcopy_ns_median\n";
  for (std::size_t k = 0; k < plan.subgraphs.size(); ++k) {
    out << line_of(plan, plan.subgraphs[k], executor.profile(k, times));
    out.flush();
  }
  if (!out) throw RunnerError("cannot write the profile " + path);
}

}  // namespace runner
