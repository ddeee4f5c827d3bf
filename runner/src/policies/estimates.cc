// The estimator and the chain table (see estimates.h), step for step as the Python.
#include "estimates.h"

#include <algorithm>
#include <string>

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

ChainTable::ChainTable(const Plan& plan, const Estimator& estimator,
                       const std::vector<Processor>& processors,
                       const std::vector<int64_t>& handoff)
    : plan_(&plan) {
  std::vector<std::string> names;  // the plan's processors, sorted by name
  for (const Subgraph& sg : plan.subgraphs) {
    const std::string& name = processors[static_cast<std::size_t>(sg.processor)].name;
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  none_ = static_cast<int>(names.size());
  slots_.assign(processors.size(), none_);
  for (std::size_t p = 0; p < processors.size(); ++p) {
    auto at = std::find(names.begin(), names.end(), processors[p].name);
    if (at != names.end()) slots_[p] = static_cast<int>(at - names.begin());
  }
  for (const Subgraph& sg : plan.subgraphs) {
    cost_.push_back(estimator.expected(sg.model, sg.index));
    end_.push_back(sg.last_unit() + 1);
    first_.push_back(sg.first_unit());
    proc_.push_back(slots_[static_cast<std::size_t>(sg.processor)]);
    auto k = static_cast<std::size_t>(sg.position);
    int64_t ns = handoff.empty() || sg.first_unit() == 0 ? 0 : handoff[k];
    hand_.push_back(ns);
    hops_ = hops_ || ns != 0;
  }
}

int ChainTable::slot(int processor) const {
  if (processor < 0 || static_cast<std::size_t>(processor) >= slots_.size()) return none_;
  return slots_[static_cast<std::size_t>(processor)];
}

void ChainTable::set_cost(int subgraph_index, int64_t ns, bool refresh) {
  const Subgraph* sg = plan_->by_index(subgraph_index);
  auto k = static_cast<std::size_t>(sg->position);
  cost_[k] = ns;
  if (first_[k] > changed_) changed_ = first_[k];
  if (refresh) stale_ = true;
}

const std::vector<int64_t>& ChainTable::solve() {
  if (!solved_ || stale_) {
    run();
    solved_ = true;
    changed_ = -1;
    stale_ = false;
  }
  return after_;
}

void ChainTable::run() {
  int n = plan_->num_units;
  auto w = static_cast<std::size_t>(width());
  int top;
  if (!solved_) {
    after_.assign((static_cast<std::size_t>(n) + 1) * w, kUnreachableNs);
    for (std::size_t q = 0; q < w; ++q) after_[static_cast<std::size_t>(n) * w + q] = 0;
    top = n - 1;
  } else {
    top = changed_ < n - 1 ? changed_ : n - 1;
  }
  for (int u = top; u >= 0; --u) {
    auto row = static_cast<std::size_t>(u) * w;
    if (hops_ && u > 0) {
      for (std::size_t q = 0; q < w; ++q) after_[row + q] = best(u, static_cast<int>(q));
    } else {  // (no handoff into unit u: every column is the same)
      int64_t b = best(u, none_);
      for (std::size_t q = 0; q < w; ++q) after_[row + q] = b;
    }
  }
}

int64_t ChainTable::best(int u, int q) const {
  auto w = static_cast<std::size_t>(width());
  int64_t out = kUnreachableNs;
  for (int k : plan_->candidates(u)) {
    auto uk = static_cast<std::size_t>(k);
    auto next = static_cast<std::size_t>(end_[uk]) * w + static_cast<std::size_t>(proc_[uk]);
    int64_t ns = cost_[uk] + entry(uk, q) + after_[next];
    if (ns < out) out = ns;
  }
  return out;
}

}  // namespace policies
