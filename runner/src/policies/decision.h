// The decision library's seam: what a policy sees and answers, as in the Python harness
// (harness/seams/view.py, harness/seams/policy.py), and the registry policies plug into.
//
// A policy is pure: no threads, clock, I/O or LiteRT. It is built from a Setup (the
// processors, plans, profile and its config, as a decision trace's header holds them), then
// asked schedule(view) -> Decision and told observe(completion), in the order the runtime
// makes them. Floating point follows Python's operations in Python's order (doubles,
// -ffp-contract=off; pyops.h for Python's int/int division, floor and round).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "json.h"

namespace policies {

struct Processor {
  std::string name;
  std::string kind;  // cpu, gpu, dsp, npu
};

struct Subgraph {
  int index = 0;       // within its plan (the position in Plan::subgraphs is `position`)
  int position = 0;
  int model = 0;       // index into Setup::plans
  int processor = 0;   // index into Setup::processors
  std::vector<int> units;
  int first_unit() const { return units.front(); }
  int last_unit() const { return units.back(); }
};

struct Plan {
  std::string model;
  int num_units = 0;
  int window_size = 1;
  bool shared_interpreter = false;
  bool concurrent = false;
  std::vector<std::vector<std::string>> unit_support;
  std::vector<Subgraph> subgraphs;  // plan order
  std::vector<std::vector<int>> starting;  // unit -> positions of subgraphs starting there
  // ModelPlan.candidates(unit): positions in plan order (empty past the last unit)
  const std::vector<int>& candidates(int64_t unit) const;
  const Subgraph* by_index(int index) const;
};

struct Setup {
  std::string policy;    // the Python class, e.g. baselines.tflite.policy.TflitePolicy
  std::string baseline;  // its name in the run
  std::string name;      // the policy's own name
  json::Value conf;      // its config, every field
  json::Value facts;     // what it derived when prepared (trace_facts)
  std::vector<Processor> processors;
  std::vector<Plan> plans;
  std::vector<std::vector<std::optional<int64_t>>> profile;  // [model][subgraph index] ns
  int model_index(const std::string& model) const;  // -1 when absent
  int processor_index(const std::string& name) const;
  // conf accessors (throw naming the key when absent or of another type)
  bool conf_bool(const std::string& key) const;
  int64_t conf_int(const std::string& key) const;
  double conf_double(const std::string& key) const;
  std::string conf_string(const std::string& key) const;
};

Setup setup_from_header(const json::Value& header);

struct Request {
  int64_t request_id = 0;
  int model = 0;
  int64_t frame_id = -1;
  int64_t arrival_ns = 0;
  int64_t slo_ns = 0;
  int64_t stream = 0;
};

struct JobView {
  int64_t job_id = 0;
  int64_t next_unit = 0;
  int64_t enqueue_ns = 0;
  int64_t executed = 0;
  Request request;
  // the processor its last subgraph ran on (Setup::processors index; -1: none yet, or a name
  // the setup does not have, which no decision tells apart from none)
  int last_processor = -1;
};

struct SensorState {
  int64_t t_ns = 0;
  std::optional<double> temperature_c, frequency_hz, max_frequency_hz, load, power_w;
  std::optional<bool> throttled;
  std::optional<double> throttle_temperature_c;
};

struct ProcessorView {
  bool idle = true;
  int64_t available_ns = 0;
  int64_t queued = 0;
  std::optional<SensorState> state;
};

// The queue as a policy reads it: front first, and its kind heads (the first job of every
// (model, next unit), front first). A replay's queue holds what the recorded policy read and
// throws QueueUnread past it.
class Queue {
 public:
  virtual ~Queue() = default;
  virtual std::size_t size() const = 0;
  virtual const JobView& at(std::size_t k) const = 0;
  virtual const std::vector<JobView>& heads() const = 0;
};

struct QueueUnread : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct View {
  int64_t now_ns = 0;
  const Queue* queue = nullptr;
  std::vector<ProcessorView> processors;  // Setup::processors order
  const Setup* setup = nullptr;
};

struct Assignment {
  int64_t job_id = 0;
  int model = 0;
  int subgraph = 0;  // the subgraph's index in its plan
  bool operator==(const Assignment& o) const {
    return job_id == o.job_id && model == o.model && subgraph == o.subgraph;
  }
};

struct Decision {
  std::vector<Assignment> assign;
  std::vector<int64_t> drop;
  int64_t work = 0;
  // what this library actually did, where it does less or more than the counted work says
  // (Band: its round's chain cache serves repeated searches, and it copies a model's
  // estimates once per round); -1: as counted. Read only by decision_bench
  // (docs/decision-cost.md), never compared: the Python counts no such thing.
  int64_t performed = -1;
  bool operator==(const Decision& o) const {
    return assign == o.assign && drop == o.drop && work == o.work;
  }
};

struct Completion {
  int64_t job_id = 0;
  Request request;
  int model = 0;
  int subgraph = 0;  // index in its plan
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  bool ok = true;
  int64_t latency_ns() const { return end_ns - start_ns; }
};

class Policy {
 public:
  virtual ~Policy() = default;
  virtual Decision schedule(const View& view) = 0;
  virtual void observe(const Completion& completion) = 0;
  // the policy's estimate of a subgraph alone, ns (the runtime's waiting times)
  virtual int64_t expected_ns(int model, int subgraph) const = 0;
  virtual bool reinsert_front() const = 0;
};

// The registry: a policy file registers a factory for the Python class it mirrors
// (`static Registration r("baselines.tflite.policy.TflitePolicy", make);`); the variant
// (tflite_gpu, adms_ef, band_heft ...) is the conf's business, as in Python.
using Factory = std::function<std::unique_ptr<Policy>(const Setup&)>;

struct Registration {
  Registration(const std::string& policy_class, Factory factory);
};

// The policy the setup names; throws std::runtime_error when none is registered.
std::unique_ptr<Policy> make_policy(const Setup& setup);
std::vector<std::string> registered_policies();

}  // namespace policies
