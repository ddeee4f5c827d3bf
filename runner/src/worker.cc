// Worker: pinning, loading (on the pinned thread, so accelerator threads inherit the cores),
// and the job loop. A failure while loading is reported through the LoadReport; a failure in
// a job through its Completion; neither escapes the thread.
#include "worker.h"

#include <sched.h>

#include <chrono>
#include <cstring>

#include "backend.h"
#include "clock.h"
#include "errors.h"

namespace runner {
namespace {

void pin(const ProcessorSpec& p) {
  if (p.cores.empty()) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int core : p.cores) CPU_SET(core, &set);
  if (sched_setaffinity(0, sizeof(set), &set) != 0) {
    throw RunnerError("processor " + p.name + ": cannot pin to its cores: " + std::strerror(errno));
  }
}

void warm_up(Slice& slice, int runs) {
  for (std::size_t i = 0; i < slice.num_inputs(); ++i) {
    Bytes zeros(slice.input_bytes(i), 0);
    slice.write_input(i, zeros.data());
  }
  for (int r = 0; r < runs; ++r) slice.invoke();
}

}  // namespace

Worker::Worker(const Plan& plan, std::size_t processor, const std::string& slices_dir,
               LiteRtRuntime& runtime, int warmup, OnDone on_done)
    : plan_(plan),
      processor_(processor),
      on_done_(std::move(on_done)),
      loaded_(load_promise_.get_future()) {
  thread_ =
      std::thread([this, slices_dir, &runtime, warmup] { main(slices_dir, runtime, warmup); });
}

Worker::~Worker() {
  Job stop;
  stop.stop = true;
  jobs_.put(std::move(stop));
  thread_.join();
}

void Worker::main(const std::string& slices_dir, LiteRtRuntime& runtime, int warmup) {
  std::unique_ptr<Backend> backend;
  std::map<std::size_t, std::unique_ptr<Slice>> slices;
  LoadReport report;
  try {
    pin(plan_.processors[processor_]);
    backend = make_backend(plan_.processors[processor_], runtime);
    for (std::size_t s = 0; s < plan_.subgraphs.size(); ++s) {
      if (plan_.subgraphs[s].processor != processor_) continue;
      auto slice = backend->load(slices_dir + "/" + plan_.subgraphs[s].slice);
      warm_up(*slice, warmup);
      for (std::size_t i = 0; i < slice->num_inputs(); ++i)
        report.input_bytes[s].push_back(slice->input_bytes(i));
      for (std::size_t i = 0; i < slice->num_outputs(); ++i)
        report.output_bytes[s].push_back(slice->output_bytes(i));
      slices[s] = std::move(slice);
    }
  } catch (const std::exception& e) {
    report.error = e.what();
  }
  bool ok = report.error.empty();
  load_promise_.set_value(std::move(report));
  std::chrono::microseconds spin(plan_.processors[processor_].spin_us);
  for (Job job = jobs_.take(spin); !job.stop; job = jobs_.take(spin)) {
    if (ok) execute(job, *slices.at(job.subgraph));
  }
}

void Worker::execute(const Job& job, Slice& slice) {
  Completion c;
  c.request = job.request;
  c.subgraph = job.subgraph;
  c.processor = processor_;
  c.start_ns = realtime_ns();
  try {
    for (std::size_t i = 0; i < job.inputs.size(); ++i) slice.write_input(i, job.inputs[i]->data());
    int64_t invoke_start = realtime_ns();
    slice.invoke();
    int64_t invoke_end = realtime_ns();
    for (std::size_t i = 0; i < slice.num_outputs(); ++i) {
      auto out = std::make_shared<Bytes>(slice.output_bytes(i));
      slice.read_output(i, out->data());
      c.outputs.push_back(std::move(out));
    }
    c.end_ns = realtime_ns();
    c.invoke_ns = invoke_end - invoke_start;
    c.copy_ns = (c.end_ns - c.start_ns) - c.invoke_ns;
  } catch (const std::exception& e) {
    c.end_ns = realtime_ns();
    c.error = e.what();
  }
  on_done_(std::move(c));
}

}  // namespace runner
