// Executor: loading checks, the waiting loop of run(), and the completion handler described
// in executor.h.
#include "executor.h"

#include <algorithm>
#include <chrono>

#include "clock.h"
#include "errors.h"

namespace runner {

Executor::Executor(const Plan& plan, const std::string& slices_dir, LiteRtRuntime& runtime,
                   int warmup)
    : plan_(plan),
      inputs_(plan.models.size()),
      last_outputs_(plan.models.size()),
      idle_(plan.processors.size(), true) {
  for (std::size_t p = 0; p < plan.processors.size(); ++p) {
    workers_.push_back(std::make_unique<Worker>(plan, p, slices_dir, runtime, warmup,
                                                [this](Completion c) { complete(std::move(c)); }));
  }
  for (std::size_t p = 0; p < plan.processors.size(); ++p) {
    check_loaded(p, workers_[p]->wait_loaded());
  }
  for (std::size_t m = 0; m < plan.models.size(); ++m) {
    for (int t : plan.models[m].inputs) {
      inputs_[m][t] = std::make_shared<const Bytes>(tensor_bytes(m, t), 0);
    }
  }
}

Executor::~Executor() { workers_.clear(); }

void Executor::check_loaded(std::size_t p, const LoadReport& report) {
  if (!report.error.empty()) throw RunnerError(report.error);
  for (const auto& [s, in_bytes] : report.input_bytes) {
    const SubgraphSpec& sg = plan_.subgraphs[s];
    const auto& out_bytes = report.output_bytes.at(s);
    std::string name = plan_.models[sg.model].name + " subgraph " + std::to_string(sg.index);
    if (in_bytes.size() != sg.inputs.size() || out_bytes.size() != sg.outputs.size()) {
      throw RunnerError(
          name + ": the slice " + sg.slice + " has " + std::to_string(in_bytes.size()) +
          " inputs and " + std::to_string(out_bytes.size()) + " outputs; the plan says " +
          std::to_string(sg.inputs.size()) + " and " + std::to_string(sg.outputs.size()));
    }
    auto record = [&](int tensor, std::size_t bytes) {
      auto [it, fresh] = sizes_.emplace(std::make_pair(sg.model, tensor), bytes);
      if (!fresh && it->second != bytes) {
        throw RunnerError(name + " on " + plan_.processors[p].name + ": tensor " +
                          std::to_string(tensor) + " has " + std::to_string(bytes) +
                          " bytes here and " + std::to_string(it->second) + " elsewhere");
      }
    };
    for (std::size_t i = 0; i < in_bytes.size(); ++i) record(sg.inputs[i], in_bytes[i]);
    for (std::size_t i = 0; i < out_bytes.size(); ++i) record(sg.outputs[i], out_bytes[i]);
  }
}

std::size_t Executor::tensor_bytes(std::size_t model, int tensor) const {
  auto it = sizes_.find({model, tensor});
  if (it == sizes_.end()) {
    throw RunnerError("model " + plan_.models[model].name + " has no tensor " +
                      std::to_string(tensor));
  }
  return it->second;
}

void Executor::set_input(std::size_t model, int tensor, Bytes bytes) {
  if (!inputs_[model].count(tensor) || bytes.size() != tensor_bytes(model, tensor)) {
    throw RunnerError("model " + plan_.models[model].name + " input " + std::to_string(tensor) +
                      ": not a model input, or not " + std::to_string(tensor_bytes(model, tensor)) +
                      " bytes");
  }
  inputs_[model][tensor] = std::make_shared<const Bytes>(std::move(bytes));
}

void Executor::run(Traffic& traffic, const Policy& policy, RunLog& log) {
  std::unique_lock<std::mutex> lock(mutex_);
  run_ = Run{&traffic, &policy, &log};
  traffic.start(realtime_ns());
  for (step(); !over(); step()) {
    int64_t deadline = traffic.next_ns();
    if (deadline == Traffic::kNever) {
      wake_.wait(lock);
    } else {
      wake_.wait_until(lock, std::chrono::system_clock::time_point(
                                 std::chrono::duration_cast<std::chrono::system_clock::duration>(
                                     std::chrono::nanoseconds(deadline))));
    }
  }
  if (!error_.empty()) throw RunnerError(error_);
}

void Executor::complete(Completion c) {
  std::lock_guard<std::mutex> lock(mutex_);
  idle_[c.processor] = true;
  if (!error_.empty()) return;  // the run is failing: start nothing more
  try {
    finish(c);
    step();
  } catch (const std::exception& e) {
    error_ = e.what();
  }
  if (over()) wake_.notify_one();
}

void Executor::step() {
  admit(run_.traffic->due(realtime_ns()));
  dispatch();
}

void Executor::admit(const std::vector<Release>& releases) {
  for (const Release& r : releases) {
    int64_t id = next_id_++;
    Request& request = requests_[id];
    request.model = r.model;
    request.arrival_ns = r.arrival_ns;
    request.tensors = inputs_[r.model];
    ready_next(id, request);
  }
}

void Executor::ready_next(int64_t id, Request& request) {
  std::size_t s = plan_.models[request.model].subgraphs[request.next];
  ready_.push_back({id, request.model, s, request.arrival_ns});
}

void Executor::dispatch() {
  if (ready_.empty() || std::none_of(idle_.begin(), idle_.end(), [](bool i) { return i; })) return;
  std::stable_sort(ready_.begin(), ready_.end(), [](const ReadyJob& a, const ReadyJob& b) {
    return a.arrival_ns != b.arrival_ns ? a.arrival_ns < b.arrival_ns : a.request < b.request;
  });
  PolicyView view{realtime_ns(), &plan_, ready_, idle_};
  std::vector<bool> taken(ready_.size(), false);
  for (const Assignment& a : run_.policy->decide(view)) {
    if (a.job >= ready_.size() || taken[a.job] || a.processor >= idle_.size() ||
        !idle_[a.processor]) {
      throw RunnerError("the policy assigned a job that is not ready or a processor that is busy");
    }
    taken[a.job] = true;
    send(ready_[a.job], a.processor);
  }
  std::size_t kept = 0;
  for (std::size_t j = 0; j < ready_.size(); ++j) {
    if (!taken[j]) ready_[kept++] = ready_[j];
  }
  ready_.resize(kept);
}

void Executor::send(const ReadyJob& job, std::size_t processor) {
  const SubgraphSpec& sg = plan_.subgraphs[job.subgraph];
  if (sg.processor != processor) {
    throw RunnerError("the policy put " + plan_.models[sg.model].name + " subgraph " +
                      std::to_string(sg.index) + " on " + plan_.processors[processor].name +
                      ", which has not loaded its slice");
  }
  Job out;
  out.request = job.request;
  out.subgraph = job.subgraph;
  const Request& request = requests_.at(job.request);
  for (int t : sg.inputs) out.inputs.push_back(request.tensors.at(t));
  idle_[processor] = false;
  workers_[processor]->run(std::move(out));
}

void Executor::finish(const Completion& c) {
  const SubgraphSpec& sg = plan_.subgraphs[c.subgraph];
  if (!c.error.empty()) {
    throw RunnerError(plan_.processors[c.processor].name + ": " + plan_.models[sg.model].name +
                      " subgraph " + std::to_string(sg.index) + ": " + c.error);
  }
  run_.log->job(plan_, c);
  Request& request = requests_.at(c.request);
  for (std::size_t i = 0; i < sg.outputs.size(); ++i) request.tensors[sg.outputs[i]] = c.outputs[i];
  if (++request.next < plan_.models[request.model].subgraphs.size()) {
    ready_next(c.request, request);
    return;
  }
  run_.log->request(plan_, c.request, request.model, request.arrival_ns, c.end_ns);
  auto& outputs = last_outputs_[request.model];
  for (int t : plan_.models[request.model].outputs) outputs[t] = request.tensors.at(t);
  run_.traffic->completed(request.model);
  requests_.erase(c.request);
}

}  // namespace runner
