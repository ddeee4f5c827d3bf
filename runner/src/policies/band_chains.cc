// Band's shortest-latency search, step for step as baselines/band/chains.py (FlatPlan.of,
// _programme) and planner.py (ChainFinder.steps, shortest): among subgraphs of one unit
// range the later in the plan wins (<=), among ranges ending at one unit the one starting
// latest wins (first strict minimum).
#include <algorithm>
#include <map>
#include <utility>

#include "band.h"

namespace policies::band {
namespace {

constexpr int64_t kNone = -1;

}  // namespace

FlatPlan::FlatPlan(const Plan& plan) {
  std::map<std::pair<int, int>, std::vector<int>> ranges;  // (first, last) -> positions
  int n = plan.num_units;
  for (const Subgraph& sg : plan.subgraphs) {
    ranges[{sg.first_unit(), sg.last_unit()}].push_back(sg.position);
    n = std::max(n, sg.last_unit() + 1);
  }
  std::vector<std::pair<int, int>> order;
  for (const auto& entry : ranges) order.push_back(entry.first);
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second < b.second : a.first > b.first;
  });
  end_ptr.assign(static_cast<std::size_t>(n) + 1, 0);
  for (const auto& r : order) end_ptr[static_cast<std::size_t>(r.second) + 1] += 1;
  for (std::size_t j = 1; j < end_ptr.size(); ++j) end_ptr[j] += end_ptr[j - 1];
  sg_ptr.push_back(0);
  for (const auto& r : order) {
    start.push_back(r.first);
    for (int k : ranges[r]) position.push_back(k);
    sg_ptr.push_back(static_cast<int>(position.size()));
  }
  int top = plan.num_units;
  for (const Subgraph& sg : plan.subgraphs) top = std::max(top, sg.first_unit());
  steps.assign(static_cast<std::size_t>(top) + 1, 0);
  for (const Subgraph& sg : plan.subgraphs)
    if (sg.first_unit() >= 0) steps[static_cast<std::size_t>(sg.first_unit())] += 1;
  for (std::size_t u = steps.size() - 1; u > 0; --u) steps[u - 1] += steps[u];
}

ChainFinder::ChainFinder(const Setup& setup) : setup_(&setup) {
  for (const Plan& plan : setup.plans) flat_.emplace_back(plan);
}

int64_t ChainFinder::steps(int model, int64_t next_unit) const {
  const auto& counts = flat_[static_cast<std::size_t>(model)].steps;
  if (next_unit < 0 || next_unit >= static_cast<int64_t>(counts.size())) return 0;
  return counts[static_cast<std::size_t>(next_unit)];
}

std::optional<Chain> ChainFinder::shortest(int model, int64_t next_unit,
                                           const std::vector<int64_t>& waiting,
                                           const std::vector<int64_t>& costs) const {
  const FlatPlan& f = flat_[static_cast<std::size_t>(model)];
  const Plan& plan = setup_->plans[static_cast<std::size_t>(model)];
  int64_t n = static_cast<int64_t>(f.end_ptr.size()) - 1;
  int64_t end = plan.num_units - 1;
  if (next_unit > end) return std::nullopt;
  std::vector<int64_t> finish(static_cast<std::size_t>(n), kNone), last(finish), first(finish);
  for (int64_t j = next_unit; j < n; ++j) {
    auto uj = static_cast<std::size_t>(j);
    int64_t best = kNone;
    for (int r = f.end_ptr[uj]; r < f.end_ptr[uj + 1]; ++r) {
      int64_t i = f.start[static_cast<std::size_t>(r)];
      if (i < next_unit || (i > next_unit && finish[static_cast<std::size_t>(i - 1)] == kNone))
        continue;
      int64_t begin = i > next_unit ? finish[static_cast<std::size_t>(i - 1)] : 0;
      int64_t pick = kNone, pick_ns = kNone;
      for (int s = f.sg_ptr[static_cast<std::size_t>(r)]; s < f.sg_ptr[static_cast<std::size_t>(r) + 1]; ++s) {
        int k = f.position[static_cast<std::size_t>(s)];
        int64_t wait = waiting[static_cast<std::size_t>(plan.subgraphs[static_cast<std::size_t>(k)].processor)];
        int64_t total = costs[static_cast<std::size_t>(k)] + (wait > begin ? wait : begin);
        if (pick_ns < 0 || total <= pick_ns) {
          pick = k;
          pick_ns = total;
        }
      }
      if (best == kNone || pick_ns < best) {
        best = pick_ns;
        last[uj] = pick;
        first[uj] = i;
      }
    }
    finish[uj] = best;
  }
  if (end < 0 || finish[static_cast<std::size_t>(end)] == kNone) return std::nullopt;
  Chain chain;
  chain.finish_ns = finish[static_cast<std::size_t>(end)];
  for (int64_t j = end; j >= next_unit; j = first[static_cast<std::size_t>(j)] - 1)
    chain.positions.push_back(static_cast<int>(last[static_cast<std::size_t>(j)]));
  std::reverse(chain.positions.begin(), chain.positions.end());
  return chain;
}

}  // namespace policies::band
