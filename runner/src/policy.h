// The seam where a scheduling policy plugs in. The executor tells the policy what happened
// (a request arrived, a subgraph ended, with its measured times) and asks it, after every
// event, what to start now and what to drop; the policy answers in subgraphs of the plan
// file. The executor owns everything else (time, workers, tensors, logs) and checks every
// answer: a request's subgraphs start in plan order, one at a time, and (unless the policy
// runs plans concurrently) one job at a time per processor.
//
// Two policies: the built-in PlannedPolicy below, and LibraryPolicy (library_policy.h), any
// policy of the C++ decision library (src/policies/) behind the Python runtime's queues.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

#include "plan.h"

namespace runner {

struct Arrival {
  int64_t request = 0;
  std::size_t model = 0;   // index into Plan::models
  int64_t arrival_ns = 0;  // CLOCK_REALTIME
  int64_t frame_id = -1;   // the frame (--frames), else -1
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
  std::size_t subgraph = 0;  // index into Plan::subgraphs: the request's next one
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
};

// The built-in policy: every subgraph on the processor the plan names, first come first
// served per processor (ready subgraphs in arrival order, then request id).
class PlannedPolicy : public Policy {
 public:
  explicit PlannedPolicy(const Plan& plan) : plan_(plan), idle_(plan.processors.size(), true) {}

  void arrive(const Arrival& a, int64_t) override {
    arrivals_[a.request] = a.arrival_ns;
    ready_.push_back({a.request, plan_.models[a.model].subgraphs.front(), a.arrival_ns});
  }
  void complete(const Ran& r, int64_t, Outcome&) override {
    const SubgraphSpec& sg = plan_.subgraphs[r.subgraph];
    idle_[sg.processor] = true;
    const auto& order = plan_.models[sg.model].subgraphs;
    if (sg.index + 1 < order.size()) {
      ready_.push_back({r.request, order[sg.index + 1], arrivals_.at(r.request)});
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
