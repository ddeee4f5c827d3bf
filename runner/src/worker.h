// One worker per processor: a thread pinned to the processor's cores (sched_setaffinity) that
// creates the processor's backend, loads and owns its slices, then runs the jobs the executor
// sends it, one at a time, timing the input/output copies apart from the invoke. It reports
// each completion by calling the executor on its own thread (no hop through another thread).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "mailbox.h"
#include "plan.h"

namespace runner {

using Bytes = std::vector<uint8_t>;
using Tensor = std::shared_ptr<const Bytes>;

struct Job {
  int64_t request = 0;
  std::size_t subgraph = 0;    // index into Plan::subgraphs
  std::vector<Tensor> inputs;  // in the slice's input order
  bool stop = false;           // ends the worker
};

struct Completion {
  int64_t request = 0;
  std::size_t subgraph = 0;
  std::size_t processor = 0;
  int64_t start_ns = 0, end_ns = 0;    // CLOCK_REALTIME: job taken .. outputs copied out
  int64_t copy_ns = 0, invoke_ns = 0;  // inputs in + outputs out; the invoke alone
  std::vector<Tensor> outputs;         // in the slice's output order
  std::string error;                   // non-empty: the job failed
};

// What a worker loaded: byte sizes of each slice's inputs and outputs, by subgraph.
struct LoadReport {
  std::string error;
  std::map<std::size_t, std::vector<std::size_t>> input_bytes, output_bytes;
};

class LiteRtRuntime;

// What runs a processor's jobs, one at a time in the order sent: a Worker (a pinned thread
// over a backend) or a simulated processor (simulation.h).
class JobRunner {
 public:
  using OnDone = std::function<void(Completion)>;
  virtual ~JobRunner() = default;
  // what it loaded (blocks until it has)
  virtual LoadReport wait_loaded() = 0;
  // queues `job`; its completion goes to the OnDone it was made with
  virtual void run(Job job) = 0;
};

class Worker : public JobRunner {
 public:
  // starts the thread, which pins itself, loads its processor's slices from `slices_dir`, runs
  // each `warmup` times, then runs jobs, calling `on_done` (on this thread) after each
  Worker(const Plan& plan, std::size_t processor, const std::string& slices_dir,
         LiteRtRuntime& runtime, int warmup, OnDone on_done);
  ~Worker() override;
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  LoadReport wait_loaded() override { return loaded_.get(); }
  void run(Job job) override { jobs_.put(std::move(job)); }

 private:
  void main(const std::string& slices_dir, LiteRtRuntime& runtime, int warmup);
  void execute(const Job& job, class Slice& slice);

  const Plan& plan_;
  std::size_t processor_;
  Mailbox<Job> jobs_;
  OnDone on_done_;
  std::promise<LoadReport> load_promise_;
  std::future<LoadReport> loaded_;
  std::thread thread_;
};

}  // namespace runner
