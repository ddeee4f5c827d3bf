// Band's decisions, mirroring baselines/band/: the shortest-latency search
// (planner.py ChainFinder, chains.py's programme), a decision in progress (schedulers.py
// _Round: waiting times, SLO drops, counted work) and the six schedulers (fixed_worker,
// round_robin, shortest_expected_latency, least_slack_time_first,
// heterogeneous_earliest_finish_time and its _reserved variant), with the moving-average
// estimator of estimates.h. Times are int64 ns as in the Python; slack, which Python computes
// past int64 for a job without a chain, is __int128.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <tuple>
#include <vector>

#include "decision.h"
#include "estimates.h"

namespace policies::band {

// planner.py Chain: positions (in the plan) in execution order, ns from now to its end
struct Chain {
  std::vector<int> positions;
  int64_t finish_ns = 0;
  int first() const { return positions.front(); }
  std::optional<int> second() const {
    if (positions.size() < 2) return std::nullopt;
    return positions[1];
  }
};

// chains.py FlatPlan: for end unit j the ranges (start unit descending), for each range its
// subgraphs' positions in plan order; and the search's step count per next unit.
struct FlatPlan {
  std::vector<int> end_ptr, start, sg_ptr, position;
  std::vector<int64_t> steps;  // subgraphs starting at or after each unit
  explicit FlatPlan(const Plan& plan);
};

// ChainFinder.shortest over one setup's plans.
class ChainFinder {
 public:
  explicit ChainFinder(const Setup& setup);
  int64_t steps(int model, int64_t next_unit) const;
  // costs: by position; waiting: by processor
  std::optional<Chain> shortest(int model, int64_t next_unit, const std::vector<int64_t>& waiting,
                                const std::vector<int64_t>& costs) const;

 private:
  const Setup* setup_;
  std::vector<FlatPlan> flat_;
};

struct Knobs {
  bool drop_on_slo = true;
  bool as_written = false;       // slo_check: written
  std::optional<int64_t> window;  // schedule_window_size (none: every job)
};

// schedulers.py _Round: one decision in progress.
class Round {
 public:
  Round(const View& view, const Estimator& est, const ChainFinder& finder, const Knobs& knobs);
  int64_t now = 0;
  std::vector<int64_t> waiting;  // by processor
  std::vector<bool> idle;        // by processor
  Decision out;

  bool any_idle() const;
  int64_t cost(const Subgraph& sg) const;  // the estimate of its (model, index)
  std::optional<Chain> shortest(const JobView& job, const std::vector<int64_t>& waiting);
  bool violates_slo(const JobView& job, const Subgraph& sg) const;
  bool give(const JobView& job, const Subgraph& sg, bool device_queue = false);
  const Subgraph& at(int model, int position) const;
  const View& view() const { return *view_; }
  bool dropped(int64_t job_id) const;

 private:
  const View* view_;
  const Estimator* est_;
  const ChainFinder* finder_;
  const Knobs* knobs_;
  std::map<int, std::vector<int64_t>> costs_;  // model -> cost by position (this round)
  std::map<std::tuple<int, int64_t, std::vector<int64_t>>, std::optional<Chain>> chains_;
  const std::vector<int64_t>& costs(int model);
  // adds n to out.performed (docs/decision-cost.md: the work this library actually did)
  void performed(int64_t n) { out.performed = (out.performed < 0 ? 0 : out.performed) + n; }
};

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  virtual Decision schedule(const View& view, const Estimator& est) = 0;
};

// by conf: scheduler, drop_on_slo, slo_check, schedule_window_size; facts: worker_map
std::unique_ptr<Scheduler> make_scheduler(const Setup& setup);
// the queue's first jobs, as _head(view.queue, queue_head)
std::vector<const JobView*> head(const View& view, const std::optional<int64_t>& window);

std::unique_ptr<Scheduler> fixed_worker(const Setup& setup, const Knobs& knobs);
std::unique_ptr<Scheduler> round_robin(const Setup& setup, const Knobs& knobs);
std::unique_ptr<Scheduler> shortest_expected_latency(const Setup& setup, const Knobs& knobs);
std::unique_ptr<Scheduler> least_slack_time_first(const Setup& setup, const Knobs& knobs);
std::unique_ptr<Scheduler> earliest_finish(const Setup& setup, const Knobs& knobs, bool reserve);

}  // namespace policies::band
