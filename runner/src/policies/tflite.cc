// Vanilla TFLite's decisions, mirroring baselines/tflite/policy.py (TflitePolicy.schedule,
// _beside, observe): each model whole on its processor, so a plan offers one subgraph per
// unit. Without `concurrent`, first come first served per processor over the queue's kind
// heads; with it, every queued job whose interpreter (model, stream) is free starts now.
#include <set>
#include <utility>

#include "decision.h"

namespace policies {
namespace {

class Tflite : public Policy {
 public:
  explicit Tflite(const Setup& setup) : setup_(setup) {
    for (const auto& plan : setup.plans) {
      last_unit_.push_back(plan.num_units - 1);
      concurrent_ = concurrent_ || plan.concurrent;
    }
  }

  Decision schedule(const View& view) override {
    return concurrent_ ? beside(view) : fifo(view);
  }

  void observe(const Completion& c) override {
    if (!concurrent_) return;
    const Subgraph* sg = setup_.plans[static_cast<std::size_t>(c.model)].by_index(c.subgraph);
    if (!c.ok || sg->last_unit() >= last_unit_[static_cast<std::size_t>(c.model)]) {
      auto it = holders_.find({c.model, c.request.stream});
      if (it != holders_.end() && it->second == c.job_id) holders_.erase(it);
    }
  }

  int64_t expected_ns(int model, int subgraph) const override {
    const auto& by_index = setup_.profile[static_cast<std::size_t>(model)];
    auto k = static_cast<std::size_t>(subgraph);
    return k < by_index.size() && by_index[k] ? *by_index[k] : 0;
  }

  bool reinsert_front() const override { return true; }

 private:
  const Setup& setup_;
  std::vector<int> last_unit_;
  bool concurrent_ = false;
  std::map<std::pair<int, int64_t>, int64_t> holders_;  // (model, stream) -> job

  const Subgraph& subgraph(const JobView& job, int position) const {
    return setup_.plans[static_cast<std::size_t>(job.request.model)]
        .subgraphs[static_cast<std::size_t>(position)];
  }

  Decision fifo(const View& view) const {
    std::set<int> free;
    for (std::size_t p = 0; p < view.processors.size(); ++p)
      if (view.processors[p].idle) free.insert(static_cast<int>(p));
    Decision out;
    for (const JobView& job : view.queue->heads()) {
      if (free.empty()) break;
      ++out.work;
      const Plan& plan = setup_.plans[static_cast<std::size_t>(job.request.model)];
      for (int k : plan.candidates(job.next_unit)) {
        const Subgraph& sg = subgraph(job, k);
        if (free.count(sg.processor) != 0) {
          out.assign.push_back({job.job_id, sg.model, sg.index});
          free.erase(sg.processor);
          break;
        }
      }
    }
    return out;
  }

  Decision beside(const View& view) {
    Decision out;
    // the whole queue: streams of one model are separate interpreters (Table II's copies)
    for (std::size_t k = 0; k < view.queue->size(); ++k) {
      const JobView& job = view.queue->at(k);
      ++out.work;
      auto held = holders_.emplace(std::make_pair(job.request.model, job.request.stream),
                                   job.job_id);
      if (held.first->second != job.job_id) continue;
      const Plan& plan = setup_.plans[static_cast<std::size_t>(job.request.model)];
      const Subgraph& sg = subgraph(job, plan.candidates(job.next_unit).at(0));
      out.assign.push_back({job.job_id, sg.model, sg.index});
    }
    return out;
  }
};

const Registration registered("baselines.tflite.policy.TflitePolicy",
                              [](const Setup& s) { return std::make_unique<Tflite>(s); });

}  // namespace
}  // namespace policies
