// One Band decision in progress (baselines/band/schedulers.py _Round: waiting times, the
// SLO check of Planner::IsSLOViolated, EnqueueToWorker's give, the round's chain cache and
// counted work) and the two device-queue schedulers, FixedWorker and RoundRobin, which
// place whole models.
#include <algorithm>

#include "band.h"

namespace policies::band {

Round::Round(const View& view, const Estimator& est, const ChainFinder& finder,
             const Knobs& knobs)
    : now(view.now_ns), view_(&view), est_(&est), finder_(&finder), knobs_(&knobs) {
  for (const ProcessorView& p : view.processors) {
    waiting.push_back(p.idle ? 0 : std::max<int64_t>(0, p.available_ns - now));
    idle.push_back(p.idle);
  }
}

bool Round::any_idle() const {
  return std::find(idle.begin(), idle.end(), true) != idle.end();
}

int64_t Round::cost(const Subgraph& sg) const { return est_->expected(sg.model, sg.index); }

const Subgraph& Round::at(int model, int position) const {
  return view_->setup->plans[static_cast<std::size_t>(model)]
      .subgraphs[static_cast<std::size_t>(position)];
}

bool Round::dropped(int64_t job_id) const {
  return std::find(out.drop.begin(), out.drop.end(), job_id) != out.drop.end();
}

// LatencyEstimator.costs(model, count): the estimate of (model, k) for k < count, which the
// search reads by position
const std::vector<int64_t>& Round::costs(int model) {
  auto it = costs_.find(model);
  if (it != costs_.end()) return it->second;
  std::vector<int64_t>& v = costs_[model];
  std::size_t count = view_->setup->plans[static_cast<std::size_t>(model)].subgraphs.size();
  performed(static_cast<int64_t>(count));  // (every estimate copied)
  for (std::size_t k = 0; k < count; ++k) v.push_back(est_->expected(model, static_cast<int>(k)));
  return v;
}

std::optional<Chain> Round::shortest(const JobView& job, const std::vector<int64_t>& wait) {
  int model = job.request.model;
  out.work += 1 + finder_->steps(model, job.next_unit);
  auto key = std::make_tuple(model, job.next_unit, wait);
  auto it = chains_.find(key);
  performed(1);  // (the job looked at)
  if (it != chains_.end()) return it->second;
  performed(finder_->steps(model, job.next_unit));  // (a search the cache did not serve)
  auto chain = finder_->shortest(model, job.next_unit, wait, costs(model));
  chains_.emplace(std::move(key), chain);
  return chain;
}

bool Round::violates_slo(const JobView& job, const Subgraph& sg) const {
  const Request& r = job.request;
  if (!knobs_->drop_on_slo || r.slo_ns <= 0) return false;
  int64_t deadline = r.arrival_ns + r.slo_ns;
  if (!knobs_->as_written) return now > deadline;
  return now + waiting[static_cast<std::size_t>(sg.processor)] + cost(sg) > deadline;
}

bool Round::give(const JobView& job, const Subgraph& sg, bool device_queue) {
  if (violates_slo(job, sg)) {
    out.drop.push_back(job.job_id);
    return true;
  }
  auto p = static_cast<std::size_t>(sg.processor);
  if (!device_queue && !idle[p]) return false;
  out.assign.push_back({job.job_id, sg.model, sg.index});
  waiting[p] += cost(sg);
  idle[p] = false;
  return true;
}

std::vector<const JobView*> head(const View& view, const std::optional<int64_t>& window) {
  std::size_t n = view.queue->size();
  if (window) n = std::min<std::size_t>(n, static_cast<std::size_t>(std::max<int64_t>(*window, 0)));
  std::vector<const JobView*> jobs;
  for (std::size_t k = 0; k < n; ++k) jobs.push_back(&view.queue->at(k));
  return jobs;
}

namespace {

// schedulers.py largest_subgraph (model_executor.cc GetLargestSubgraphKey: most ops, first
// wins). A trace holds no ops; the plans these schedulers get are whole-model ones
// (policy.py whole_model_plan), one subgraph per processor, so the first is the largest.
const Subgraph* largest(const Round& rnd, const JobView& job, int processor) {
  const Plan& plan = rnd.view().setup->plans[static_cast<std::size_t>(job.request.model)];
  for (int k : plan.candidates(job.next_unit))
    if (plan.subgraphs[static_cast<std::size_t>(k)].processor == processor)
      return &plan.subgraphs[static_cast<std::size_t>(k)];
  return nullptr;
}

class Base : public Scheduler {
 public:
  Base(const Setup& setup, const Knobs& knobs) : finder_(setup), knobs_(knobs) {}

