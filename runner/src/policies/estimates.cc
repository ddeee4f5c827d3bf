// The estimator and the chain table (see estimates.h), step for step as the Python.
#include "estimates.h"

#include "pyops.h"

namespace policies {

void Estimator::seed(const Setup& setup) {
  values_.assign(setup.plans.size(), {});
  for (std::size_t m = 0; m < setup.profile.size(); ++m) values_[m] = setup.profile[m];
}

std::optional<int64_t> Estimator::update(int model, int index, int64_t latency_ns) {
  auto& by_index = values_[static_cast<std::size_t>(model)];
  auto k = static_cast<std::size_t>(index);
  if (index < 0 || k >= by_index.size() || !by_index[k]) return std::nullopt;
  // int(alpha * latency + (1.0 - alpha) * prev): ints become doubles, then truncation
  double prev = static_cast<double>(*by_index[k]);
  int64_t value = py::trunc(alpha_ * static_cast<double>(latency_ns) + (1.0 - alpha_) * prev);
  by_index[k] = value;
  return value;
}

int64_t Estimator::expected(int model, int index) const {
  const auto& by_index = values_[static_cast<std::size_t>(model)];
  auto k = static_cast<std::size_t>(index);
  if (index < 0 || k >= by_index.size() || !by_index[k]) return kUnknownNs;
  return *by_index[k];
}

ChainTable::ChainTable(const Plan& plan, const Estimator& estimator) : plan_(&plan) {
  for (const Subgraph& sg : plan.subgraphs) {
    cost_.push_back(estimator.expected(sg.model, sg.index));
    end_.push_back(sg.last_unit() + 1);
    first_.push_back(sg.first_unit());
  }
}

void ChainTable::set_cost(int subgraph_index, int64_t ns, bool refresh) {
  const Subgraph* sg = plan_->by_index(subgraph_index);
  auto k = static_cast<std::size_t>(sg->position);
  cost_[k] = ns;
  if (first_[k] > changed_) changed_ = first_[k];
  if (refresh) stale_ = true;
}

const std::vector<int64_t>& ChainTable::rest() {
  if (!solved_ || stale_) {
    solve();
    solved_ = true;
    changed_ = -1;
    stale_ = false;
  }
  return rest_;
}

void ChainTable::solve() {
  int n = plan_->num_units;
  int top;
  if (!solved_) {
    rest_.assign(static_cast<std::size_t>(n) + 1, kUnreachableNs);
    rest_[static_cast<std::size_t>(n)] = 0;
    top = n - 1;
  } else {
    top = changed_ < n - 1 ? changed_ : n - 1;
  }
  for (int u = top; u >= 0; --u) {
    int64_t best = kUnreachableNs;
    for (int k : plan_->candidates(u)) {
      int64_t ns = cost_[static_cast<std::size_t>(k)] +
                   rest_[static_cast<std::size_t>(end_[static_cast<std::size_t>(k)])];
      if (ns < best) best = ns;
    }
    rest_[static_cast<std::size_t>(u)] = best;
  }
}

}  // namespace policies
