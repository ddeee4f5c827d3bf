// Simulation (see simulation.h): the latency table, the simulated processors, the clock.
#include "simulation.h"

#include <fstream>
#include <sstream>

#include "errors.h"
#include "traffic.h"

namespace runner {

std::vector<int64_t> read_latencies(const Plan& plan, const std::string& path) {
  std::ifstream in(path);
  if (!in) throw RunnerError("cannot read latency table " + path);
  std::vector<int64_t> out(plan.subgraphs.size(), -1);
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    std::istringstream words(line.substr(0, line.find('#')));
    std::string model, extra;
    long long index = -1, latency = -1;
    if (!(words >> model)) continue;
    std::string where = path + ":" + std::to_string(number) + ": ";
    if (!(words >> index >> latency) || (words >> extra) || index < 0 || latency < 0)
      throw RunnerError(where + "expected '<model> <index> <latency_ns>' (both >= 0)");
    std::size_t s = plan.subgraph_of(plan.model_index(model), static_cast<std::size_t>(index));
    if (s == Plan::npos)
      throw RunnerError(where + "model " + model + " has no subgraph " + std::to_string(index));
    out[s] = latency;
  }
  for (std::size_t s = 0; s < out.size(); ++s) {
    if (out[s] < 0)
      throw RunnerError(path + ": no latency for " + plan.models[plan.subgraphs[s].model].name +
                        " subgraph " + std::to_string(plan.subgraphs[s].index));
  }
  return out;
}

// One simulated processor: a FIFO of jobs, the first of which runs.
class Simulation::Processor : public JobRunner {
 public:
  Processor(Simulation& sim, std::size_t p, OnDone on_done)
      : sim_(sim), p_(p), on_done_(std::move(on_done)) {}
  LoadReport wait_loaded() override {
    LoadReport report;  // every tensor zero bytes: nothing is copied
    for (std::size_t s = 0; s < sim_.plan_.subgraphs.size(); ++s) {
      const SubgraphSpec& sg = sim_.plan_.subgraphs[s];
      if (sg.processor != p_) continue;
      report.input_bytes[s].assign(sg.inputs.size(), 0);
      report.output_bytes[s].assign(sg.outputs.size(), 0);
    }
    return report;
  }
  void run(Job job) override {
    jobs_.push_back(std::move(job));
    if (jobs_.size() == 1) start();
  }
  // the running job ended now: start the next waiting one, then report it (so the next
  // one's start orders before any job the executor sends meanwhile)
  void end() {
    Job job = std::move(jobs_.front());
    jobs_.pop_front();
    Completion c;
    c.request = job.request;
    c.subgraph = job.subgraph;
    c.processor = p_;
    c.start_ns = start_ns_;
    c.end_ns = sim_.now_ns_;
    c.invoke_ns = c.end_ns - c.start_ns;
    c.outputs.assign(sim_.plan_.subgraphs[job.subgraph].outputs.size(),
                     std::make_shared<const Bytes>());
    if (!jobs_.empty()) start();  // (a job sent to an idle processor starts itself)
    on_done_(std::move(c));
  }

 private:
  void start() {
    start_ns_ = sim_.now_ns_;
    sim_.started(this, start_ns_ + sim_.latencies_[jobs_.front().subgraph]);
  }
  Simulation& sim_;
  std::size_t p_;
  OnDone on_done_;
  std::deque<Job> jobs_;
  int64_t start_ns_ = 0;
};

std::unique_ptr<JobRunner> Simulation::processor(std::size_t p, JobRunner::OnDone on_done) {
  return std::make_unique<Processor>(*this, p, std::move(on_done));
}

void Simulation::started(Processor* processor, int64_t end_ns) {
  ends_.insert({end_ns, started_++, processor});
}

void Simulation::wait_until(std::unique_lock<std::mutex>& lock, std::condition_variable&,
                            int64_t deadline_ns, int64_t next_arrival_ns) {
  if (ends_.empty() || std::get<0>(*ends_.begin()) > deadline_ns) {
    if (ends_.empty() && next_arrival_ns == Traffic::kNever)
      throw RunnerError("the simulated run stalled: requests wait, nothing runs, none arrive");
    now_ns_ = std::max(now_ns_, deadline_ns);
    return;
  }
  auto [end_ns, order, processor] = *ends_.begin();
  ends_.erase(ends_.begin());
  now_ns_ = end_ns;
  lock.unlock();  // the completion handler takes the executor's lock itself
  processor->end();
  lock.lock();
}

}  // namespace runner
