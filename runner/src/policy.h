// The seam where a scheduling policy plugs in. The executor tells the policy what happened
// (a request arrived, a subgraph ended, with its measured times) and asks it, after every
// event, what to start now and what to drop; the policy answers in subgraphs of the plan
// file. The executor owns everything else (time, workers, tensors, logs) and checks every
// answer: a request's subgraphs start at its next unit, one at a time, and (unless the policy
// runs plans concurrently) one job at a time per processor.
//
// Two policies: the built-in PlannedPolicy below, and LibraryPolicy (library_policy.h), any
// policy of the C++ decision library (src/policies/) behind the Python runtime's queues.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <vector>

#include "plan.h"

namespace runner {

struct Arrival {
  int64_t request = 0;
  std::size_t model = 0;   // index into Plan::models
  int64_t arrival_ns = 0;  // CLOCK_REALTIME
  int64_t frame_id = -1;   // as the Python traffic numbers it (traffic.h)
  int64_t stream = 0;      // as the Python traffic numbers it (traffic.h)
};

// a subgraph that ran, as measured by its worker
struct Ran {
  int64_t request = 0;
  std::size_t subgraph = 0;  // index into Plan::subgraphs
  int64_t start_ns = 0, end_ns = 0;
  bool ok = true;
};

struct Start {
  int64_t request = 0;
  std::size_t subgraph = 0;  // index into Plan::subgraphs, starting at the request's next unit
};

// what a policy answers to an event: subgraphs to start now, requests to drop
struct Outcome {
  std::vector<Start> starts;
  std::vector<int64_t> drops;
};

class Policy {
 public:
  virtual ~Policy() = default;
  virtual void arrive(const Arrival& arrival, int64_t now_ns) = 0;
  // `ran` ended at now_ns; a processor's next waiting subgraph may start (into out.starts)
  virtual void complete(const Ran& ran, int64_t now_ns, Outcome& out) = 0;
  virtual void decide(int64_t now_ns, Outcome& out) = 0;
  // subgraphs may be started on a busy processor (its worker runs them in turn)
  virtual bool concurrent() const { return false; }
  // writes out what its own logs hold so far (at least every second during a run)
  virtual void flush() {}
};

// The built-in policy: every subgraph on the processor the plan names, first come first
// served per processor (ready subgraphs in arrival order, then request id); among
// alternatives, the first in file order that starts at the request's next unit.
class PlannedPolicy : public Policy {
 public:
  explicit PlannedPolicy(const Plan& plan) : plan_(plan), idle_(plan.processors.size(), true) {}

  void arrive(const Arrival& a, int64_t) override {
    arrivals_[a.request] = a.arrival_ns;
    ready_.push_back({a.request, plan_.first_starting(a.model, 0), a.arrival_ns});
  }
  void complete(const Ran& r, int64_t, Outcome&) override {
    const SubgraphSpec& sg = plan_.subgraphs[r.subgraph];
    idle_[sg.processor] = true;
    if (sg.last_unit + 1 < plan_.models[sg.model].num_units) {
      std::size_t next = plan_.first_starting(sg.model, sg.last_unit + 1);
      if (next == Plan::npos) throw std::runtime_error("no subgraph starts at the next unit");
      ready_.push_back({r.request, next, arrivals_.at(r.request)});
    } else {
      arrivals_.erase(r.request);
    }
  }
  void decide(int64_t, Outcome& out) override {
    std::stable_sort(ready_.begin(), ready_.end(), [](const Ready& a, const Ready& b) {
      return a.arrival_ns != b.arrival_ns ? a.arrival_ns < b.arrival_ns : a.request < b.request;
    });
    std::size_t kept = 0;
    for (const Ready& r : ready_) {
      std::size_t p = plan_.subgraphs[r.subgraph].processor;
      if (idle_[p]) {
        idle_[p] = false;
        out.starts.push_back({r.request, r.subgraph});
      } else {
        ready_[kept++] = r;
      }
    }
    ready_.resize(kept);
  }

 private:
  struct Ready {
    int64_t request;
    std::size_t subgraph;
    int64_t arrival_ns;
  };
  const Plan& plan_;
  std::vector<bool> idle_;
  std::vector<Ready> ready_;
  std::map<int64_t, int64_t> arrivals_;  // active request -> its arrival
};

}  // namespace runner
