// LibraryPolicy (see library_policy.h): the header read and matched with the plan file, then
// the Python runtime's core (harness/runtime/core.py) over the library's policy.
#include "library_policy.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <set>

#include "errors.h"
#include "policies/json.h"

namespace runner {

// The live queue as the policy reads it, noting what it read (for the decision trace).
class LibraryPolicy::LiveQueue : public policies::Queue {
 public:
  explicit LiveQueue(const LibraryPolicy& owner) : owner_(owner) {}
  std::size_t size() const override { return owner_.queue_.size(); }
  const policies::JobView& at(std::size_t k) const override {
    read_ = std::max(read_, k + 1);
    return owner_.jobs_.at(owner_.queue_.at(k));
  }
  // the first job of every (model, next unit), front first (JobQueue.heads)
  const std::vector<policies::JobView>& heads() const override {
    if (!heads_) {
      heads_.emplace();
      std::set<std::pair<int, int64_t>> seen;
      for (int64_t id : owner_.queue_) {
        const policies::JobView& job = owner_.jobs_.at(id);
        if (seen.insert({job.request.model, job.next_unit}).second) heads_->push_back(job);
      }
    }
    return *heads_;
  }
  std::vector<policies::JobView> read() const {
    std::vector<policies::JobView> out;
    for (std::size_t k = 0; k < read_; ++k) out.push_back(owner_.jobs_.at(owner_.queue_[k]));
    return out;
  }
  const std::optional<std::vector<policies::JobView>>& heads_read() const { return heads_; }

 private:
  const LibraryPolicy& owner_;
  mutable std::size_t read_ = 0;
  mutable std::optional<std::vector<policies::JobView>> heads_;
};

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw RunnerError("--policy: cannot read " + path);
  std::string text(std::istreambuf_iterator<char>(in), {});
  // one line for the trace (JSON strings hold no raw newlines)
  std::replace(text.begin(), text.end(), '\n', ' ');
  std::replace(text.begin(), text.end(), '\r', ' ');
  return text;
}

}  // namespace

LibraryPolicy::LibraryPolicy(const Plan& plan, const std::string& header_path,
                             const std::string& decisions_path)
    : plan_(plan), header_path_(header_path) {
  std::string text = read_text(header_path);
  try {
    policies::json::Value header = policies::json::parse(text);
    const policies::json::Value* kind = header.find("trace");
    if (kind != nullptr && kind->as_string() != "decisions")
      throw std::runtime_error("not a decision trace header");
    setup_ = policies::setup_from_header(header);
    policy_ = policies::make_policy(setup_);
  } catch (const RunnerError&) {
    throw;
  } catch (const std::exception& e) {
    throw RunnerError(where() + e.what());
  }
  check_processors();
  if (setup_.plans.size() != plan.models.size())
    throw RunnerError(where() + "the header plans " + std::to_string(setup_.plans.size()) +
                      " models, the plan file " + std::to_string(plan.models.size()));
  to_setup_model_.resize(plan.models.size());
  to_plan_model_.resize(plan.models.size());
  to_setup_subgraph_.assign(plan.subgraphs.size(), nullptr);
  to_plan_subgraph_.resize(setup_.plans.size());
  for (std::size_t m = 0; m < plan.models.size(); ++m) check_model(m);
  front_ = policy_->reinsert_front();
  lanes_.resize(setup_.processors.size());
  if (!decisions_path.empty()) log_ = std::make_unique<DecisionLog>(decisions_path, text, setup_);
}

std::string LibraryPolicy::where() const { return "--policy " + header_path_ + ": "; }

void LibraryPolicy::check_processors() {
  to_plan_processor_.clear();
  to_setup_processor_.assign(plan_.processors.size(), 0);
  std::set<std::size_t> named;
  for (std::size_t k = 0; k < setup_.processors.size(); ++k) {
    const std::string& name = setup_.processors[k].name;
    auto it = std::find_if(plan_.processors.begin(), plan_.processors.end(),
                           [&](const ProcessorSpec& p) { return p.name == name; });
    if (it == plan_.processors.end())
      throw RunnerError(where() + "processor " + name + " is not in the plan file");
    std::size_t p = static_cast<std::size_t>(it - plan_.processors.begin());
    to_plan_processor_.push_back(p);
    to_setup_processor_[p] = k;
    named.insert(p);
  }
  for (std::size_t p = 0; p < plan_.processors.size(); ++p) {
    if (!named.count(p))
      throw RunnerError(where() + "the plan file's processor " + plan_.processors[p].name +
                        " is not in the header");
  }
}

