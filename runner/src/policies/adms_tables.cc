// What ADMS's decisions read of each model, cached between decisions, step for step as
// adms/tables.py (Tables): its chain table (costs and handoffs at the current estimates), each
// processor's fastest way to finish the model from a unit after a subgraph on a processor
// (options), and what jobs of one kind share (Kind). Every re-solve (subgraphs x columns
// solved) and every candidate weighed is counted in `work`.
#include "adms.h"
#include "pyops.h"

namespace policies::adms {
namespace {

constexpr int64_t kNsPerMs = 1000000;

}  // namespace

Tables::Tables(const Setup& setup, const Estimator& estimator)
    : setup_(setup), estimator_(estimator), handoff_(setup.plans.size()),
      tables_(setup.plans.size()), options_(setup.plans.size()), kinds_(setup.plans.size()) {}

void Tables::set_handoffs(const json::Value* handoff) {
  handoff_.assign(setup_.plans.size(), {});
  if (handoff != nullptr && !handoff->is_null()) {
    for (const auto& [model, rows] : handoff->fields) {
      int m = setup_.model_index(model);
      if (m < 0) continue;  // (a model no plan has: no table reads it)
      const Plan& plan = setup_.plans[static_cast<std::size_t>(m)];
      auto& by_position = handoff_[static_cast<std::size_t>(m)];
      for (const auto& row : rows.items) {
        const Subgraph* sg = plan.by_index(static_cast<int>(row[0].as_int()));
        if (sg == nullptr) continue;
        if (by_position.empty()) by_position.assign(plan.subgraphs.size(), 0);
        by_position[static_cast<std::size_t>(sg->position)] = row[1].as_int();
      }
    }
  }
  for (std::size_t m = 0; m < setup_.plans.size(); ++m) forget(static_cast<int>(m));
}

void Tables::drop_options(int model) {
  options_[static_cast<std::size_t>(model)].clear();
  kinds_[static_cast<std::size_t>(model)].clear();
}

void Tables::forget(int model) {
  tables_[static_cast<std::size_t>(model)].reset();
  drop_options(model);
}

void Tables::update(const Subgraph& sg, bool refresh, std::optional<int64_t> ns) {
  auto& table = tables_[static_cast<std::size_t>(sg.model)];
  if (table) table->set_cost(sg.index, ns ? *ns : estimator_.expected(sg.model, sg.index), refresh);
  if (refresh) drop_options(sg.model);
}

ChainTable& Tables::table(int model) {
  auto& table = tables_[static_cast<std::size_t>(model)];
  if (!table)
    table = std::make_unique<ChainTable>(setup_.plans[static_cast<std::size_t>(model)], estimator_,
                                         setup_.processors,
                                         handoff_[static_cast<std::size_t>(model)]);
  return *table;
}

ChainTable& Tables::solved(int model) {
  ChainTable& t = table(model);
  if (t.stale()) {
    auto n = static_cast<int64_t>(setup_.plans[static_cast<std::size_t>(model)].subgraphs.size());
    work += n * (t.hops() ? t.width() : 1);
  }
  t.solve();
  return t;
}

int64_t Tables::through(int model, const Subgraph& sg, int last) {
  ChainTable& t = solved(model);
  const std::vector<int64_t>& after = t.solve();
  auto k = static_cast<std::size_t>(sg.position);
  auto w = static_cast<std::size_t>(t.width());
  return t.entry(k, t.slot(last)) + t.cost()[k] +
         after[static_cast<std::size_t>(t.end()[k]) * w + static_cast<std::size_t>(t.proc()[k])];
}

const Options& Tables::options(int model, int64_t next_unit, int last) {
  ChainTable& t = solved(model);
  const std::vector<int64_t>& after = t.solve();
  int q = t.slot(last);
  int64_t key = next_unit * t.width() + q;
  auto& by_key = options_[static_cast<std::size_t>(model)];
  auto cached = by_key.find(key);
  if (cached != by_key.end()) return cached->second;
  const Plan& plan = setup_.plans[static_cast<std::size_t>(model)];
  const auto& starting = t.starting(next_unit);
  work += static_cast<int64_t>(plan.candidates(next_unit).size());
  auto w = static_cast<std::size_t>(t.width());
  Options out;  // _fastest: per processor the first of the least handoff + cost + rest after it
  for (int k : starting) {
    auto uk = static_cast<std::size_t>(k);
    auto next = static_cast<std::size_t>(t.end()[uk]) * w + static_cast<std::size_t>(t.proc()[uk]);
    int64_t ns = t.entry(uk, q) + t.cost()[uk] + after[next];
    const Subgraph& sg = plan.subgraphs[uk];
    Option* best = nullptr;
    for (Option& o : out)
      if (o.processor == sg.processor) best = &o;
    if (best == nullptr) {
      out.push_back({sg.processor, ns, k});
    } else if (ns < best->ns) {
      *best = {sg.processor, ns, k};
    }
  }
  return by_key[key] = std::move(out);
}

Options Tables::allowed(int model, int64_t next_unit, int last, const std::vector<bool>& hot) {
  const Options& opts = options(model, next_unit, last);
  bool any_hot = false;
  for (const Option& o : opts) any_hot = any_hot || hot[static_cast<std::size_t>(o.processor)];
  if (!any_hot) return opts;
  Options cool;
  for (const Option& o : opts)
    if (!hot[static_cast<std::size_t>(o.processor)]) cool.push_back(o);
  return cool.empty() ? opts : cool;
}

const Kind& Tables::kind(int model, int64_t next_unit, int last, const std::vector<bool>& hot) {
  ChainTable& t = solved(model);
  const std::vector<int64_t>& after = t.solve();
  int64_t key = next_unit * t.width() + t.slot(last);
  auto& by_key = kinds_[static_cast<std::size_t>(model)];
  auto cached = by_key.find(key);
  if (cached != by_key.end() && cached->second.hot == hot) return cached->second;
  Kind k;
  k.hot = hot;
  k.avg_ns = after[static_cast<std::size_t>(t.none())];  // (unit 0, nothing before)
  int64_t remaining_ns = after[static_cast<std::size_t>(key)];
  k.options = allowed(model, next_unit, last, hot);
  k.avg_ms = py::truediv(k.avg_ns, kNsPerMs);
  k.remaining_ms = py::truediv(remaining_ns, kNsPerMs);
  return by_key[key] = std::move(k);
}

}  // namespace policies::adms
