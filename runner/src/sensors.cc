// Reading the --sensors files on a thread (see sensors.h).
#include "sensors.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "clock.h"
#include "errors.h"

namespace runner {
namespace {

const std::map<std::string, Field> kFields{
    {"temperature_c", Field::temperature_c},
    {"frequency_hz", Field::frequency_hz},
    {"max_frequency_hz", Field::max_frequency_hz},
    {"power_w", Field::power_w},
    {"throttle_temperature_c", Field::throttle_temperature_c},
    {"load", Field::load},
    {"cap_frequency_hz", Field::cap_frequency_hz}};

// the file's first word as a number (Python's float(word)); none when unreadable or not one
std::optional<double> first_number(const std::string& path) {
  std::ifstream in(path);
  std::string word;
  if (!in || !(in >> word)) return std::nullopt;
  char* end = nullptr;
  double value = std::strtod(word.c_str(), &end);
  if (end != word.c_str() + word.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

// /proc/stat's per-CPU lines: busy and total of the first eight columns (idle: 4th and 5th)
std::optional<std::map<int, std::pair<int64_t, int64_t>>> read_stat(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::map<int, std::pair<int64_t, int64_t>> out;
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string name;
    words >> name;
    if (name.size() < 4 || name.compare(0, 3, "cpu") != 0) continue;
    if (name.find_first_not_of("0123456789", 3) != std::string::npos) continue;
    int64_t column[8];
    int k = 0;
    for (; k < 8 && (words >> column[k]); ++k) {
    }
    if (k < 8) continue;
    int64_t total = 0;
    for (int64_t c : column) total += c;
    out[std::stoi(name.substr(3))] = {total - column[3] - column[4], total};
  }
  return out;
}

SensorSpec spec_of(const std::string& where, std::istringstream& words, Field field) {
  SensorSpec spec{where, field == Field::load ? "/proc/stat" : "", 1.0, {}};
  for (std::string word; words >> word;) {
    auto eq = word.find('=');
    std::string key = word.substr(0, eq),
                value = eq == std::string::npos ? "" : word.substr(eq + 1);
    if (key == "path") {
      spec.path = value;
    } else if (key == "scale") {
      char* end = nullptr;
      spec.scale = std::strtod(value.c_str(), &end);
      if (value.empty() || *end != '\0') throw RunnerError(where + ": scale= wants a number");
    } else if (key == "cpus" && field == Field::load) {
      std::istringstream list(value);
      for (std::string c; std::getline(list, c, ',');) spec.cpus.push_back(std::atoi(c.c_str()));
    } else if (key == "stat" && field == Field::load) {
      spec.path = value;
    } else {
      throw RunnerError(where + ": unknown key '" + key + "'");
    }
  }
  if (field == Field::load ? spec.cpus.empty() : spec.path.empty())
    throw RunnerError(where + (field == Field::load ? ": load wants cpus=" : ": missing path="));
  return spec;
}

}  // namespace

std::string format_double(double value) {
  char text[64];
  auto end = std::to_chars(text, text + sizeof text, value, std::chars_format::scientific).ptr;
  std::string sci(text, end);  // shortest round-trip digits: [-]d[.ddd]e(+|-)XX
  std::size_t e = sci.find('e');
  int exponent = std::stoi(sci.substr(e + 1));
  if (exponent < -4 || exponent >= 16) return sci;  // Python's repr switches there
  bool negative = sci[0] == '-';
  std::string digits = sci.substr(negative ? 1 : 0, e - (negative ? 1 : 0));
  digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
  std::string out;
  if (exponent < 0) {
    out = "0." + std::string(static_cast<std::size_t>(-exponent - 1), '0') + digits;
  } else {
    std::size_t point = static_cast<std::size_t>(exponent) + 1;
    if (digits.size() < point) digits.append(point - digits.size(), '0');
    out = digits.substr(0, point) + "." + (digits.size() > point ? digits.substr(point) : "0");
  }
  return (negative ? "-" : "") + out;
}

Sensors::Sensors(const Plan& plan, const std::string& path)
    : plan_(plan),
      specs_(plan.processors.size()),
      jiffies_(plan.processors.size()),
      latest_(plan.processors.size()) {
  std::ifstream in(path);
  if (!in) throw RunnerError("--sensors: cannot read " + path);
  int number = 0;
  for (std::string raw; std::getline(in, raw);) {
    std::string where = path + ":" + std::to_string(++number);
    std::istringstream words(raw.substr(0, raw.find('#')));
    std::string kind, processor, field;
    if (!(words >> kind)) continue;
    if (kind != "sensor" || !(words >> processor >> field))
      throw RunnerError(where + ": expected 'sensor <processor> <field> path=<file>'");
    std::size_t p = 0;
    for (; p < plan.processors.size() && plan.processors[p].name != processor; ++p) {
    }
    if (p == plan.processors.size()) throw RunnerError(where + ": no processor " + processor);
    auto f = kFields.find(field);
    if (f == kFields.end()) throw RunnerError(where + ": unknown field '" + field + "'");
    SensorSpec spec = spec_of(where, words, f->second);
    if (!std::ifstream(spec.path)) throw RunnerError(where + ": cannot read " + spec.path);
    if (!specs_[p].emplace(f->second, spec).second)
      throw RunnerError(where + ": " + processor + " " + field + " given twice");
  }
}

Sensors::~Sensors() { stop(); }

void Sensors::start(int interval_ms, const std::string& log_path) {
  if (interval_ms < 1) throw UsageError("--sensor-interval-ms wants at least 1");
  interval_ms_ = interval_ms;
  if (!log_path.empty())
    log_.emplace(log_path,
                 "t_ns\tprocessor\ttemperature_c\tfrequency_hz\tmax_frequency_hz\tload\t"
                 "power_w\tthrottled\tthrottle_temperature_c\n");
  sample();
  thread_ = std::thread([this] {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!wake_.wait_for(lock, std::chrono::milliseconds(interval_ms_),
                           [this] { return stopping_; })) {
      lock.unlock();
      sample();
      lock.lock();
    }
  });
}

void Sensors::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::optional<policies::SensorState> Sensors::latest(std::size_t p) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return latest_[p];
}

