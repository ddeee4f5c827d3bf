// Setup from a decision trace's header (docs/decision-traces.md), the registry, and the
// plan lookups every policy shares.
#include <stdexcept>

#include "decision.h"

namespace policies {
namespace {

// bounds on what a header may size (a trace from a real run is far below them): a bad or
// fuzzed header is one error, not an allocation of its numbers' size
constexpr int64_t kMaxUnits = 1 << 16;
constexpr int64_t kMaxIndex = 1 << 20;

std::map<std::string, Factory>& registry() {
  static std::map<std::string, Factory> factories;
  return factories;
}

Plan plan_of(const json::Value& obj, const Setup& setup, int model) {
  Plan plan;
  plan.model = obj["model"].as_string();
  int64_t units = obj["units"].as_int();
  if (units < 1 || units > kMaxUnits)
    throw std::runtime_error("plan of " + plan.model + " has " + std::to_string(units) +
                             " units (1 to " + std::to_string(kMaxUnits) + " allowed)");
  plan.num_units = static_cast<int>(units);
  plan.window_size = static_cast<int>(obj["window_size"].as_int());
  plan.shared_interpreter = obj["shared_interpreter"].as_bool();
  plan.concurrent = obj["concurrent"].as_bool();
  for (const auto& support : obj["unit_support"].items) {
    plan.unit_support.emplace_back();
    for (const auto& p : support.items) plan.unit_support.back().push_back(p.as_string());
  }
  plan.starting.resize(static_cast<std::size_t>(plan.num_units));
  for (const auto& s : obj["subgraphs"].items) {
    Subgraph sg;
    int64_t index = s["index"].as_int();
    if (index < 0 || index >= kMaxIndex)
      throw std::runtime_error("subgraph index " + std::to_string(index) + " out of range");
    sg.index = static_cast<int>(index);
    sg.position = static_cast<int>(plan.subgraphs.size());
    sg.model = model;
    sg.processor = setup.processor_index(s["processor"].as_string());
    if (sg.processor < 0) throw std::runtime_error("plan names unknown processor");
    for (const auto& u : s["units"].items) {
      int64_t unit = u.as_int();
      if (unit < 0 || unit >= units)
        throw std::runtime_error("subgraph unit " + std::to_string(unit) + " out of range");
      sg.units.push_back(static_cast<int>(unit));
    }
    if (sg.units.empty()) throw std::runtime_error("subgraph without units");
    plan.starting[static_cast<std::size_t>(sg.first_unit())].push_back(sg.position);
    plan.subgraphs.push_back(std::move(sg));
  }
  return plan;
}

}  // namespace

const std::vector<int>& Plan::candidates(int64_t unit) const {
  static const std::vector<int> none;
  if (unit < 0 || unit >= static_cast<int64_t>(starting.size())) return none;
  return starting[static_cast<std::size_t>(unit)];
}

const Subgraph* Plan::by_index(int index) const {
  for (const auto& sg : subgraphs)
    if (sg.index == index) return &sg;
  return nullptr;
}

int Setup::model_index(const std::string& model) const {
  for (std::size_t k = 0; k < plans.size(); ++k)
    if (plans[k].model == model) return static_cast<int>(k);
  return -1;
}

int Setup::processor_index(const std::string& proc) const {
  for (std::size_t k = 0; k < processors.size(); ++k)
    if (processors[k].name == proc) return static_cast<int>(k);
  return -1;
}

bool Setup::conf_bool(const std::string& key) const { return conf[key].as_bool(); }
int64_t Setup::conf_int(const std::string& key) const { return conf[key].as_int(); }
double Setup::conf_double(const std::string& key) const { return conf[key].as_double(); }
std::string Setup::conf_string(const std::string& key) const { return conf[key].as_string(); }

Setup setup_from_header(const json::Value& header) {
  Setup setup;
  setup.policy = header["policy"].as_string();
  setup.baseline = header["baseline"].as_string();
  setup.name = header["name"].as_string();
  setup.conf = header["conf"];
  setup.facts = header["facts"];
  for (const auto& p : header["processors"].items)
    setup.processors.push_back({p["name"].as_string(), p["kind"].as_string()});
  for (const auto& p : header["plans"].items)
    setup.plans.push_back(plan_of(p, setup, static_cast<int>(setup.plans.size())));
  setup.profile.resize(setup.plans.size());
  for (const auto& row : header["profile"].items) {
    int model = setup.model_index(row[0].as_string());
    int64_t index = row[1].as_int();
    if (model < 0 || index < 0 || index >= kMaxIndex) continue;  // (no decision reads it)
    auto& by_index = setup.profile[static_cast<std::size_t>(model)];
    if (static_cast<std::size_t>(index) >= by_index.size())
      by_index.resize(static_cast<std::size_t>(index) + 1);
    by_index[static_cast<std::size_t>(index)] = row[2].as_int();
  }
  return setup;
}

Registration::Registration(const std::string& policy_class, Factory factory) {
  registry()[policy_class] = std::move(factory);
}

std::unique_ptr<Policy> make_policy(const Setup& setup) {
  auto it = registry().find(setup.policy);
  if (it == registry().end())
    throw std::runtime_error("no C++ policy for " + setup.policy + " (baseline " +
                             setup.baseline + ")");
  return it->second(setup);
}

std::vector<std::string> registered_policies() {
  std::vector<std::string> out;
  for (const auto& entry : registry()) out.push_back(entry.first);
  return out;
}

}  // namespace policies
