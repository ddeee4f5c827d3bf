// Parsing of the line-based plan file (README "Plan file") and its consistency checks:
// names resolve; a chain's subgraph indices run 0..n-1 and every subgraph input is a model
// input or an output of an earlier subgraph, so running in index order is always valid;
// alternatives have distinct indices, every input is a model input or an output of a
// subgraph ending before this one starts, and the model's last unit can be reached from
// unit 0 (so any path the policy takes finds its tensors: a slice outputs every tensor an op
// outside it reads, devices/host/slicing.py).
#include "plan.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "errors.h"

namespace runner {
namespace {

struct Line {
  std::string where;
  std::vector<std::string> words;           // positional words, the kind first
  std::map<std::string, std::string> keys;  // key=value words
};

[[noreturn]] void fail(const Line& line, const std::string& what) {
  throw RunnerError(line.where + ": " + what);
}

Line split(const std::string& text, const std::string& where) {
  Line line{where, {}, {}};
  std::istringstream in(text);
  for (std::string word; in >> word;) {
    auto eq = word.find('=');
    if (eq == std::string::npos) {
      line.words.push_back(word);
    } else if (!line.keys.emplace(word.substr(0, eq), word.substr(eq + 1)).second) {
      fail(line, "key '" + word.substr(0, eq) + "' given twice");
    }
  }
  return line;
}

std::string take(Line& line, const std::string& key, bool required = true) {
  auto it = line.keys.find(key);
  if (it == line.keys.end()) {
    if (required) fail(line, "missing " + key + "=");
    return "";
  }
  std::string value = it->second;
  line.keys.erase(it);
  return value;
}

int to_int(const Line& line, const std::string& text) {
  std::size_t used = 0;
  int value = 0;
  try {
    value = std::stoi(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size()) fail(line, "'" + text + "' is not an integer");
  return value;
}

int64_t to_int64(const Line& line, const std::string& text) {
  std::size_t used = 0;
  long long value = 0;
  try {
    value = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size()) fail(line, "'" + text + "' is not an integer");
  return static_cast<int64_t>(value);
}

// `units=<first>-<last>` (or one unit)
void set_units(const Line& line, const std::string& text, SubgraphSpec& s) {
  std::size_t dash = text.find('-', 1);
  s.first_unit = to_int(line, text.substr(0, dash));
  s.last_unit = dash == std::string::npos ? s.first_unit : to_int(line, text.substr(dash + 1));
  if (s.first_unit < 0 || s.last_unit < s.first_unit)
    fail(line, "units= wants <first>-<last> with 0 <= first <= last");
}

std::vector<int> to_ints(const Line& line, const std::string& text) {
  std::vector<int> values;
  std::istringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    if (!item.empty()) values.push_back(to_int(line, item));
  }
  return values;
}

void no_more_keys(const Line& line) {
  if (!line.keys.empty()) fail(line, "unknown key '" + line.keys.begin()->first + "'");
}

std::size_t processor_index(const Plan& plan, const Line& line, const std::string& name) {
  for (std::size_t i = 0; i < plan.processors.size(); ++i) {
    if (plan.processors[i].name == name) return i;
  }
  fail(line, "no processor named '" + name + "' (declare it before its subgraphs)");
}

void add_processor(Plan& plan, Line& line) {
  if (line.words.size() != 2) fail(line, "expected: processor <name> accelerator=... ");
  ProcessorSpec p;
  p.name = line.words[1];
  p.accelerator = take(line, "accelerator");
  std::string threads = take(line, "threads", false);
  p.threads = threads.empty() ? 1 : to_int(line, threads);
  p.cores = to_ints(line, take(line, "cores", false));
  std::string spin = take(line, "spin_us", false);
  p.spin_us = spin.empty() ? 0 : to_int(line, spin);
  if (p.spin_us < 0) fail(line, "spin_us must not be negative");
  static const std::set<std::string> kinds{"cpu", "gpu", "npu", "tflite"};
  if (!kinds.count(p.accelerator)) fail(line, "accelerator must be cpu, gpu, npu or tflite");
  if (p.threads < 1) fail(line, "threads must be at least 1");
  static const std::set<std::string> litert_keys{"kernel"};
  static const std::set<std::string> tflite_keys{"lib", "delegate", "delegate_lib", "hexagon_dir"};
  const auto& known = p.accelerator == "tflite" ? tflite_keys : litert_keys;
  for (const auto& [key, value] : line.keys) {
    if (!known.count(key)) fail(line, "unknown key '" + key + "' for accelerator=" + p.accelerator);
  }
  p.options = line.keys;  // backend settings
  plan.processors.push_back(p);
}

void add_model(Plan& plan, Line& line) {
  if (line.words.size() != 2) fail(line, "expected: model <name> inputs=... outputs=...");
  ModelSpec m;
  m.name = line.words[1];
  m.inputs = to_ints(line, take(line, "inputs"));
  m.outputs = to_ints(line, take(line, "outputs"));
  std::string slo = take(line, "slo_ns", false);
  m.slo_ns = slo.empty() ? 0 : to_int64(line, slo);
  if (m.slo_ns < 0) fail(line, "slo_ns must not be negative");
  no_more_keys(line);
  for (const auto& other : plan.models) {
    if (other.name == m.name) fail(line, "model '" + m.name + "' declared twice");
  }
  plan.models.push_back(m);
}

void add_subgraph(Plan& plan, Line& line) {
  if (line.words.size() != 3) fail(line, "expected: subgraph <model> <index> processor=...");
  SubgraphSpec s;
  std::size_t m = 0;
  for (; m < plan.models.size() && plan.models[m].name != line.words[1]; ++m) {
  }
  if (m == plan.models.size()) fail(line, "no model named '" + line.words[1] + "'");
  ModelSpec& model = plan.models[m];
  s.model = m;
  int index = to_int(line, line.words[2]);
  if (index < 0) fail(line, "a subgraph index must not be negative");
  s.index = static_cast<std::size_t>(index);
  std::string units = take(line, "units", false);
  if (!model.subgraphs.empty() && model.alternatives != !units.empty())
    fail(line, "model '" + model.name + "': units= on some of its subgraphs but not all");
  model.alternatives = !units.empty();
  if (model.alternatives) {
    set_units(line, units, s);
    if (plan.subgraph_of(m, s.index) != Plan::npos) fail(line, "subgraph index given twice");
  } else {
    if (s.index != model.subgraphs.size()) fail(line, "subgraph indices must run 0, 1, ...");
    s.first_unit = s.last_unit = index;
  }
  s.processor = processor_index(plan, line, take(line, "processor"));
  s.slice = take(line, "slice");
  s.inputs = to_ints(line, take(line, "inputs"));
  s.outputs = to_ints(line, take(line, "outputs"));
  no_more_keys(line);
  if (s.outputs.empty()) fail(line, "a subgraph must have outputs");
  model.subgraphs.push_back(plan.subgraphs.size());
  plan.subgraphs.push_back(s);
}

[[noreturn]] void refuse(const ModelSpec& model, const std::string& what) {
  throw RunnerError("plan: model '" + model.name + "' " + what);
}

// chain: inputs come from the model or earlier subgraphs
void check_chain(const Plan& plan, ModelSpec& model, std::set<int>& have) {
  for (std::size_t sg : model.subgraphs) {
    for (int t : plan.subgraphs[sg].inputs) {
      if (!have.count(t))
        refuse(model, "subgraph " + std::to_string(plan.subgraphs[sg].index) + " reads tensor " +
                          std::to_string(t) + ", which no earlier subgraph produces");
    }
    have.insert(plan.subgraphs[sg].outputs.begin(), plan.subgraphs[sg].outputs.end());
  }
  model.num_units = static_cast<int>(model.subgraphs.size());
}

// alternatives: inputs come from the model or subgraphs ending before; the end is reachable
void check_alternatives(const Plan& plan, ModelSpec& model, std::set<int>& have) {
  for (std::size_t sg : model.subgraphs)
    model.num_units = std::max(model.num_units, plan.subgraphs[sg].last_unit + 1);
  std::vector<bool> reached(static_cast<std::size_t>(model.num_units) + 1, false);
  reached[0] = true;
  for (int u = 0; u < model.num_units; ++u) {
    for (std::size_t k : model.subgraphs) {
      const SubgraphSpec& s = plan.subgraphs[k];
      if (s.first_unit == u && reached[static_cast<std::size_t>(u)])
        reached[static_cast<std::size_t>(s.last_unit) + 1] = true;
    }
  }
  if (!reached.back()) refuse(model, "no sequence of subgraphs runs from unit 0 to its last unit");
  for (std::size_t k : model.subgraphs) {
    const SubgraphSpec& s = plan.subgraphs[k];
    for (int t : s.inputs) {
      bool made = have.count(t) > 0;
      for (std::size_t j : model.subgraphs) {
        const SubgraphSpec& o = plan.subgraphs[j];
        made = made || (o.last_unit < s.first_unit &&
                        std::find(o.outputs.begin(), o.outputs.end(), t) != o.outputs.end());
      }
      if (!made)
        refuse(model, "subgraph " + std::to_string(s.index) + " reads tensor " + std::to_string(t) +
                          ", which no subgraph ending before unit " + std::to_string(s.first_unit) +
                          " produces");
    }
  }
  for (std::size_t k : model.subgraphs)
    have.insert(plan.subgraphs[k].outputs.begin(), plan.subgraphs[k].outputs.end());
}

void check_model(const Plan& plan, ModelSpec& model) {
  if (model.subgraphs.empty()) refuse(model, "has no subgraphs");
  std::set<int> have(model.inputs.begin(), model.inputs.end());
  if (model.alternatives)
    check_alternatives(plan, model, have);
  else
    check_chain(plan, model, have);
  for (int t : model.outputs) {
    if (!have.count(t))
      refuse(model, "output tensor " + std::to_string(t) + " is produced by no subgraph");
  }
}

}  // namespace

std::size_t Plan::model_index(const std::string& name) const {
  for (std::size_t i = 0; i < models.size(); ++i) {
    if (models[i].name == name) return i;
  }
  throw RunnerError("no model named '" + name + "' in the plan");
}

std::size_t Plan::subgraph_of(std::size_t model, std::size_t index) const {
  for (std::size_t k : models[model].subgraphs) {
    if (subgraphs[k].index == index) return k;
  }
  return npos;
}

std::size_t Plan::first_starting(std::size_t model, int unit) const {
  for (std::size_t k : models[model].subgraphs) {
    if (subgraphs[k].first_unit == unit) return k;
  }
  return npos;
}

Plan parse_plan(const std::string& text, const std::string& where) {
  Plan plan;
  std::istringstream in(text);
  int number = 0;
  for (std::string raw; std::getline(in, raw);) {
    ++number;
    std::string body = raw.substr(0, raw.find('#'));
    Line line = split(body, where + ":" + std::to_string(number));
    if (line.words.empty()) continue;
    const std::string& kind = line.words[0];
    if (kind == "processor")
      add_processor(plan, line);
    else if (kind == "model")
      add_model(plan, line);
    else if (kind == "subgraph")
      add_subgraph(plan, line);
    else
      fail(line, "unknown line kind '" + kind + "' (processor, model or subgraph)");
  }
  if (plan.processors.empty()) throw RunnerError(where + ": no processors");
  for (auto& model : plan.models) check_model(plan, model);
  return plan;
}

Plan read_plan(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw RunnerError("cannot read plan file " + path);
  std::stringstream text;
  text << in.rdbuf();
  return parse_plan(text.str(), path);
}

}  // namespace runner
