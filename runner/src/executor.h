// The executor: starts one worker per processor, checks what they loaded against the plan,
// then runs the traffic. Its state (requests, the policy, busy processors, the traffic) sits
// behind one mutex. Each completion is handled on the worker thread that produced it: log it,
// hand its outputs over to the request's tensors (by source tensor index), tell the policy,
// admit closed-loop arrivals, ask the policy, start what it answers and drop what it drops
// (then admit and ask again, as dropped closed-loop requests release others), all under the
// mutex after the worker's job ended, so no worker waits on a decision in the middle of a
// job. A hand-over thus costs one thread wake-up (the next worker's). The calling thread only
// admits timed arrivals (and closed-loop requests waiting after a drop: a completion that
// schedules one sooner than the thread sleeps until wakes it) and waits for the end. A
// request holds its tensors by source index and runs whichever subgraph the policy starts at
// its next unit, one at a time; it is finished when a subgraph ending at its model's last
// unit completes. A worker runs one job at a time (a concurrent policy's jobs in turn).
// Time comes from a Timeline: CLOCK_REALTIME over real workers, or a virtual clock over
// simulated processors (simulation.h) that run the same executor deterministically.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "joblog.h"
#include "plan.h"
#include "policy.h"
#include "timeline.h"
#include "traffic.h"
#include "worker.h"

namespace runner {

class LiteRtRuntime;

class Executor {
 public:
  Executor(const Plan& plan, const std::string& slices_dir, LiteRtRuntime& runtime, int warmup);
  // processor p's jobs run on make(p, on_done); time comes from `timeline` (both outlive
  // the executor's use of them)
  using MakeRunner =
      std::function<std::unique_ptr<JobRunner>(std::size_t, JobRunner::OnDone)>;
  Executor(const Plan& plan, const MakeRunner& make, Timeline& timeline);
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // byte size of a model tensor (a model input or a subgraph boundary), from the slices
  std::size_t tensor_bytes(std::size_t model, int tensor) const;
  // the bytes every request of `model` gets for input `tensor` (zeros unless set)
  void set_input(std::size_t model, int tensor, Bytes bytes);
  // runs until the traffic is finished and every request done; throws on the first failure
  void run(Traffic& traffic, Policy& policy, RunLog& log);
  // runs `subgraph` alone `times` times on its worker (model inputs as set, other inputs
  // zeros), one job after the other; their completions. Not during run().
  std::vector<Completion> profile(std::size_t subgraph, int times);
  // the model outputs of the model's last finished request (empty before any)
  const std::map<int, Tensor>& last_outputs(std::size_t model) const {
    return last_outputs_[model];
  }

 private:
  struct Request {
    Release released;  // model, arrival, frame id, stream
    int next_unit = 0;
    bool running = false;
    std::map<int, Tensor> tensors;
  };
  // what run() lends the completion handler
  struct Run {
    Traffic* traffic = nullptr;
    Policy* policy = nullptr;
    RunLog* log = nullptr;
  };

  void start_runners(const MakeRunner& make);
  void check_loaded(std::size_t processor, const LoadReport& report);
  void complete(Completion c);  // on a worker thread
  void finish(const Completion& c, int64_t now_ns);
  void step(int64_t now_ns);  // admit what is due, ask the policy, until nothing is dropped
  void admit(const std::vector<Release>& releases, int64_t now_ns);
  void apply(const Outcome& out, int64_t now_ns);
  void drop(int64_t id, int64_t now_ns);
  void send(const Start& start);
  bool over() const { return !error_.empty() || (run_.traffic->finished() && requests_.empty()); }

  const Plan& plan_;
  RealTimeline real_;
  Timeline* timeline_;
  std::map<std::pair<std::size_t, int>, std::size_t> sizes_;  // (model, tensor) -> bytes
  std::vector<std::map<int, Tensor>> inputs_, last_outputs_;  // per model
  std::mutex mutex_;                                          // guards everything below
  std::condition_variable wake_;                              // run() waits on it
  Run run_;
  std::map<int64_t, Request> requests_;  // active, by id
  std::vector<int> busy_;                // per processor: jobs sent and not completed
  int64_t next_id_ = 0;
  std::string error_;
  int64_t waiting_until_ = 0;  // run() sleeps until then, unless woken
  std::vector<Completion>* probe_ = nullptr;      // profile(): where completions go
  std::vector<std::unique_ptr<JobRunner>> workers_;  // last: stopped first
};

}  // namespace runner
