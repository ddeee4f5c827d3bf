// A deterministic run of the executor (--simulate): no slice is loaded; each subgraph "runs"
// for the latency a table gives it, on a virtual clock that starts at 0 and jumps from one
// completion to the next. Each processor runs its jobs one at a time in the order sent, as a
// Worker does; a job sent to an idle processor starts at once. Completions due at the same
// instant are delivered in the order their jobs started, one at a time (the executor decides
// after each), and before a timed arrival due at that instant, as the Python runtime's
// simulated clock (harness/seams/clocks.py SimClock) orders them. The executor, its traffic
// and its policy run unchanged, so a run's job and request logs can be compared row for row
// with the Python runtime's on the same table (tests/runner/test_runner_differential.py).
//
// The table: one `<model> <index> <latency_ns>` line per plan subgraph (`#` starts a
// comment); a subgraph missing from it, an unknown one or a negative latency is refused.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "plan.h"
#include "timeline.h"
#include "worker.h"

namespace runner {

// plan subgraph -> latency in ns, read from `path`; throws RunnerError naming the line
std::vector<int64_t> read_latencies(const Plan& plan, const std::string& path);

class Simulation : public Timeline {
 public:
  Simulation(const Plan& plan, std::vector<int64_t> latencies)
      : plan_(plan), latencies_(std::move(latencies)) {}
  // the simulated processor p (for Executor's MakeRunner)
  std::unique_ptr<JobRunner> processor(std::size_t p, JobRunner::OnDone on_done);

  int64_t now_ns() override { return now_ns_; }
  // delivers the next completion due by `deadline_ns` (the lock released meanwhile), or
  // moves the clock to the deadline; throws RunnerError when nothing runs and nothing is due
  void wait_until(std::unique_lock<std::mutex>& lock, std::condition_variable& wake,
                  int64_t deadline_ns, int64_t next_arrival_ns) override;

 private:
  class Processor;
  void started(Processor* processor, int64_t end_ns);

  const Plan& plan_;
  std::vector<int64_t> latencies_;
  int64_t now_ns_ = 0;
  int64_t started_ = 0;  // jobs started so far: orders completions of one instant
  std::set<std::tuple<int64_t, int64_t, Processor*>> ends_;  // (end, start order, processor)
};

}  // namespace runner
