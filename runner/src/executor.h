// The executor: starts one worker per processor, checks what they loaded against the plan,
// then runs the traffic. Its loop (one thread) admits arrivals, asks the policy for
// assignments, sends jobs to idle workers, and on each completion logs it, hands the outputs
// over to the request's tensors (by source tensor index) and readies the request's next
// subgraph. A request's subgraphs run in plan order; a worker runs one job at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "joblog.h"
#include "mailbox.h"
#include "plan.h"
#include "policy.h"
#include "traffic.h"
#include "worker.h"

namespace runner {

class LiteRtRuntime;

class Executor {
 public:
  Executor(const Plan& plan, const std::string& slices_dir, LiteRtRuntime& runtime, int warmup);
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // byte size of a model tensor (a model input or a subgraph boundary), from the slices
  std::size_t tensor_bytes(std::size_t model, int tensor) const;
  // the bytes every request of `model` gets for input `tensor` (zeros unless set)
  void set_input(std::size_t model, int tensor, Bytes bytes);
  void run(Traffic& traffic, const Policy& policy, RunLog& log);
  // the model outputs of the model's last finished request (empty before any)
  const std::map<int, Tensor>& last_outputs(std::size_t model) const { return last_outputs_[model]; }

 private:
  struct Request {
    std::size_t model = 0;
    int64_t arrival_ns = 0;
    std::size_t next = 0;  // position of the next subgraph in the model's order
    std::map<int, Tensor> tensors;
  };

  void check_loaded(std::size_t processor, const LoadReport& report);
  void admit(const std::vector<Release>& releases);
  void dispatch(const Policy& policy);
  void send(const ReadyJob& job, std::size_t processor);
  void finish(const Completion& c, Traffic& traffic, RunLog& log);
  void ready_next(int64_t id, Request& request);

  const Plan& plan_;
  Mailbox<Completion> done_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::map<std::pair<std::size_t, int>, std::size_t> sizes_;  // (model, tensor) -> bytes
  std::vector<std::map<int, Tensor>> inputs_, last_outputs_;  // per model
  std::map<int64_t, Request> requests_;                       // active, by id
  std::vector<ReadyJob> ready_;
  std::vector<bool> idle_;
  int64_t next_id_ = 0;
};

}  // namespace runner
