// Band's global-queue schedulers, step for step as baselines/band/schedulers.py:
// ShortestExpectedLatency, LeastSlackTimeFirst and HeterogeneousEarliestFinishTime (with its
// reservations across decisions in the _reserved variant). Each looks at the queue's first
// schedule_window_size jobs and assigns only to idle processors.
#include <algorithm>
#include <set>
#include <utility>

#include "band.h"

namespace policies::band {
namespace {

// schedulers.py NO_SLACK_LIMIT (Band: std::numeric_limits<int>::max())
constexpr int64_t kNoSlackLimit = INT64_MAX;

using Found = std::optional<std::pair<std::size_t, Chain>>;

class Global : public Scheduler {
 public:
  Global(const Setup& setup, const Knobs& knobs) : finder_(setup), knobs_(knobs) {}

 protected:
  ChainFinder finder_;
  Knobs knobs_;
};

// _most_urgent: the job whose fastest chain ends last (first such), once per kind
Found most_urgent(Round& rnd, const std::vector<const JobView*>& jobs,
                  const std::vector<int64_t>& waiting) {
  Found best;
  std::set<std::pair<int, int64_t>> seen;
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    if (!seen.insert({jobs[k]->request.model, jobs[k]->next_unit}).second) continue;
    auto chain = rnd.shortest(*jobs[k], waiting);
    if (chain && (!best || best->second.finish_ns < chain->finish_ns)) best = {{k, *chain}};
  }
  return best;
}

class ShortestExpectedLatency : public Global {
 public:
  using Global::Global;
  Decision schedule(const View& view, const Estimator& est) override {
    Round rnd(view, est, finder_, knobs_);
    std::vector<const JobView*> local = head(view, knobs_.window);
    while (!local.empty()) {
      Found found = most_urgent(rnd, local, rnd.waiting);
      if (!found) break;
      const JobView* job = local[found->first];
      local.erase(local.begin() + static_cast<std::ptrdiff_t>(found->first));
      rnd.give(*job, rnd.at(job->request.model, found->second.first()));
    }
    return rnd.out;
  }
};

// _slack: deadline - now - expected, in Python's unbounded ints
__int128 slack(const JobView& job, int64_t now, int64_t expected) {
  if (job.request.slo_ns <= 0) return kNoSlackLimit;
  __int128 deadline = static_cast<__int128>(job.request.arrival_ns) + job.request.slo_ns;
  return deadline - now - expected;
}

class LeastSlackTimeFirst : public Global {
 public:
  using Global::Global;
  Decision schedule(const View& view, const Estimator& est) override {
    Round rnd(view, est, finder_, knobs_);
    std::vector<const JobView*> jobs = head(view, knobs_.window);
    if (jobs.empty() || !rnd.any_idle()) return rnd.out;
    std::vector<bool> idle_at_start = rnd.idle;
    std::vector<int64_t> waiting = rnd.waiting;
    for (const JobView* job : by_slack(rnd, jobs)) {
      auto chain = rnd.shortest(*job, waiting);
      if (!chain) continue;
      const Request& r = job->request;
      const Subgraph& first = rnd.at(r.model, chain->first());
      if (knobs_.drop_on_slo && r.slo_ns > 0 &&
          static_cast<__int128>(rnd.now) + chain->finish_ns >
              static_cast<__int128>(r.arrival_ns) + r.slo_ns) {
        rnd.out.drop.push_back(job->job_id);
      } else if (idle_at_start[static_cast<std::size_t>(first.processor)]) {
        waiting[static_cast<std::size_t>(first.processor)] += rnd.cost(first);
        rnd.give(*job, first);
      }
    }
    return rnd.out;
  }

