// What ADMS's decisions read of latencies, mirroring the Python: Band's moving-average
// estimator (baselines/band/estimator.py, LatencyEstimator: seed, update, expected) and the
// chain table of fastest remaining latencies (adms/chains.py, ChainTable: costs and handoffs,
// the programme over (unit, processor before), its partial re-solve after a changed cost).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "decision.h"

namespace policies {

// LatencyEstimator: per (model, subgraph index) an expected ns, unknown ones UNKNOWN_NS.
class Estimator {
 public:
  static constexpr int64_t kUnknownNs = (int64_t{1} << 31) * 1000;  // UNKNOWN_NS

  explicit Estimator(double alpha) : alpha_(alpha) {}
  void seed(const Setup& setup);
  // the new expected value, or nothing (and no change) for an unprofiled key
  std::optional<int64_t> update(int model, int index, int64_t latency_ns);
  int64_t expected(int model, int index) const;

 private:
  double alpha_;
  std::vector<std::vector<std::optional<int64_t>>> values_;  // [model][index]
};

// ChainTable (adms/chains.py): with handoffs (the device's time to move a subgraph's inputs
// when the subgraph before it ran on another processor) the programme runs over (unit, slot of
// the processor before):
//   after[u*width+q] = min over s starting at u of cost(s)
//       + (handoff(s) if u > 0 and q is another processor) + after[end(s)*width+p(s)]
// The slots are the plan's processors by name, then `none` (nothing ran before: no handoff).
class ChainTable {
 public:
  static constexpr int64_t kUnreachableNs = int64_t{1} << 61;

  // handoff: ns by position in the plan (empty: none)
  ChainTable(const Plan& plan, const Estimator& estimator,
             const std::vector<Processor>& processors, const std::vector<int64_t>& handoff);
  void set_cost(int subgraph_index, int64_t ns, bool refresh);
  const std::vector<int>& starting(int64_t unit) const { return plan_->candidates(unit); }
  bool stale() const { return stale_; }
  // after[u * width + q] for u in 0..n
  const std::vector<int64_t>& solve();
  const std::vector<int64_t>& cost() const { return cost_; }
  const std::vector<int>& end() const { return end_; }
  const std::vector<int>& proc() const { return proc_; }  // by position: its processor's slot
  int width() const { return none_ + 1; }
  int none() const { return none_; }
  bool hops() const { return hops_; }
  // the slot of a setup processor (-1 or not in the plan: none)
  int slot(int processor) const;
  // the handoff subgraph (position) k pays after a subgraph on slot q
  int64_t entry(std::size_t k, int q) const {
    return q == none_ || q == proc_[k] ? 0 : hand_[k];
  }

 private:
  const Plan* plan_;
  std::vector<int64_t> cost_;  // by position
  std::vector<int> end_, first_, proc_;
  std::vector<int64_t> hand_;
  std::vector<int> slots_;  // setup processor -> slot
  int none_ = 0;
  bool hops_ = false;
  std::vector<int64_t> after_;
  bool solved_ = false;
  int changed_ = -1;
  bool stale_ = true;
  void run();
  int64_t best(int u, int q) const;
};

}  // namespace policies
