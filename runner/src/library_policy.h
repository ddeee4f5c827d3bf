// A policy of the C++ decision library (src/policies/) run by the executor: the header of a
// decision trace (docs/decision-traces.md) names it and holds what it was prepared with
// (config, processors, plans, profile, facts). This class is the executor-side port of the
// Python runtime's core (harness/runtime/core.py): the global queue of waiting jobs (a job
// re-enters at the front or back after each subgraph, as the policy says), per processor the
// running subgraph and a local FIFO of assigned ones, and the view the policy reads after
// every event (processors idle / available_ns from the policy's own estimates / queued; the
// latest sensor sample as `state`, null without --sensors). Decisions become starts in the
// plan file's numbering; completions are observed with the workers' measured times.
//
// The header's plans and the plan file must describe the same run, checked when built:
// the same processors (by name) and models. A model whose plan-file subgraphs are
// alternatives (units=) has the header's subgraphs, matched by index, with the same
// processor and units. A chain model's header subgraphs, in order, are the plan file's
// subgraphs 0, 1, ... (same index, same processor) and cover its units one after the other.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "decision_log.h"
#include "plan.h"
#include "policies/decision.h"
#include "policy.h"

namespace runner {

class LibraryPolicy : public Policy {
 public:
  // throws RunnerError (one line) when the header cannot be read or does not match `plan`
  LibraryPolicy(const Plan& plan, const std::string& header_path,
                const std::string& decisions_path);
  void arrive(const Arrival& arrival, int64_t now_ns) override;
  void complete(const Ran& ran, int64_t now_ns, Outcome& out) override;
  void decide(int64_t now_ns, Outcome& out) override;
  bool concurrent() const override { return concurrent_; }
  void flush() override;
  // where the views' `state` comes from: plan file processor -> its latest sample
  using States = std::function<std::optional<policies::SensorState>(std::size_t)>;
  void read_states(States states) { states_ = std::move(states); }
  const policies::Setup& setup() const { return setup_; }

 private:
  using Sg = const policies::Subgraph*;
  struct Lane {
    std::optional<std::pair<int64_t, Sg>> running;  // job id, subgraph
    int64_t running_since = 0;
    std::deque<std::pair<int64_t, Sg>> waiting;
    std::map<int64_t, std::pair<Sg, int64_t>> beside;  // concurrent: job -> (subgraph, start)
    bool idle() const { return !running && waiting.empty() && beside.empty(); }
  };
  class LiveQueue;

  void check_processors();
  void check_model(std::size_t model);
  void check_chain(std::size_t model, const policies::Plan& hp);
  void check_alternatives(std::size_t model, const policies::Plan& hp);
  void check_subgraph(const policies::Subgraph& sg, const SubgraphSpec& spec,
                      const std::string& at);
  policies::ProcessorView view_of(const Lane& lane, int64_t now_ns) const;
  void assign(const policies::Assignment& a, int64_t now_ns, Outcome& out);
  void run(Lane& lane, int64_t job, Sg sg, int64_t now_ns, Outcome& out);
  void take(int64_t job);
  Start start_of(int64_t job, Sg sg) const;
  std::string where() const;

  const Plan& plan_;
  std::string header_path_;
  policies::Setup setup_;
  std::unique_ptr<policies::Policy> policy_;
  std::vector<std::size_t> to_setup_model_;      // plan file model -> header plan
  std::vector<std::size_t> to_plan_model_;       // header plan -> plan file model
  std::vector<std::size_t> to_plan_processor_;   // header processor -> plan file processor
  std::vector<std::size_t> to_setup_processor_;  // plan file processor -> header processor
  std::vector<Sg> to_setup_subgraph_;            // plan file subgraph -> header subgraph
  std::vector<std::vector<std::size_t>> to_plan_subgraph_;  // [header model][position]
  bool concurrent_ = false;
  bool front_ = false;
  std::map<int64_t, policies::JobView> jobs_;  // by job id (= the executor's request id)
  std::deque<int64_t> queue_;                  // waiting job ids, front first
  std::vector<Lane> lanes_;                    // header processor order
  std::unique_ptr<DecisionLog> log_;
  States states_;
};

}  // namespace runner
