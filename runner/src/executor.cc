// Executor: loading checks, the waiting loop of run(), and the completion handler described
// in executor.h.
#include "executor.h"

#include <algorithm>

#include "errors.h"

namespace runner {

Executor::Executor(const Plan& plan, const std::string& slices_dir, LiteRtRuntime& runtime,
                   int warmup)
    : Executor(plan, MakeRunner(), real_) {
  start_runners([&](std::size_t p, JobRunner::OnDone done) {
    return std::make_unique<Worker>(plan, p, slices_dir, runtime, warmup, std::move(done));
  });
}

Executor::Executor(const Plan& plan, const MakeRunner& make, Timeline& timeline)
    : plan_(plan),
      timeline_(&timeline),
      inputs_(plan.models.size()),
      last_outputs_(plan.models.size()),
      busy_(plan.processors.size(), 0) {
  if (make) start_runners(make);
}

void Executor::start_runners(const MakeRunner& make) {
  for (std::size_t p = 0; p < plan_.processors.size(); ++p)
    workers_.push_back(make(p, [this](Completion c) { complete(std::move(c)); }));
  for (std::size_t p = 0; p < plan_.processors.size(); ++p) {
    check_loaded(p, workers_[p]->wait_loaded());
  }
  for (std::size_t m = 0; m < plan_.models.size(); ++m) {
    for (int t : plan_.models[m].inputs) {
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

void Executor::run(Traffic& traffic, Policy& policy, RunLog& log) {
  constexpr int64_t kFlushNs = 1000000000;  // logs written out at least every second
  std::unique_lock<std::mutex> lock(mutex_);
  run_ = Run{&traffic, &policy, &log};
  traffic.start(timeline_->now_ns());
  int64_t flush_at = timeline_->now_ns() + kFlushNs;
  step(timeline_->now_ns());
  while (!over()) {
    int64_t deadline = std::min(traffic.next_ns(), flush_at);
    waiting_until_ = deadline;
    timeline_->wait_until(lock, wake_, deadline, traffic.next_ns());
    int64_t now = timeline_->now_ns();
    if (now >= flush_at) {
      log.flush();
      policy.flush();
      flush_at = now + kFlushNs;
    }
    if (error_.empty() && traffic.next_ns() <= now) step(now);
  }
  if (!error_.empty()) throw RunnerError(error_);
}

std::vector<Completion> Executor::profile(std::size_t subgraph, int times) {
  const SubgraphSpec& sg = plan_.subgraphs[subgraph];
  std::vector<Tensor> inputs;
  for (int t : sg.inputs) {
    auto given = inputs_[sg.model].find(t);
    inputs.push_back(given != inputs_[sg.model].end()
                         ? given->second
                         : std::make_shared<const Bytes>(tensor_bytes(sg.model, t), 0));
  }
  std::vector<Completion> done;
  std::unique_lock<std::mutex> lock(mutex_);
  probe_ = &done;
  for (int k = 0; k < times; ++k) {
    ++busy_[sg.processor];
    workers_[sg.processor]->run(Job{k, subgraph, inputs, false});
    wake_.wait(lock, [&] { return done.size() == static_cast<std::size_t>(k) + 1; });
    if (!done.back().error.empty()) {
      probe_ = nullptr;
      throw RunnerError(plan_.processors[sg.processor].name + ": " + plan_.models[sg.model].name +
                        " subgraph " + std::to_string(sg.index) + ": " + done.back().error);
    }
  }
  probe_ = nullptr;
  return done;
}

void Executor::complete(Completion c) {
  std::lock_guard<std::mutex> lock(mutex_);
  --busy_[c.processor];
  if (probe_ != nullptr) {
    probe_->push_back(std::move(c));
    wake_.notify_one();
    return;
  }
  if (!error_.empty()) return;  // the run is failing: start nothing more
  try {
    int64_t now = timeline_->now_ns();
    finish(c, now);
    step(now);
  } catch (const std::exception& e) {
    error_ = e.what();
  }
  // (the end, or a closed loop's release after a drop wait, sooner than run() sleeps until)
  if (over() || run_.traffic->next_ns() < waiting_until_) wake_.notify_one();
}

void Executor::step(int64_t now_ns) {
  Outcome out;
  do {
    admit(run_.traffic->due(now_ns), now_ns);
    out = Outcome();
    run_.policy->decide(now_ns, out);
    apply(out, now_ns);
  } while (!out.drops.empty());
}

void Executor::admit(const std::vector<Release>& releases, int64_t now_ns) {
  for (const Release& r : releases) {
    int64_t id = next_id_++;
    Request& request = requests_[id];
    request.released = r;
    request.tensors = inputs_[r.model];
    run_.policy->arrive({id, r.model, r.arrival_ns, r.frame_id, r.stream}, now_ns);
  }
}

void Executor::apply(const Outcome& out, int64_t now_ns) {
  for (int64_t id : out.drops) drop(id, now_ns);
  for (const Start& start : out.starts) send(start);
}

void Executor::drop(int64_t id, int64_t now_ns) {
  auto it = requests_.find(id);
  if (it == requests_.end() || it->second.running) {
    throw RunnerError("the policy dropped request " + std::to_string(id) +
                      ", which is not waiting");
  }
  const Release& released = it->second.released;
  run_.log->request(plan_, id, released.model, released.arrival_ns, -1);
  run_.traffic->completed(released, true, now_ns);
  requests_.erase(it);
}

void Executor::send(const Start& start) {
  auto it = requests_.find(start.request);
  if (it == requests_.end() || it->second.running) {
    throw RunnerError("the policy started request " + std::to_string(start.request) +
                      ", which is not waiting");
  }
  Request& request = it->second;
  const SubgraphSpec& sg = plan_.subgraphs[start.subgraph];
  const ModelSpec& model = plan_.models[request.released.model];
  if (sg.model != request.released.model || sg.first_unit != request.next_unit) {
    throw RunnerError("the policy started " + plan_.models[sg.model].name + " subgraph " +
                      std::to_string(sg.index) + " for request " + std::to_string(start.request) +
                      ", whose next is " + model.name + " unit " +
                      std::to_string(request.next_unit));
  }
  if (busy_[sg.processor] > 0 && !run_.policy->concurrent()) {
    throw RunnerError("the policy started a job on " + plan_.processors[sg.processor].name +
                      ", which is busy");
  }
  Job out;
  out.request = start.request;
  out.subgraph = start.subgraph;
  for (int t : sg.inputs) {
    auto tensor = request.tensors.find(t);
    if (tensor == request.tensors.end())
      throw RunnerError(model.name + " subgraph " + std::to_string(sg.index) + " reads tensor " +
                        std::to_string(t) + ", which request " + std::to_string(start.request) +
                        " has not produced");
    out.inputs.push_back(tensor->second);
  }
  request.running = true;
  ++busy_[sg.processor];
  workers_[sg.processor]->run(std::move(out));
}

void Executor::finish(const Completion& c, int64_t now_ns) {
  const SubgraphSpec& sg = plan_.subgraphs[c.subgraph];
  if (!c.error.empty()) {
    throw RunnerError(plan_.processors[c.processor].name + ": " + plan_.models[sg.model].name +
                      " subgraph " + std::to_string(sg.index) + ": " + c.error);
  }
  run_.log->job(plan_, c);
  Request& request = requests_.at(c.request);
  request.running = false;
  for (std::size_t i = 0; i < sg.outputs.size(); ++i) request.tensors[sg.outputs[i]] = c.outputs[i];
  Outcome out;
  run_.policy->complete({c.request, c.subgraph, c.start_ns, c.end_ns, true}, now_ns, out);
  request.next_unit = sg.last_unit + 1;
  const Release& released = request.released;
  if (request.next_unit == plan_.models[released.model].num_units) {
    run_.log->request(plan_, c.request, released.model, released.arrival_ns, c.end_ns);
    auto& outputs = last_outputs_[released.model];
    for (int t : plan_.models[released.model].outputs) outputs[t] = request.tensors.at(t);
    run_.traffic->completed(released, false, now_ns);
    requests_.erase(c.request);
  }
  apply(out, now_ns);
}

}  // namespace runner
