// The Band policy around its scheduler, mirroring baselines/band/policy.py (BandPolicy:
// from_trace, prepare, schedule, observe): the scheduler its config names, estimates seeded
// from the profile and moved by every finished subgraph.
#include <stdexcept>

#include "band.h"

namespace policies::band {

std::unique_ptr<Scheduler> make_scheduler(const Setup& setup) {
  Knobs knobs;
  knobs.drop_on_slo = setup.conf_bool("drop_on_slo");
  knobs.as_written = setup.conf_string("slo_check") == "written";
  int64_t window = setup.conf_int("schedule_window_size");
  if (window > 0) knobs.window = window;
  std::string kind = setup.conf_string("scheduler");
  if (kind == "fixed_worker") return fixed_worker(setup, knobs);
  if (kind == "round_robin") return round_robin(setup, knobs);
  if (kind == "shortest_expected_latency") return shortest_expected_latency(setup, knobs);
  if (kind == "least_slack_time_first") return least_slack_time_first(setup, knobs);
  if (kind == "heterogeneous_earliest_finish_time") return earliest_finish(setup, knobs, false);
  if (kind == "heterogeneous_earliest_finish_time_reserved")
    return earliest_finish(setup, knobs, true);
  throw std::runtime_error("band: unknown scheduler " + kind);
}

namespace {

class Band : public Policy {
 public:
  explicit Band(const Setup& setup)
      : estimator_(setup.conf_double("ema_alpha")),
        scheduler_(make_scheduler(setup)) {
    estimator_.seed(setup);
  }

  Decision schedule(const View& view) override { return scheduler_->schedule(view, estimator_); }

  void observe(const Completion& c) override {
    if (c.ok) estimator_.update(c.model, c.subgraph, c.latency_ns());
  }

  int64_t expected_ns(int model, int subgraph) const override {
    return estimator_.expected(model, subgraph);
  }

  bool reinsert_front() const override { return true; }

 private:
  Estimator estimator_;
  std::unique_ptr<Scheduler> scheduler_;
};

const Registration registered("baselines.band.policy.BandPolicy",
                              [](const Setup& s) { return std::make_unique<Band>(s); });

}  // namespace
}  // namespace policies::band
