// ADMS's decisions, mirroring adms/scheduler.py (AdmsScheduler), adms/tables.py (Tables),
// adms/additions.py, adms/policy.py (AdmsPolicy.prepare/observe), adms/readings.py,
// adms/monitor.py and adms/priority.py: the paper's rule (eqs. 1-4 over the queue's head) in
// every reading its config names (pairing, idle_order, t_latency, score_order, slo_reading),
// every switch of the as-built variant (earliest_finish, queue_aware, exclusive_aware,
// lp_split, work_conserving, use_monitor, shed), handoffs priced by the chain tables over
// (unit, processor before), and the same caches (chain tables, options and kinds per model
// and (next unit, slot before)) so that the decisions' counted work matches too.
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
  // T_latency where the reading fixes it per job (free_device, since_arrival)
  std::optional<double> latency_ms;
};

struct Free {
  int processor = 0;
  double load = 0.0;
};

struct Knobs {
  double alpha, gamma, delta, margin_c, implicit_slo_factor, ema_alpha, refresh;
  int64_t loop_call_size;
  bool by_budget, earliest, work_conserving, queue_aware, exclusive, shed, monitor, lp_split;
  bool job_first;                    // pairing: job_first (else processor_asks)
  bool load_ordered, reversed;       // idle_order: load, reverse (else device)
  bool on_processor, since_arrival;  // t_latency (neither: free_device)
  bool highest_first;                // score_order
  explicit Knobs(const Setup& setup);
};

// adms/tables.py Tables: each model's chain table, options and kinds, keyed by
// next_unit * width + slot of the processor before; re-solves and candidates weighed are
// added to `work`.
class Tables {
 public:
  Tables(const Setup& setup, const Estimator& estimator);
  int64_t work = 0;
  // facts.handoff: {model: [[subgraph index, ns]]}
  void set_handoffs(const json::Value* handoff);
  void forget(int model);
  void update(const Subgraph& sg, bool refresh, std::optional<int64_t> ns);
  ChainTable& solved(int model);  // the table, solved (a re-solve counts its work)
  int64_t through(int model, const Subgraph& sg, int last);
  const Options& options(int model, int64_t next_unit, int last);
  const Kind& kind(int model, int64_t next_unit, int last, const std::vector<bool>& hot);

 private:
  const Setup& setup_;
  const Estimator& estimator_;
  std::vector<std::vector<int64_t>> handoff_;  // [model][position] (empty: none)
  std::vector<std::unique_ptr<ChainTable>> tables_;
  std::vector<std::map<int64_t, Options>> options_;
  std::vector<std::map<int64_t, Kind>> kinds_;

  void drop_options(int model);
  ChainTable& table(int model);
  Options allowed(int model, int64_t next_unit, int last, const std::vector<bool>& hot);
};

class Scheduler {
 public:
  Scheduler(const Setup& setup, Estimator& estimator);
  Decision schedule(const View& view);
  void set_handoffs(const json::Value* handoff) { tables_.set_handoffs(handoff); }
  void forget(int model) { tables_.forget(model); }
  void update(const Subgraph& sg, bool refresh, std::optional<int64_t> ns) {
    tables_.update(sg, refresh, ns);
  }
  LpSplit& lp() { return lp_; }

 private:
  const Setup& setup_;
  Knobs knobs_;
  Estimator& estimator_;
  Tables tables_;
  LpSplit lp_;
  int64_t work_ = 0;

  int64_t cost(const Subgraph& sg) const { return estimator_.expected(sg.model, sg.index); }
  const Subgraph& sg_at(int model, int position) const;
  const std::string& name(int processor) const;
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
  std::optional<std::pair<int, std::pair<int, int>>> first_job(
      const std::vector<Free>& free, const std::vector<Job>& jobs,
      const std::vector<int64_t>& waiting, const std::vector<int64_t>* soonest,
      const std::vector<int64_t>& reserved);
  std::vector<int64_t> reserved(const std::vector<Job>& jobs) const;
  std::vector<int64_t> soonest(const std::vector<Job>& jobs, const std::vector<int64_t>& waiting,
                               const std::vector<int64_t>& reserved, bool any_reserved);
  void spare_exclusive(std::vector<Job>& jobs);
  void steer(Job& item);
  std::vector<int64_t> shed(std::vector<Job>& jobs, const View& view);
};

// adms/readings.py Readings.read: hot processors, waiting ns per processor, idle ones in
// idle_order
struct Reading {
  std::vector<bool> hot;
  bool any_hot = false;
  std::vector<int64_t> waiting;
  std::vector<Free> free;
};
Reading read(const View& view, const Knobs& knobs);

}  // namespace policies::adms
