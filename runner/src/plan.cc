// Parsing of the line-based plan file (README "Plan file") and its consistency checks:
// names resolve, subgraph indices run 0..n-1, and every subgraph input is a model input or an
// output of an earlier subgraph of the same model, so running in index order is always valid.
#include "plan.h"

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
  s.model = m;
  s.index = static_cast<std::size_t>(to_int(line, line.words[2]));
  if (s.index != plan.models[m].subgraphs.size()) fail(line, "subgraph indices must run 0, 1, ...");
  s.processor = processor_index(plan, line, take(line, "processor"));
  s.slice = take(line, "slice");
  s.inputs = to_ints(line, take(line, "inputs"));
  s.outputs = to_ints(line, take(line, "outputs"));
  no_more_keys(line);
  if (s.outputs.empty()) fail(line, "a subgraph must have outputs");
  plan.models[m].subgraphs.push_back(plan.subgraphs.size());
  plan.subgraphs.push_back(s);
}

void check_model(const Plan& plan, const ModelSpec& model) {
  std::set<int> have(model.inputs.begin(), model.inputs.end());
  for (std::size_t sg : model.subgraphs) {
    for (int t : plan.subgraphs[sg].inputs) {
      if (!have.count(t)) {
        throw RunnerError("plan: model '" + model.name + "' subgraph " +
                          std::to_string(plan.subgraphs[sg].index) + " reads tensor " +
                          std::to_string(t) + ", which no earlier subgraph produces");
      }
    }
    have.insert(plan.subgraphs[sg].outputs.begin(), plan.subgraphs[sg].outputs.end());
  }
  if (model.subgraphs.empty())
    throw RunnerError("plan: model '" + model.name + "' has no subgraphs");
  for (int t : model.outputs) {
    if (!have.count(t)) {
      throw RunnerError("plan: model '" + model.name + "' output tensor " + std::to_string(t) +
                        " is produced by no subgraph");
    }
  }
}

}  // namespace

std::size_t Plan::model_index(const std::string& name) const {
  for (std::size_t i = 0; i < models.size(); ++i) {
    if (models[i].name == name) return i;
  }
  throw RunnerError("no model named '" + name + "' in the plan");
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
  for (const auto& model : plan.models) check_model(plan, model);
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
