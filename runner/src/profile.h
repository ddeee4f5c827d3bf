// Profiling (`--profile N --profile-out FILE`, no traffic): every subgraph of the plan file
// invoked alone N times on its processor's worker, one line each in a TSV file
// (runner/README.md, "Profiling"): its model, index, processor, units, N, the median and
// minimum invoke time and the median copy time. The median of an even count is the lower of
// the two middle values (an observed time, as Python's statistics.median_low).
#pragma once

#include <string>

#include "executor.h"
#include "plan.h"

namespace runner {

// throws RunnerError when a job fails or the file cannot be written
void write_profile(const std::string& path, const Plan& plan, Executor& executor, int times);

}  // namespace runner
