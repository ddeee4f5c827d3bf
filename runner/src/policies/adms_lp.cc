// lp_split's shares and deficits (see adms_lp.h).
#include "adms_lp.h"

namespace policies {

void LpSplit::set(const Setup& setup) {
  setup_ = &setup;
  on_ = !setup.plans.empty();  // (Python: the split dict has an entry per model)
  split_.assign(setup.plans.size(), {});
  chosen_.clear();
  at_.clear();
  const json::Value* flows = setup.facts.find("lp_flow");
  for (std::size_t m = 0; m < setup.plans.size(); ++m) {
    const Plan& plan = setup.plans[m];
    std::map<int, double> flow;  // subgraph index -> flow
    const json::Value* rows = flows == nullptr ? nullptr : flows->find(plan.model);
    if (rows != nullptr)
      for (const auto& row : rows->items) flow[static_cast<int>(row[0].as_int())] = row[1].as_double();
    std::map<int, std::vector<std::pair<int, double>>> by_unit;
    for (const Subgraph& sg : plan.subgraphs) {
      auto f = flow.find(sg.index);
      if (f != flow.end() && f->second > 0) by_unit[sg.first_unit()].push_back({sg.position, f->second});
    }
    for (auto& [unit, entries] : by_unit) {
      // Python's sum() from int 0, left to right (Python 3.11; 3.12 compensates)
      double total = 0.0;
      bool first = true;
      for (const auto& e : entries) {
        total = first ? e.second : total + e.second;
        first = false;
      }
      for (auto& e : entries) e.second = e.second / total;
    }
    split_[m] = std::move(by_unit);
  }
}

std::optional<std::pair<int, int>> LpSplit::behind(int model, int64_t unit) const {
  const auto& by_unit = split_[static_cast<std::size_t>(model)];
  auto it = by_unit.find(static_cast<int>(unit));
  if (it == by_unit.end() || it->second.empty()) return std::nullopt;
  auto at = at_.find({model, static_cast<int>(unit)});
  int64_t made = (at == at_.end() ? 0 : at->second) + 1;
  const Plan& plan = setup_->plans[static_cast<std::size_t>(model)];
  // max of (share * made - chosen, share, -index): the first of equal ones
  bool have = false;
  double best_deficit = 0.0, best_share = 0.0;
  int best_neg_index = 0, best_position = -1;
  for (const auto& [position, share] : it->second) {
    const Subgraph& sg = plan.subgraphs[static_cast<std::size_t>(position)];
    auto c = chosen_.find({model, sg.index});
    double deficit = share * static_cast<double>(made) -
                     static_cast<double>(c == chosen_.end() ? 0 : c->second);
    int neg_index = -sg.index;
    bool greater = !have || deficit > best_deficit ||
                   (deficit == best_deficit &&
                    (share > best_share || (share == best_share && neg_index > best_neg_index)));
    if (greater) {
      have = true;
      best_deficit = deficit;
      best_share = share;
      best_neg_index = neg_index;
      best_position = position;
    }
  }
  return std::make_pair(best_position, static_cast<int>(it->second.size()));
}

void LpSplit::count(const Subgraph& sg) {
  const auto& by_unit = split_[static_cast<std::size_t>(sg.model)];
  if (by_unit.find(sg.first_unit()) == by_unit.end()) return;
  chosen_[{sg.model, sg.index}] += 1;
  at_[{sg.model, sg.first_unit()}] += 1;
}

}  // namespace policies
