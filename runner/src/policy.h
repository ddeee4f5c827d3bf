// The seam where a scheduling policy plugs in: a pure decision (no threads, clock or LiteRT)
// from an immutable view of the ready subgraphs and the idle processors to assignments. The
// decision library (vanilla, Band's schedulers, ADMS) will implement this interface; the
// executor owns everything else (time, queues, workers, tensors).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "plan.h"

namespace runner {

// A subgraph whose inputs are all available, waiting for a processor.
struct ReadyJob {
  int64_t request = 0;
  std::size_t model = 0;     // index into Plan::models
  std::size_t subgraph = 0;  // index into Plan::subgraphs
  int64_t arrival_ns = 0;    // the request's arrival (CLOCK_REALTIME)
};

struct PolicyView {
  int64_t now_ns = 0;
  const Plan* plan = nullptr;
  std::vector<ReadyJob> ready;  // in arrival order, then request id
  std::vector<bool> idle;       // per processor (Plan::processors)
};

struct Assignment {
  std::size_t job = 0;        // index into PolicyView::ready
  std::size_t processor = 0;  // index into Plan::processors; must be idle
};

class Policy {
 public:
  virtual ~Policy() = default;
  virtual std::vector<Assignment> decide(const PolicyView& view) const = 0;
};

// The built-in policy: every subgraph on the processor the plan names, first come first
// served per processor.
class PlannedPolicy : public Policy {
 public:
  std::vector<Assignment> decide(const PolicyView& view) const override {
    std::vector<Assignment> out;
    std::vector<bool> idle = view.idle;
    for (std::size_t j = 0; j < view.ready.size(); ++j) {
      std::size_t p = view.plan->subgraphs[view.ready[j].subgraph].processor;
      if (idle[p]) {
        idle[p] = false;
        out.push_back({j, p});
      }
    }
    return out;
  }
};

}  // namespace runner
