// replay TRACE...: feeds each decision trace's calls (docs/decision-traces.md) through the
// C++ policy its header names and compares every decision with the recorded one. Prints
// "TRACE: N decisions replay clean" or "TRACE: differs at call i (schedule at now_ns=T):
// expected {...}, got {...}" (the first difference) and exits 1; one "error: ..." line and
// status 1 for a trace it cannot read.
#include <fstream>
#include <iostream>
#include <memory>
#include <string>

#include "decision.h"
#include "trace.h"

namespace {

using namespace policies;

// 0: clean, 1: differs (printed)
int replay(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::string line;
  if (!std::getline(in, line)) throw std::runtime_error("empty trace");
  json::Value header = json::parse(line);
  const json::Value* kind = header.find("trace");
  if (kind == nullptr || kind->as_string() != "decisions")
    throw std::runtime_error("not a decision trace (no header line)");
  Setup setup = setup_from_header(header);
  std::unique_ptr<Policy> policy = make_policy(setup);
  int64_t decisions = 0;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    json::Value obj = json::parse(line);
    if (obj["call"].as_string() == "observe") {
      policy->observe(trace::completion_of(obj, setup));
      continue;
    }
    trace::ScheduleCall call;
    trace::schedule_of(obj, setup, call);
    std::string prefix = path + ": differs at call " + std::to_string(call.index) +
                         " (schedule at now_ns=" + std::to_string(call.view.now_ns) + "): ";
    Decision got;
    try {
      got = policy->schedule(call.view);
    } catch (const QueueUnread& e) {
      std::cout << prefix << e.what() << "\n";
      return 1;
    }
    ++decisions;
    if (!(got == call.expected)) {
      std::cout << prefix << "expected " << trace::to_json(call.expected, setup) << ", got "
                << trace::to_json(got, setup) << "\n";
      return 1;
    }
  }
  std::cout << path << ": " << decisions << " decisions replay clean\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: replay TRACE...\n";
    return 2;
  }
  int status = 0;
  for (int k = 1; k < argc; ++k) {
    try {
      status |= replay(argv[k]);
    } catch (const std::exception& e) {
      std::cerr << "error: " << argv[k] << ": " << e.what() << "\n";
      return 1;
    }
  }
  return status;
}