 protected:
  ChainFinder finder_;
  Knobs knobs_;
};

// FixedWorker: every queued job (the whole queue) to its model's worker, busy or not.
class FixedWorker : public Base {
 public:
  FixedWorker(const Setup& setup, const Knobs& knobs);
  Decision schedule(const View& view, const Estimator& est) override {
    Round rnd(view, est, finder_, knobs_);
    for (const JobView* job : head(view, std::nullopt)) {
      int worker = workers_[static_cast<std::size_t>(job->request.model)];
      const Subgraph* sg = worker < 0 ? nullptr : largest(rnd, *job, worker);
      if (sg != nullptr) rnd.give(*job, *sg, true);
    }
    return rnd.out;
  }

 private:
  std::vector<int> workers_;  // model -> processor
};

// policy.py BandPolicy._worker_for: the given map, else the subgraph with the shortest
// profiled latency (first wins); it must be a processor of the plan.
FixedWorker::FixedWorker(const Setup& setup, const Knobs& knobs) : Base(setup, knobs) {
  const json::Value* given = setup.facts.find("worker_map");
  for (const Plan& plan : setup.plans) {
    int chosen = -1;
    const json::Value* named = given == nullptr ? nullptr : given->find(plan.model);
    if (named != nullptr) chosen = setup.processor_index(named->as_string());
    int64_t best = 0;
    for (const Subgraph& sg : plan.subgraphs) {
      if (named != nullptr) break;
      const auto& by_index = setup.profile[static_cast<std::size_t>(sg.model)];
      auto k = static_cast<std::size_t>(sg.index);
      int64_t ns = k < by_index.size() && by_index[k] ? *by_index[k] : Estimator::kUnknownNs;
      if (chosen < 0 || ns < best) {
        chosen = sg.processor;
        best = ns;
      }
    }
    bool able = false;
    for (const Subgraph& sg : plan.subgraphs) able = able || sg.processor == chosen;
    if (!able) throw std::runtime_error("band fixed_worker: model " + plan.model +
                                        " cannot run whole on its worker");
    workers_.push_back(chosen);
  }
}

// RoundRobin: each idle worker, in processor order, takes the first job it can run whole.
class RoundRobin : public Base {
 public:
  using Base::Base;
  Decision schedule(const View& view, const Estimator& est) override {
    Round rnd(view, est, finder_, knobs_);
    std::vector<const JobView*> queue = head(view, std::nullopt);
    for (std::size_t p = 0; p < view.processors.size(); ++p) {
      if (!view.processors[p].idle) continue;
      for (std::size_t k = 0; k < queue.size(); ++k) {
        const Subgraph* sg = largest(rnd, *queue[k], static_cast<int>(p));
        if (sg == nullptr) continue;
        rnd.give(*queue[k], *sg, true);
        queue.erase(queue.begin() + static_cast<std::ptrdiff_t>(k));
        break;
      }
    }
    return rnd.out;
  }
};

}  // namespace

std::unique_ptr<Scheduler> fixed_worker(const Setup& setup, const Knobs& knobs) {
  return std::make_unique<FixedWorker>(setup, knobs);
}

std::unique_ptr<Scheduler> round_robin(const Setup& setup, const Knobs& knobs) {
  return std::make_unique<RoundRobin>(setup, knobs);
}

}  // namespace policies::band