void Sensors::sample() {
  for (std::size_t p = 0; p < plan_.processors.size(); ++p) {
    policies::SensorState s = read(p, realtime_ns());
    log(p, s);
    std::lock_guard<std::mutex> lock(mutex_);
    latest_[p] = s;
  }
  if (log_ && log_->get() != nullptr) std::fflush(log_->get());
}

policies::SensorState Sensors::read(std::size_t p, int64_t t_ns) {
  auto value = [&](Field f) -> std::optional<double> {
    auto it = specs_[p].find(f);
    if (it == specs_[p].end()) return std::nullopt;
    std::optional<double> v = first_number(it->second.path);
    if (!v || !std::isfinite(*v * it->second.scale)) return std::nullopt;
    return *v * it->second.scale;
  };
  policies::SensorState s;
  s.t_ns = t_ns;
  s.temperature_c = value(Field::temperature_c);
  s.frequency_hz = value(Field::frequency_hz);
  s.max_frequency_hz = value(Field::max_frequency_hz);
  s.load = load(p);
  s.power_w = value(Field::power_w);
  std::optional<double> cap = value(Field::cap_frequency_hz);
  if (cap && s.max_frequency_hz) s.throttled = *cap < *s.max_frequency_hz;
  s.throttle_temperature_c = value(Field::throttle_temperature_c);
  return s;
}

// the busy share of the processor's CPUs since the last read (none at the first, as Python)
std::optional<double> Sensors::load(std::size_t p) {
  auto it = specs_[p].find(Field::load);
  if (it == specs_[p].end()) return std::nullopt;
  std::optional<Jiffies> now = read_stat(it->second.path);
  std::optional<Jiffies> before = std::move(jiffies_[p]);
  jiffies_[p] = now;
  if (!now || !before) return std::nullopt;
  int64_t busy = 0, total = 0;
  for (int c : it->second.cpus) {
    if (!now->count(c) || !before->count(c)) return std::nullopt;
    busy += now->at(c).first - before->at(c).first;
    total += now->at(c).second - before->at(c).second;
  }
  if (total <= 0) return std::nullopt;
  return std::min(1.0, std::max(0.0, static_cast<double>(busy) / static_cast<double>(total)));
}

void Sensors::log(std::size_t p, const policies::SensorState& s) {
  if (!log_ || log_->get() == nullptr) return;
  auto field = [](const std::optional<double>& v) { return v ? format_double(*v) : ""; };
  std::string throttled = s.throttled ? (*s.throttled ? "1" : "0") : "";
  std::fprintf(log_->get(), "%" PRId64 "\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", s.t_ns,
               plan_.processors[p].name.c_str(), field(s.temperature_c).c_str(),
               field(s.frequency_hz).c_str(), field(s.max_frequency_hz).c_str(),
               field(s.load).c_str(), field(s.power_w).c_str(), throttled.c_str(),
               field(s.throttle_temperature_c).c_str());
}

}  // namespace runner
