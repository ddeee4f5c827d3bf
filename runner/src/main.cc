// The runner's command line: reads the plan, loads the slices on pinned workers, runs the
// traffic with the built-in policy or the decision library's policy a trace header names
// (--policy), writes the logs, the decision trace (--decisions) and the last outputs; or,
// with --profile, invokes each subgraph alone and writes their times (no traffic); or, with
// --simulate, runs the traffic on a virtual clock with table latencies (simulation.h).
// Any failure ends with one `error: ...` line on stderr and exit status 1; usage errors 2.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <sstream>
#include <string>

#include "errors.h"
#include "executor.h"
#include "library_policy.h"
#include "litert_runtime.h"
#include "profile.h"
#include "sensors.h"
#include "simulation.h"

namespace runner {
namespace {

const char* kUsage =
    "usage: runner --plan FILE --slices DIR --log FILE\n"
    "              (--frames N [--in-flight K] | --streams N | --arrivals FILE)\n"
    "              [--drop-wait-ns P]\n"
    "              [--requests FILE] [--inputs DIR] [--outputs DIR] [--warmup N]\n"
    "              [--litert-runtime-dir DIR] [--litert-dispatch-dir DIR]\n"
    "              [--policy HEADER.json [--decisions FILE]]\n"
    "              [--sensors FILE [--sensor-interval-ms N] [--sensor-log FILE]]\n"
    "       runner --plan FILE --simulate LATENCIES --log FILE\n"
    "              (--frames N [--in-flight K] | --streams N | --arrivals FILE)\n"
    "              [--drop-wait-ns P] [--requests FILE] [--policy HEADER.json [--decisions FILE]]\n"
    "       runner --plan FILE --slices DIR --profile N --profile-out FILE\n"
    "              [--warmup N] [--inputs DIR]\n"
    "              [--litert-runtime-dir DIR] [--litert-dispatch-dir DIR]\n";

using Args = std::map<std::string, std::string>;

Args parse_args(int argc, char** argv) {
  Args args;
  for (int i = 1; i < argc; i += 2) {
    std::string key = argv[i];
    if (key.rfind("--", 0) != 0 || i + 1 >= argc)
      throw UsageError("bad argument '" + key + "'\n" + kUsage);
    args[key.substr(2)] = argv[i + 1];
  }
  for (const auto& [key, value] : args) {
    static const char* known[] = {"plan",
                                  "slices",
                                  "log",
                                  "frames",
                                  "in-flight",
                                  "drop-wait-ns",
                                  "streams",
                                  "arrivals",
                                  "requests",
                                  "inputs",
                                  "outputs",
                                  "warmup",
                                  "litert-runtime-dir",
                                  "litert-dispatch-dir",
                                  "policy",
                                  "decisions",
                                  "profile",
                                  "profile-out",
                                  "sensors",
                                  "sensor-interval-ms",
                                  "sensor-log",
                                  "simulate"};
    if (std::find(std::begin(known), std::end(known), key) == std::end(known)) {
      throw UsageError("unknown option --" + key + "\n" + kUsage);
    }
  }
  bool profiling = args.count("profile") || args.count("profile-out");
  bool simulating = args.count("simulate") > 0;
  for (const char* required :
       {"plan", simulating ? "simulate" : "slices", profiling ? "profile-out" : "log"}) {
    if (!args.count(required))
      throw UsageError(std::string("missing --") + required + "\n" + kUsage);
  }
  if (profiling) {
    if (!args.count("profile")) throw UsageError(std::string("missing --profile\n") + kUsage);
    for (const char* other : {"frames", "in-flight", "drop-wait-ns", "streams", "arrivals",
                              "policy", "log", "sensors"}) {
      if (args.count(other))
        throw UsageError(std::string("--profile excludes --") + other + "\n" + kUsage);
    }
  }
  if (simulating) {
    for (const char* other : {"slices", "profile", "profile-out", "inputs", "outputs", "warmup",
                              "litert-runtime-dir", "litert-dispatch-dir", "sensors",
                              "sensor-interval-ms", "sensor-log"}) {
      if (args.count(other))
        throw UsageError(std::string("--simulate excludes --") + other + "\n" + kUsage);
    }
  }
  return args;
}

// `--key`'s whole value as an integer of at least `least` (`fallback` when absent)
int64_t at_least(const Args& args, const std::string& key, int64_t least, int64_t fallback,
                 const std::string& what) {
  auto it = args.find(key);
  if (it == args.end()) return fallback;
  std::size_t used = 0;
  int64_t value = least - 1;
  try {
    value = std::stoll(it->second, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != it->second.size() || used == 0 || value < least)
    throw UsageError("--" + key + " wants " + what + " (an integer >= " + std::to_string(least) +
                     "), not '" + it->second + "'");
  return value;
}

// `--key`'s whole value as a count (0 up to INT_MAX; `fallback` when absent): "3abc", "-1"
// and "1e9" are refused, not read as 3, -1 and 1
int count(const Args& args, const std::string& key, int fallback) {
  int64_t value = at_least(args, key, 0, fallback, "a count");
  if (value > std::numeric_limits<int>::max())
    throw UsageError("--" + key + " wants a count up to " +
                     std::to_string(std::numeric_limits<int>::max()) + ", not '" +
                     args.at(key) + "'");
  return static_cast<int>(value);
}

ClosedLoop closed_loop(const Args& args) {
  if (args.count("in-flight") && !args.count("frames"))
    throw UsageError("--in-flight goes with --frames only (frames outstanding at once)");
  if (args.count("drop-wait-ns") && args.count("arrivals"))
    throw UsageError("--drop-wait-ns goes with --frames or --streams only (closed loops)");
  ClosedLoop loop;
  loop.in_flight = at_least(args, "in-flight", 1, 1, "the frames outstanding at once");
  loop.drop_wait_ns = at_least(args, "drop-wait-ns", 0, 0, "the wait after a drop in ns");
  return loop;
}

std::unique_ptr<Traffic> make_traffic(const Args& args, const Plan& plan, const ClosedLoop& loop) {
  int modes =
      static_cast<int>(args.count("frames") + args.count("streams") + args.count("arrivals"));
  if (modes != 1)
    throw UsageError(std::string("give exactly one of --frames, --streams, --arrivals\n") +
                     kUsage);
  if (args.count("frames")) return frames_traffic(plan, count(args, "frames", 0), loop);
  if (args.count("streams")) return streams_traffic(plan, count(args, "streams", 0), loop);
  return arrivals_traffic(plan, args.at("arrivals"));
}

std::string tensor_file(const std::string& dir, const ModelSpec& model, int tensor) {
  return dir + "/" + model.name + "." + std::to_string(tensor) + ".bin";
}

void read_inputs(const std::string& dir, const Plan& plan, Executor& executor) {
  for (std::size_t m = 0; m < plan.models.size(); ++m) {
    for (int t : plan.models[m].inputs) {
      std::ifstream in(tensor_file(dir, plan.models[m], t), std::ios::binary);
      if (!in) continue;  // zeros
      executor.set_input(m, t, Bytes(std::istreambuf_iterator<char>(in), {}));
    }
  }
}

void write_outputs(const std::string& dir, const Plan& plan, const Executor& executor) {
  for (std::size_t m = 0; m < plan.models.size(); ++m) {
    for (const auto& [t, bytes] : executor.last_outputs(m)) {
      std::string path = tensor_file(dir, plan.models[m], t);
      std::ofstream out(path, std::ios::binary);
      out.write(reinterpret_cast<const char*>(bytes->data()),
                static_cast<std::streamsize>(bytes->size()));
      if (!out) throw RunnerError("cannot write " + path);
    }
  }
}

std::unique_ptr<Policy> make_policy(const Args& args, const Plan& plan, const Sensors* sensors) {
  if (!args.count("policy")) {
    if (args.count("decisions")) throw UsageError("--decisions needs --policy");
    return std::make_unique<PlannedPolicy>(plan);
  }
  auto policy = std::make_unique<LibraryPolicy>(
      plan, args.at("policy"), args.count("decisions") ? args.at("decisions") : "");
  if (sensors != nullptr)
    policy->read_states([sensors](std::size_t p) { return sensors->latest(p); });
  return policy;
}

std::unique_ptr<Sensors> make_sensors(const Args& args, const Plan& plan) {
  if (!args.count("sensors")) {
    if (args.count("sensor-log") || args.count("sensor-interval-ms"))
      throw UsageError("--sensor-log and --sensor-interval-ms need --sensors");
    return nullptr;
  }
  return std::make_unique<Sensors>(plan, args.at("sensors"));
}

RuntimeFolders folders_of(const Args& args) {
  return {args.count("litert-runtime-dir") ? args.at("litert-runtime-dir") : "",
          args.count("litert-dispatch-dir") ? args.at("litert-dispatch-dir") : ""};
}

int profile(const Args& args, const Plan& plan) {
  LiteRtRuntime runtime(folders_of(args));
  Executor executor(plan, args.at("slices"), runtime, count(args, "warmup", 1));
  if (args.count("inputs")) read_inputs(args.at("inputs"), plan, executor);
  write_profile(args.at("profile-out"), plan, executor, count(args, "profile", 0));
  return 0;
}

// the traffic on a virtual clock, each subgraph taking its table latency (simulation.h)
int simulate(const Args& args, const Plan& plan, Traffic& traffic, Policy& policy) {
  Simulation simulation(plan, read_latencies(plan, args.at("simulate")));
  Executor executor(
      plan,
      [&](std::size_t p, JobRunner::OnDone done) {
        return simulation.processor(p, std::move(done));
      },
      simulation);
  RunLog log(args.at("log"), args.count("requests") ? args.at("requests") : "");
  executor.run(traffic, policy, log);
  return 0;
}

int run(int argc, char** argv) {
  Args args = parse_args(argc, argv);
  ClosedLoop loop = closed_loop(args);
  Plan plan = read_plan(args.at("plan"));
  if (args.count("profile")) return profile(args, plan);
  auto traffic = make_traffic(args, plan, loop);
  if (args.count("simulate")) {
    auto policy = make_policy(args, plan, nullptr);
    return simulate(args, plan, *traffic, *policy);
  }
  auto sensors = make_sensors(args, plan);
  auto policy = make_policy(args, plan, sensors.get());
  LiteRtRuntime runtime(folders_of(args));
  Executor executor(plan, args.at("slices"), runtime, count(args, "warmup", 1));
  if (args.count("inputs")) read_inputs(args.at("inputs"), plan, executor);
  if (sensors)
    sensors->start(count(args, "sensor-interval-ms", 100),
                   args.count("sensor-log") ? args.at("sensor-log") : "");
  {
    RunLog log(args.at("log"), args.count("requests") ? args.at("requests") : "");
    executor.run(*traffic, *policy, log);
  }
  if (sensors) sensors->stop();
  if (args.count("outputs")) write_outputs(args.at("outputs"), plan, executor);
  return 0;
}

}  // namespace
}  // namespace runner

int main(int argc, char** argv) {
  try {
    return runner::run(argc, argv);
  } catch (const std::exception& e) {
    std::string message = e.what();
    std::cerr << "error: " << message << (message.back() == '\n' ? "" : "\n");
    return dynamic_cast<const runner::UsageError*>(&e) != nullptr ? 2 : 1;
  }
}
