// What ADMS makes of the processors at a decision: adms/readings.py (Readings.read: idle ones
// by preference with idle_order load, in device order, or reversed) with
// adms/monitor.py (near_throttle, load_fraction, preference). The Python caches a reading's
// results until a new reading replaces it; they are pure functions of the reading (and of
// the processor being idle when its preference is first needed), so computing them at every
// decision gives the same answers.
#include <algorithm>

#include "adms.h"

namespace policies::adms {
namespace {

bool near_throttle(const std::optional<SensorState>& s, double margin_c) {
  if (!s) return false;
  if (s->throttled && *s->throttled) return true;
  if (!s->temperature_c || !s->throttle_temperature_c) return false;
  return *s->temperature_c >= *s->throttle_temperature_c - margin_c;
}

// min(max(load, 0.0), 1.0) as Python's min/max pick (the first of equal ones)
double load_fraction(const std::optional<SensorState>& s, bool idle) {
  if (s && s->load) {
    double x = 0.0 > *s->load ? 0.0 : *s->load;
    return 1.0 < x ? 1.0 : x;
  }
  return idle ? 0.0 : 1.0;
}

struct Preference {
  bool hot;
  double load;
  double temperature;
};

Preference preference(const std::optional<SensorState>& s, bool idle, double margin_c) {
  double temp = s && s->temperature_c ? *s->temperature_c : 0.0;  // (`temp or 0.0`)
  return {near_throttle(s, margin_c), load_fraction(s, idle), temp};
}

bool preferred(const Preference& a, const Preference& b) {
  if (a.hot != b.hot) return !a.hot;
  if (a.load != b.load) return a.load < b.load;
  return a.temperature < b.temperature;
}

}  // namespace

Reading read(const View& view, const Knobs& knobs) {
  Reading out;
  std::size_t n = view.processors.size();
  out.hot.assign(n, false);
  out.waiting.assign(n, 0);
  std::vector<std::pair<int, Preference>> ranked;
  for (std::size_t p = 0; p < n; ++p) {
    const ProcessorView& pv = view.processors[p];
    const std::optional<SensorState> none;
    const std::optional<SensorState>& state = knobs.monitor ? pv.state : none;
    out.hot[p] = knobs.monitor && near_throttle(state, knobs.margin_c);
    out.any_hot = out.any_hot || out.hot[p];
    if (!pv.idle) {
      int64_t left = pv.available_ns - view.now_ns;
      out.waiting[p] = left > 0 ? left : 0;
      continue;
    }
    Preference pref = preference(state, true, knobs.margin_c);
    std::size_t at = ranked.size();
    while (knobs.load_ordered && at > 0 && preferred(pref, ranked[at - 1].second)) --at;
    ranked.insert(ranked.begin() + static_cast<std::ptrdiff_t>(at), {static_cast<int>(p), pref});
  }
  if (knobs.reversed) std::reverse(ranked.begin(), ranked.end());
  for (const auto& [p, pref] : ranked) out.free.push_back({p, pref.load});
  return out;
}

}  // namespace policies::adms