void LibraryPolicy::check_model(std::size_t m) {
  const ModelSpec& model = plan_.models[m];
  int h = setup_.model_index(model.name);
  if (h < 0) throw RunnerError(where() + "no plan for model " + model.name);
  to_setup_model_[m] = static_cast<std::size_t>(h);
  to_plan_model_[static_cast<std::size_t>(h)] = m;
  const policies::Plan& hp = setup_.plans[static_cast<std::size_t>(h)];
  if (hp.subgraphs.size() != model.subgraphs.size())
    throw RunnerError(where() + "model " + model.name + ": the header has " +
                      std::to_string(hp.subgraphs.size()) + " subgraphs, the plan file " +
                      std::to_string(model.subgraphs.size()) +
                      (model.alternatives ? "" : " (as one chain: no units=)"));
  concurrent_ = concurrent_ || hp.concurrent;
  to_plan_subgraph_[static_cast<std::size_t>(h)].assign(hp.subgraphs.size(), 0);
  if (model.alternatives)
    check_alternatives(m, hp);
  else
    check_chain(m, hp);
}

void LibraryPolicy::check_subgraph(const policies::Subgraph& sg, const SubgraphSpec& spec,
                                   const std::string& at) {
  const std::string& proc = setup_.processors[static_cast<std::size_t>(sg.processor)].name;
  if (proc != plan_.processors[spec.processor].name)
    throw RunnerError(where() + at + "runs on " + proc + " in the header and on " +
                      plan_.processors[spec.processor].name + " in the plan file");
  std::size_t k = static_cast<std::size_t>(&spec - plan_.subgraphs.data());
  to_setup_subgraph_[k] = &sg;
  to_plan_subgraph_[static_cast<std::size_t>(sg.model)][static_cast<std::size_t>(sg.position)] = k;
}

void LibraryPolicy::check_alternatives(std::size_t m, const policies::Plan& hp) {
  const ModelSpec& model = plan_.models[m];
  std::string name = "model " + model.name + ": ";
  if (hp.num_units != model.num_units)
    throw RunnerError(where() + name + "the header has " + std::to_string(hp.num_units) +
                      " units, the plan file " + std::to_string(model.num_units));
  for (const policies::Subgraph& sg : hp.subgraphs) {
    std::string at = name + "subgraph " + std::to_string(sg.index) + ": ";
    std::size_t k = plan_.subgraph_of(m, static_cast<std::size_t>(sg.index));
    if (k == Plan::npos) throw RunnerError(where() + at + "not in the plan file");
    const SubgraphSpec& spec = plan_.subgraphs[k];
    if (spec.first_unit != sg.first_unit() || spec.last_unit != sg.last_unit())
      throw RunnerError(where() + at + "covers units " + std::to_string(sg.first_unit()) + "-" +
                        std::to_string(sg.last_unit()) + " in the header and " +
                        std::to_string(spec.first_unit) + "-" + std::to_string(spec.last_unit) +
                        " in the plan file");
    check_subgraph(sg, spec, at);
  }
}

void LibraryPolicy::check_chain(std::size_t m, const policies::Plan& hp) {
  const ModelSpec& model = plan_.models[m];
  std::string name = "model " + model.name + ": ";
  int next_unit = 0;
  for (std::size_t k = 0; k < hp.subgraphs.size(); ++k) {
    const policies::Subgraph& sg = hp.subgraphs[k];
    const SubgraphSpec& spec = plan_.subgraphs[model.subgraphs[k]];
    std::string at = name + "header subgraph " + std::to_string(k) + ": ";
    if (sg.index != static_cast<int>(k))
      throw RunnerError(where() + at + "has index " + std::to_string(sg.index) +
                        ", the plan file's subgraph " + std::to_string(k) + " is index " +
                        std::to_string(k));
    check_subgraph(sg, spec, at);
    for (int u : sg.units) {
      if (u != next_unit++)
        throw RunnerError(where() + at +
                          "units do not follow the previous subgraph's (give the plan file's "
                          "subgraphs units= to run alternatives)");
    }
  }
  if (next_unit != hp.num_units)
    throw RunnerError(where() + name + "the subgraphs cover " + std::to_string(next_unit) +
                      " of its " + std::to_string(hp.num_units) + " units");
}

void LibraryPolicy::arrive(const Arrival& a, int64_t now_ns) {
  policies::JobView job;
  job.job_id = a.request;
  job.enqueue_ns = now_ns;
  job.request = {a.request,
                 static_cast<int>(to_setup_model_[a.model]),
                 a.frame_id,
                 a.arrival_ns,
                 plan_.models[a.model].slo_ns,
                 a.stream};
  jobs_[a.request] = job;
  queue_.push_back(a.request);
}