 private:
  // sorted(jobs, key=slack): each key once, in queue order; stable
  static std::vector<const JobView*> by_slack(Round& rnd, const std::vector<const JobView*>& jobs) {
    std::vector<std::pair<__int128, std::size_t>> keys;
    for (std::size_t k = 0; k < jobs.size(); ++k) {
      auto chain = rnd.shortest(*jobs[k], rnd.waiting);
      keys.push_back({slack(*jobs[k], rnd.now, chain ? chain->finish_ns : kNoSlackLimit), k});
    }
    std::stable_sort(keys.begin(), keys.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<const JobView*> out;
    for (const auto& key : keys) out.push_back(jobs[key.second]);
    return out;
  }
};

class EarliestFinish : public Global {
 public:
  EarliestFinish(const Setup& setup, const Knobs& knobs, bool reserve)
      : Global(setup, knobs), reserve_(reserve) {}

  Decision schedule(const View& view, const Estimator& est) override {
    Round rnd(view, est, finder_, knobs_);
    std::vector<const JobView*> jobs = head(view, knobs_.window);
    while (!jobs.empty() && rnd.any_idle()) {
      Found found = pick(rnd, jobs);
      if (!found) break;
      const JobView* job = jobs[found->first];
      jobs.erase(jobs.begin() + static_cast<std::ptrdiff_t>(found->first));
      rnd.give(*job, rnd.at(job->request.model, found->second.first()));
      remember(*job, found->second, rnd.dropped(job->job_id));
    }
    return rnd.out;
  }

 private:
  bool reserve_;
  std::map<int64_t, std::pair<int, int>> reserved_;  // job -> (model, position) next planned

  std::vector<int64_t> with_reservations(const Round& rnd, const JobView& job,
                                         const std::vector<int64_t>& waiting) const {
    std::vector<int64_t> out = waiting;
    for (const auto& [job_id, at] : reserved_) {
      if (job_id == job.job_id) continue;
      const Subgraph& sg = rnd.at(at.first, at.second);
      out[static_cast<std::size_t>(sg.processor)] += rnd.cost(sg);
    }
    return out;
  }

  // _pick: the most urgent job; one whose chain starts on a busy worker yields, its work
  // counted against that worker, and the search runs again
  Found pick(Round& rnd, const std::vector<const JobView*>& jobs) const {
    std::vector<int64_t> waiting = rnd.waiting;
    std::set<int64_t> yielded;
    while (true) {
      Found best;
      std::set<std::pair<int, int64_t>> seen;
      for (std::size_t k = 0; k < jobs.size(); ++k) {
        const JobView& job = *jobs[k];
        if (yielded.count(job.job_id) != 0) continue;
        if (!seen.insert({job.request.model, job.next_unit}).second) continue;
        auto chain = rnd.shortest(job, with_reservations(rnd, job, waiting));
        if (chain && (!best || best->second.finish_ns < chain->finish_ns)) best = {{k, *chain}};
      }
      if (!best) return best;
      const Subgraph& first = rnd.at(jobs[best->first]->request.model, best->second.first());
      if (rnd.idle[static_cast<std::size_t>(first.processor)]) return best;
      waiting[static_cast<std::size_t>(first.processor)] += rnd.cost(first);
      yielded.insert(jobs[best->first]->job_id);
    }
  }

  void remember(const JobView& job, const Chain& chain, bool dropped) {
    auto next = chain.second();
    if (reserve_ && next && !dropped) reserved_[job.job_id] = {job.request.model, *next};
    else reserved_.erase(job.job_id);
  }
};

}  // namespace

std::unique_ptr<Scheduler> shortest_expected_latency(const Setup& setup, const Knobs& knobs) {
  return std::make_unique<ShortestExpectedLatency>(setup, knobs);
}

std::unique_ptr<Scheduler> least_slack_time_first(const Setup& setup, const Knobs& knobs) {
  return std::make_unique<LeastSlackTimeFirst>(setup, knobs);
}

std::unique_ptr<Scheduler> earliest_finish(const Setup& setup, const Knobs& knobs, bool reserve) {
  return std::make_unique<EarliestFinish>(setup, knobs, reserve);
}

}  // namespace policies::band
