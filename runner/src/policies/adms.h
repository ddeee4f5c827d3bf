// ADMS's decisions, mirroring adms/scheduler.py (AdmsScheduler), adms/policy.py
// (AdmsPolicy.prepare/observe), adms/readings.py, adms/monitor.py and adms/priority.py: the
// paper's rule (eqs. 1-4 over the queue's head, idle processors by preference) and every
// switch of the as-built variant (earliest_finish, queue_aware, exclusive_aware,
// load_ordered, lp_split, work_conserving, use_monitor, shed), the same caches (chain
// tables, options and kinds per model) so that the decisions' counted work matches too.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "adms_lp.h"
#include "decision.h"
#include "estimates.h"

namespace policies::adms {

// a job's fastest way to finish its model starting on one processor
struct Option {
  int processor = 0;
  int64_t ns = 0;
  int position = 0;  // the subgraph to run now (position in its plan)
};
using Options = std::vector<Option>;  // insertion order, one per processor

struct Kind {
  std::vector<bool> hot;
  Options options;
  int64_t avg_ns = 0;
  double avg_ms = 0.0;
  double remaining_ms = 0.0;
};

struct Job {
  int position = 0;
  const JobView* job = nullptr;
  Options options;
  std::optional<double> slo_ms;
  double enqueue_ms = 0.0, avg_ms = 0.0, remaining_ms = 0.0, wait = 0.0;
};

struct Free {
  int processor = 0;
  double load = 0.0;
};

struct Knobs {
  double alpha, gamma, delta, margin_c, implicit_slo_factor, ema_alpha, refresh;
  int64_t loop_call_size;
  bool by_budget, earliest, work_conserving, queue_aware, exclusive, shed, monitor,
      load_ordered, lp_split;
  explicit Knobs(const Setup& setup);
};

class Scheduler {
 public:
  Scheduler(const Setup& setup, Estimator& estimator);
  Decision schedule(const View& view);
  void forget(int model);
  void update(const Subgraph& sg, bool refresh, std::optional<int64_t> ns);
  LpSplit& lp() { return lp_; }

 private:
  const Setup& setup_;
  Knobs knobs_;
  Estimator& estimator_;
  std::vector<std::unique_ptr<ChainTable>> tables_;
  std::vector<std::map<int64_t, Options>> options_;
  std::vector<std::map<int64_t, Kind>> kinds_;
  LpSplit lp_;
  int64_t work_ = 0;

  int64_t cost(const Subgraph& sg) const { return estimator_.expected(sg.model, sg.index); }
  const Subgraph& sg_at(int model, int position) const;
  const std::string& name(int processor) const;
  ChainTable& table(int model);
  std::vector<int64_t> rest(int model);
  const Options& options(int model, int64_t next_unit);
  Options allowed(int model, int64_t next_unit, const std::vector<bool>& hot);
  const Kind& kind(int model, int64_t next_unit, const std::vector<bool>& hot);
  Job job(int position, const JobView& j, const View& view, const std::vector<bool>& hot,
          double now_ms);
  double score(const Job& item, int64_t latency_ns, double resource) const;
  std::optional<std::pair<int, int>> lowest(const Free& f, const std::vector<Job>& jobs,
                                            const std::vector<int64_t>& waiting,
                                            const std::vector<int64_t>* soonest,
                                            const std::vector<int64_t>& reserved);
  std::optional<std::pair<int, std::pair<int, int>>> pick(const std::vector<Free>& free,
                                                         const std::vector<Job>& jobs,
                                                         const std::vector<int64_t>& waiting);
  std::vector<int64_t> reserved(const std::vector<Job>& jobs) const;
  std::vector<int64_t> soonest(const std::vector<Job>& jobs, const std::vector<int64_t>& waiting,
                               const std::vector<int64_t>& reserved, bool any_reserved);
  void spare_exclusive(std::vector<Job>& jobs);
  void steer(Job& item);
  std::vector<int64_t> shed(std::vector<Job>& jobs, const View& view);
  void drop_options(int model);
};

// adms/readings.py Readings.read: hot processors, waiting ns per processor, idle ones by
// preference
struct Reading {
  std::vector<bool> hot;
  bool any_hot = false;
  std::vector<int64_t> waiting;
  std::vector<Free> free;
};
Reading read(const View& view, const Knobs& knobs);

}  // namespace policies::adms
