// decision_bench TRACE REPEATS: the time of every decision of a decision trace
// (docs/decision-traces.md) through the C++ policy its header names, against the work the
// policy counted for it (docs/decision-cost.md).
//
// The trace's calls are read once; then the whole trace is replayed REPEATS times, each
// time through a freshly built policy (its estimates and reservations evolve as recorded),
// and each schedule() call alone is timed with the steady clock. Every replayed decision is
// compared with the recorded one, so a timing is only ever of the decision the Python made.
// Prints one tab-separated line per schedule call:
//   call  work  performed  assigned  dropped  queue_len  read  min_ns  median_ns
// (performed: Decision::performed, the work the library actually did; -1: as counted)
// (read: the jobs the recorded policy read, its queue's prefix and kind heads)
// after a header line "# clock_ns <median cost of an empty timed interval>".
// Exit 1 with one "error: ..." line when the trace cannot be read or a decision differs.
#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "decision.h"
#include "trace.h"

namespace {

using namespace policies;
using Clock = std::chrono::steady_clock;

struct Call {
  std::unique_ptr<trace::ScheduleCall> schedule;  // null for an observe call
  Completion completion;
};

struct Trace {
  Setup setup;
  std::vector<Call> calls;
};

std::unique_ptr<Trace> read_trace(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::string line;
  if (!std::getline(in, line)) throw std::runtime_error("empty trace");
  auto t = std::make_unique<Trace>();
  t->setup = setup_from_header(json::parse(line));
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    json::Value obj = json::parse(line);
    Call call;
    if (obj["call"].as_string() == "observe") {
      call.completion = trace::completion_of(obj, t->setup);
    } else {
      call.schedule = std::make_unique<trace::ScheduleCall>();
      trace::schedule_of(obj, t->setup, *call.schedule);
    }
    t->calls.push_back(std::move(call));
  }
  return t;
}

int64_t elapsed_ns(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count();
}

// one replay of the whole trace; times[k] = ns of the k-th schedule call
void replay_once(const Trace& t, std::vector<int64_t>& times, std::vector<int64_t>& performed) {
  std::unique_ptr<Policy> policy = make_policy(t.setup);
  std::size_t k = 0;
  for (const Call& call : t.calls) {
    if (!call.schedule) {
      policy->observe(call.completion);
      continue;
    }
    Clock::time_point a = Clock::now();
    Decision got = policy->schedule(call.schedule->view);
    Clock::time_point b = Clock::now();
    performed[k] = got.performed;
    times[k++] = elapsed_ns(a, b);
    if (!(got == call.schedule->expected))
      throw std::runtime_error("decision differs at call " +
                               std::to_string(call.schedule->index) + ": expected " +
                               trace::to_json(call.schedule->expected, t.setup) + ", got " +
                               trace::to_json(got, t.setup));
  }
}

int64_t median(std::vector<int64_t> v) {
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

// the median cost of timing nothing (two clock reads), over many tries
int64_t clock_ns() {
  std::vector<int64_t> v(10001);
  for (int64_t& x : v) {
    Clock::time_point a = Clock::now();
    Clock::time_point b = Clock::now();
    x = elapsed_ns(a, b);
  }
  return median(v);
}

void bench(const Trace& t, int repeats) {
  std::size_t n = 0;
  for (const Call& c : t.calls) n += c.schedule ? 1 : 0;
  std::vector<std::vector<int64_t>> runs(repeats, std::vector<int64_t>(n));
  std::vector<int64_t> performed(n);
  for (int r = 0; r < repeats; ++r) replay_once(t, runs[r], performed);
  std::cout << "# clock_ns " << clock_ns() << "\n";
  std::size_t k = 0;
  for (const Call& c : t.calls) {
    if (!c.schedule) continue;
    std::vector<int64_t> samples(repeats);
    for (int r = 0; r < repeats; ++r) samples[r] = runs[r][k];
    const Decision& d = c.schedule->expected;
    std::cout << c.schedule->index << '\t' << d.work << '\t' << performed[k] << '\t'
              << d.assign.size() << '\t'
              << d.drop.size() << '\t' << c.schedule->queue.size() << '\t'
              << c.schedule->queue.prefix.size() + c.schedule->queue.head_jobs.size() << '\t'
              << *std::min_element(samples.begin(), samples.end()) << '\t' << median(samples)
              << '\n';
    ++k;
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: decision_bench TRACE REPEATS\n";
    return 2;
  }
  std::string text = argv[2];
  if (text.empty() || text.size() > 6 ||
      text.find_first_not_of("0123456789") != std::string::npos || std::stoi(text) < 1) {
    std::cerr << "error: REPEATS must be a whole number from 1 to 999999, not '" << text
              << "'\n";
    return 2;
  }
  try {
    bench(*read_trace(argv[1]), std::stoi(text));
  } catch (const std::exception& e) {
    std::cerr << "error: " << argv[1] << ": " << e.what() << "\n";
    return 1;
  }
  return 0;
}
