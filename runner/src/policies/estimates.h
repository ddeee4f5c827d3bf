// What ADMS's decisions read of latencies, mirroring the Python: Band's moving-average
// estimator (baselines/band/estimator.py, LatencyEstimator: seed, update, expected) and the
// chain table of fastest remaining latencies (adms/chains.py, ChainTable: costs, the `rest`
// programme, its partial re-solve after a changed cost).
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

// ChainTable: rest[u] = min over subgraphs s starting at u of cost(s) + rest[s.last_unit+1].
class ChainTable {
 public:
  static constexpr int64_t kUnreachableNs = int64_t{1} << 61;

  ChainTable(const Plan& plan, const Estimator& estimator);
  void set_cost(int subgraph_index, int64_t ns, bool refresh);
  const std::vector<int>& starting(int64_t unit) const { return plan_->candidates(unit); }
  bool stale() const { return stale_; }
  const std::vector<int64_t>& rest();
  const std::vector<int64_t>& cost() const { return cost_; }
  const std::vector<int>& end() const { return end_; }

 private:
  const Plan* plan_;
  std::vector<int64_t> cost_;  // by position
  std::vector<int> end_, first_;
  std::vector<int64_t> rest_;
  bool solved_ = false;
  int changed_ = -1;
  bool stale_ = true;
  void solve();
};

}  // namespace policies
