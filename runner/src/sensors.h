// The processor monitor's readings on the phone (`--sensors FILE`): which sysfs files give
// each processor's temperature, frequencies, power and throttling temperature (a number in
// the file's first word, times `scale=`), and which CPUs' /proc/stat deltas give its load. A
// sampling thread reads them every interval; a policy's view gets each processor's latest
// sample as its `state` (as harness/runtime/core.py hands the sensor cache's to its views),
// and `--sensor-log` keeps every sample. `throttled` is derived as devices/adb/sensors.py
// derives it: the frequency cap (`cap_frequency_hz`, scaling_max_freq) below the maximum
// (`max_frequency_hz`, cpuinfo_max_freq); unknown when either is.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "joblog.h"
#include "plan.h"
#include "policies/decision.h"

namespace runner {

// the fields a sensor line may give, in SensorState's order
enum class Field {
  temperature_c,
  frequency_hz,
  max_frequency_hz,
  power_w,
  throttle_temperature_c,
  load,
  cap_frequency_hz
};

struct SensorSpec {
  std::string where;  // "<file>:<line>"
  std::string path;   // the file read (load: the stat file)
  double scale = 1.0;
  std::vector<int> cpus;  // load only
};

class Sensors {
 public:
  // reads the --sensors file; a file that cannot be read now is one RunnerError naming it
  Sensors(const Plan& plan, const std::string& path);
  ~Sensors();
  Sensors(const Sensors&) = delete;
  Sensors& operator=(const Sensors&) = delete;

  // one sample now, then one every `interval_ms` on a thread until stop()
  void start(int interval_ms, const std::string& log_path);
  void stop();
  // the latest sample of plan processor `p` (none before the first, or with no sensors)
  std::optional<policies::SensorState> latest(std::size_t p) const;

 private:
  using Jiffies = std::map<int, std::pair<int64_t, int64_t>>;  // cpu -> (busy, total)
  void sample();
  policies::SensorState read(std::size_t p, int64_t t_ns);
  std::optional<double> load(std::size_t p);
  void log(std::size_t p, const policies::SensorState& s);

  const Plan& plan_;
  std::vector<std::map<Field, SensorSpec>> specs_;  // per plan processor
  std::vector<std::optional<Jiffies>> jiffies_;     // per processor: the last stat read
  std::optional<LogFile> log_;
  mutable std::mutex mutex_;  // guards latest_ and stopping_
  std::condition_variable wake_;
  std::vector<std::optional<policies::SensorState>> latest_;
  bool stopping_ = false;
  int interval_ms_ = 100;
  std::thread thread_;
};

// a double as Python's repr writes it (shortest round-trip digits; fixed from 1e-4 to
// 1e16, else d.ddde+XX): JSON that Python reads back as the float it would have recorded
std::string format_double(double value);

}  // namespace runner