void LibraryPolicy::complete(const Ran& ran, int64_t now_ns, Outcome& out) {
  const SubgraphSpec& spec = plan_.subgraphs[ran.subgraph];
  Lane& lane = lanes_[to_setup_processor_[spec.processor]];
  policies::JobView& job = jobs_.at(ran.request);
  Sg sg = to_setup_subgraph_[ran.subgraph];
  if (concurrent_) {
    lane.beside.erase(ran.request);
  } else {
    if (!lane.running || lane.running->first != ran.request)
      throw RunnerError("completion of a job the policy did not run there");
    lane.running.reset();
  }
  policies::Completion done{ran.request, job.request, job.request.model, sg->index, ran.start_ns,
                            ran.end_ns,  ran.ok};
  policy_->observe(done);
  if (log_) log_->observe(done);
  // _Job.moved_past (a failed job ends without moving past its subgraph)
  if (ran.ok) {
    job.next_unit = sg->last_unit() + 1;
    job.executed += 1;
    job.last_processor = sg->processor;
    job.enqueue_ns = now_ns;
  }
  const policies::Plan& hp = setup_.plans[static_cast<std::size_t>(job.request.model)];
  if (!ran.ok || job.next_unit >= hp.num_units) {
    jobs_.erase(ran.request);
  } else if (front_) {
    queue_.push_front(ran.request);
  } else {
    queue_.push_back(ran.request);
  }
  if (!lane.running && !lane.waiting.empty()) {
    auto [next, next_sg] = lane.waiting.front();
    lane.waiting.pop_front();
    run(lane, next, next_sg, now_ns, out);
  }
}

policies::ProcessorView LibraryPolicy::view_of(const Lane& lane, int64_t now_ns) const {
  auto expected = [&](Sg sg) { return policy_->expected_ns(sg->model, sg->index); };
  policies::ProcessorView view;
  view.idle = lane.idle();
  view.available_ns = now_ns;
  for (const auto& [job, beside] : lane.beside)
    view.available_ns = std::max(view.available_ns, beside.second + expected(beside.first));
  if (!view.idle) {
    if (lane.running)
      view.available_ns =
          std::max(view.available_ns, lane.running_since + expected(lane.running->second));
    for (const auto& [job, sg] : lane.waiting) view.available_ns += expected(sg);
  }
  view.queued = static_cast<int64_t>(lane.waiting.size());
  return view;
}

void LibraryPolicy::decide(int64_t now_ns, Outcome& out) {
  if (queue_.empty()) return;  // as the Python runtime: no call without a waiting job
  LiveQueue queue(*this);
  policies::View view;
  view.now_ns = now_ns;
  view.queue = &queue;
  view.setup = &setup_;
  for (std::size_t k = 0; k < lanes_.size(); ++k) {
    view.processors.push_back(view_of(lanes_[k], now_ns));
    if (states_) view.processors.back().state = states_(to_plan_processor_[k]);
  }
  policies::Decision decision = policy_->schedule(view);
  if (log_) log_->schedule(view, queue.read(), queue.heads_read(), decision);
  for (int64_t id : decision.drop) {
    take(id);
    jobs_.erase(id);
    out.drops.push_back(id);
  }
  for (const policies::Assignment& a : decision.assign) assign(a, now_ns, out);
}

void LibraryPolicy::flush() {
  if (log_) log_->flush();
}

void LibraryPolicy::take(int64_t job) {
  auto it = std::find(queue_.begin(), queue_.end(), job);
  if (it == queue_.end())
    throw RunnerError("the policy chose job " + std::to_string(job) +
                      ", which is not waiting in the queue");
  queue_.erase(it);
}

void LibraryPolicy::assign(const policies::Assignment& a, int64_t now_ns, Outcome& out) {
  take(a.job_id);
  const policies::JobView& job = jobs_.at(a.job_id);
  const policies::Plan& hp = setup_.plans[static_cast<std::size_t>(a.model)];
  Sg sg = hp.by_index(a.subgraph);
  if (a.model != job.request.model || sg == nullptr || sg->first_unit() != job.next_unit)
    throw RunnerError("the policy assigned job " + std::to_string(a.job_id) + " a subgraph " +
                      "that does not start at its next unit");
  Lane& lane = lanes_[static_cast<std::size_t>(sg->processor)];
  if (concurrent_) {
    lane.beside[a.job_id] = {sg, now_ns};
    out.starts.push_back(start_of(a.job_id, sg));
  } else if (lane.idle()) {
    run(lane, a.job_id, sg, now_ns, out);
  } else {
    lane.waiting.emplace_back(a.job_id, sg);
  }
}

void LibraryPolicy::run(Lane& lane, int64_t job, Sg sg, int64_t now_ns, Outcome& out) {
  lane.running = {job, sg};
  lane.running_since = now_ns;
  out.starts.push_back(start_of(job, sg));
}

Start LibraryPolicy::start_of(int64_t job, Sg sg) const {
  return {job, to_plan_subgraph_[static_cast<std::size_t>(sg->model)]
                                [static_cast<std::size_t>(sg->position)]};
}

}  // namespace runner
