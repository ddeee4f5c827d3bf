// ADMS's lp_split variant: the LP's shares per unit boundary and the deficit counts, as
// adms/lp_split.py (LpSplit.set, behind, count).
#pragma once

#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "decision.h"

namespace policies {

class LpSplit {
 public:
  // from the trace header's facts.lp_flow (model -> [[subgraph index, flow]]); counts reset
  void set(const Setup& setup);
  bool on() const { return on_; }
  // (position of the subgraph furthest behind its share at `unit`, candidates weighed)
  std::optional<std::pair<int, int>> behind(int model, int64_t unit) const;
  void count(const Subgraph& sg);

 private:
  bool on_ = false;
  // model -> unit -> (subgraph position, share), in plan order
  std::vector<std::map<int, std::vector<std::pair<int, double>>>> split_;
  std::map<std::pair<int, int>, int64_t> chosen_;  // (model, subgraph index)
  std::map<std::pair<int, int>, int64_t> at_;      // (model, unit)
  const Setup* setup_ = nullptr;
};

}  // namespace policies
