// ADMS's decision as a whole: the head of the queue made into jobs, the as-built switches'
// reshaping of their options (adms/additions.py: spare_exclusive, shed; adms/scheduler.py:
// _steer), the assignment loop (schedule), and the policy around it (adms/policy.py:
// prepare with the header's handoff facts, observe with the estimate_refresh rule).
#include <cstdlib>

#include "adms.h"
#include "pyops.h"

namespace policies::adms {

// adms/additions.py spare_exclusive: on a processor other examined jobs can run nowhere else,
// the extent minimising the model's finish (through) + others x the time it holds it
void Scheduler::spare_exclusive(std::vector<Job>& jobs) {
  std::vector<int64_t> only(setup_.processors.size(), 0);
  bool any = false;
  for (const Job& item : jobs)
    if (item.options.size() == 1) {
      only[static_cast<std::size_t>(item.options.front().processor)] += 1;
      any = true;
    }
  if (!any) return;
  for (Job& item : jobs) {
    int64_t own = item.options.size() == 1 ? 1 : 0;
    std::vector<std::pair<int, int64_t>> contended;
    for (const Option& o : item.options) {
      int64_t others = only[static_cast<std::size_t>(o.processor)] - own;
      if (others > 0) contended.push_back({o.processor, others});
    }
    if (contended.empty()) continue;
    int model = item.job->request.model;
    const Plan& plan = setup_.plans[static_cast<std::size_t>(model)];
    const auto& candidates = plan.candidates(item.job->next_unit);
    std::vector<int64_t> finish;  // by candidate, in order
    for (int k : candidates)
      finish.push_back(tables_.through(model, sg_at(model, k), item.job->last_processor));
    for (const auto& [proc, others] : contended) {
      bool have = false;
      int64_t best_key = 0, best_finish = 0;
      int best_position = 0;
      for (std::size_t c = 0; c < candidates.size(); ++c) {
        const Subgraph& sg = sg_at(model, candidates[c]);
        if (sg.processor != proc) continue;
        int64_t held = cost(sg);
        int64_t key = finish[c] + others * held;
        if (!have || key < best_key) {
          have = true;
          best_key = key;
          best_finish = finish[c];
          best_position = sg.position;
        }
      }
      work_ += static_cast<int64_t>(candidates.size());
      if (!have) continue;
      for (Option& o : item.options)
        if (o.processor == proc) o = {proc, best_finish, best_position};
    }
  }
}

void Scheduler::steer(Job& item) {
  int model = item.job->request.model;
  auto behind = lp_.behind(model, item.job->next_unit);
  if (!behind) return;
  work_ += behind->second;
  const Subgraph& sg = sg_at(model, behind->first);
  bool allowed = false;
  for (const Option& o : item.options) allowed = allowed || o.processor == sg.processor;
  if (!allowed) return;
  int64_t through = tables_.through(model, sg, item.job->last_processor);
  item.options = {{sg.processor, through, sg.position}};
}

// adms/additions.py shed: drop a job whose fastest way to finish, started now, ends past its
// deadline
std::vector<int64_t> Scheduler::shed(std::vector<Job>& jobs, const View& view) {
  std::vector<Job> kept;
  std::vector<int64_t> dropped;
  for (Job& item : jobs) {
    const Request& request = item.job->request;
    const Options& opts =
        tables_.options(request.model, item.job->next_unit, item.job->last_processor);
    int64_t fastest = 0;
    for (std::size_t k = 0; k < opts.size(); ++k)
      if (k == 0 || opts[k].ns < fastest) fastest = opts[k].ns;
    int64_t deadline_ns = request.arrival_ns + request.slo_ns;
    bool late = request.slo_ns > 0 && view.now_ns + fastest > deadline_ns;
    if (late) dropped.push_back(item.job->job_id);
    else kept.push_back(std::move(item));
  }
  jobs = std::move(kept);
  return dropped;
}

Decision Scheduler::schedule(const View& view) {
  work_ = tables_.work = 0;
  double now_ms = py::truediv(view.now_ns, 1000000);
  Reading reading = read(view, knobs_);
  std::vector<Job> jobs;
  for (std::size_t k = 0; k < view.queue->size(); ++k) {
    jobs.push_back(job(static_cast<int>(jobs.size()), view.queue->at(k), view, reading.hot, now_ms));
    if (static_cast<int64_t>(jobs.size()) >= knobs_.loop_call_size) break;
  }
  if (knobs_.exclusive) spare_exclusive(jobs);
  if (lp_.on())
    for (Job& item : jobs) steer(item);
  Decision out;
  if (knobs_.shed) out.drop = shed(jobs, view);
  std::vector<Free> free = reading.free;
  std::vector<int64_t> waiting = reading.waiting;
  while (!jobs.empty() && !free.empty()) {
    auto got = pick(free, jobs, waiting);
    if (!got) break;
    int proc = got->first;
    auto [k, position] = got->second;
    const Subgraph& sg = sg_at(jobs[static_cast<std::size_t>(k)].job->request.model, position);
    out.assign.push_back({jobs[static_cast<std::size_t>(k)].job->job_id, sg.model, sg.index});
    jobs.erase(jobs.begin() + k);
    if (lp_.on()) lp_.count(sg);
    std::vector<Free> rest_free;
    for (const Free& f : free)
      if (f.processor != proc) rest_free.push_back(f);
    free = std::move(rest_free);
    if (!jobs.empty() && !free.empty()) waiting[static_cast<std::size_t>(proc)] += cost(sg);
  }
  out.work = work_ + tables_.work + static_cast<int64_t>(jobs.size());
  return out;
}

namespace {

class Adms : public Policy {
 public:
  explicit Adms(const Setup& setup)
      : setup_(setup), knobs_(setup), estimator_(knobs_.ema_alpha), scheduler_(setup, estimator_),
        derived_at_(setup.plans.size()) {
    // prepare(plans, profile)
    estimator_.seed(setup);
    scheduler_.set_handoffs(setup.facts.find("handoff"));  // (none given: the device has none)
    for (std::size_t m = 0; m < setup.plans.size(); ++m) scheduler_.forget(static_cast<int>(m));
    if (knobs_.lp_split) scheduler_.lp().set(setup);
  }

  Decision schedule(const View& view) override { return scheduler_.schedule(view); }

  void observe(const Completion& c) override {
    if (!c.ok) return;
    const Subgraph& sg = *setup_.plans[static_cast<std::size_t>(c.model)].by_index(c.subgraph);
    int64_t before = estimator_.expected(sg.model, sg.index);
    std::optional<int64_t> after = estimator_.update(sg.model, sg.index, c.latency_ns());
    auto& derived = derived_at_[static_cast<std::size_t>(sg.model)];
    auto at_it = derived.emplace(sg.index, before).first;
    int64_t at = at_it->second;
    // abs(after - at) > refresh * at: an int against a float, exactly
    bool refresh = after && py::int_gt(std::llabs(*after - at), knobs_.refresh * static_cast<double>(at));
    if (refresh) derived.clear();
    scheduler_.update(sg, refresh, after);
  }

  int64_t expected_ns(int model, int subgraph) const override {
    return estimator_.expected(model, subgraph);
  }

  bool reinsert_front() const override { return true; }

 private:
  const Setup& setup_;
  Knobs knobs_;
  Estimator estimator_;
  Scheduler scheduler_;
  std::vector<std::map<int, int64_t>> derived_at_;  // model -> subgraph index -> estimate
};

const Registration registered("adms.policy.AdmsPolicy",
                              [](const Setup& s) { return std::make_unique<Adms>(s); });

}  // namespace
}  // namespace policies::adms
