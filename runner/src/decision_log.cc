// Writing the runner's decision trace (see decision_log.h).
#include "decision_log.h"

#include "errors.h"
#include "policies/trace.h"
#include "sensors.h"

namespace runner {

namespace json = policies::json;

DecisionLog::DecisionLog(const std::string& path, const std::string& header,
                         const policies::Setup& setup)
    : out_(path), path_(path), setup_(setup) {
  if (!out_) throw RunnerError("cannot write the decision trace " + path);
  line(header);
}

std::string DecisionLog::request(const policies::Request& r) const {
  return "[" + std::to_string(r.request_id) + "," +
         json::quote(setup_.plans[static_cast<std::size_t>(r.model)].model) + "," +
         std::to_string(r.frame_id) + "," + std::to_string(r.arrival_ns) + "," +
         std::to_string(r.slo_ns) + "," + std::to_string(r.stream) + "]";
}

std::string DecisionLog::job(const policies::JobView& j) const {
  std::string req = request(j.request);
  std::string last = j.last_processor < 0
                         ? ""
                         : setup_.processors[static_cast<std::size_t>(j.last_processor)].name;
  return "[" + std::to_string(j.job_id) + "," + std::to_string(j.next_unit) + "," +
         std::to_string(j.enqueue_ns) + "," + std::to_string(j.executed) + "," +
         req.substr(1, req.size() - 2) + "," + json::quote(last) + "]";
}

std::string DecisionLog::jobs(const std::vector<policies::JobView>& list) const {
  std::string out = "[";
  for (std::size_t k = 0; k < list.size(); ++k) out += (k ? "," : "") + job(list[k]);
  return out + "]";
}

void DecisionLog::schedule(const policies::View& view, const std::vector<policies::JobView>& read,
                           const std::optional<std::vector<policies::JobView>>& heads,
                           const policies::Decision& decision) {
  std::string text = "{\"call\":\"schedule\",\"i\":" + std::to_string(calls_) +
                     ",\"now_ns\":" + std::to_string(view.now_ns) + ",\"queue\":" + jobs(read) +
                     ",\"queue_len\":" + std::to_string(view.queue->size());
  if (heads) text += ",\"heads\":" + jobs(*heads);
  text += ",\"processors\":[";
  for (std::size_t k = 0; k < view.processors.size(); ++k) {
    const policies::ProcessorView& p = view.processors[k];
    text += std::string(k ? "," : "") + "{\"idle\":" + (p.idle ? "true" : "false") +
            ",\"available_ns\":" + std::to_string(p.available_ns) +
            ",\"queued\":" + std::to_string(p.queued) + ",\"state\":" + state(p.state, k) + "}";
  }
  line(text + "],\"decision\":" + policies::trace::to_json(decision, setup_) + "}");
}

// SensorSample's fields in their order (harness/replay/trace.py state_obj)
std::string DecisionLog::state(const std::optional<policies::SensorState>& s,
                               std::size_t processor) const {
  if (!s) return "null";
  auto real = [](const std::optional<double>& v) { return v ? format_double(*v) : "null"; };
  std::string throttled = s->throttled ? (*s->throttled ? "true" : "false") : "null";
  return "{\"processor\":" + json::quote(setup_.processors[processor].name) +
         ",\"t_ns\":" + std::to_string(s->t_ns) + ",\"temperature_c\":" + real(s->temperature_c) +
         ",\"frequency_hz\":" + real(s->frequency_hz) +
         ",\"max_frequency_hz\":" + real(s->max_frequency_hz) + ",\"load\":" + real(s->load) +
         ",\"power_w\":" + real(s->power_w) + ",\"throttled\":" + throttled +
         ",\"throttle_temperature_c\":" + real(s->throttle_temperature_c) + "}";
}

void DecisionLog::observe(const policies::Completion& c) {
  const policies::Plan& plan = setup_.plans[static_cast<std::size_t>(c.model)];
  line("{\"call\":\"observe\",\"i\":" + std::to_string(calls_) +
       ",\"job_id\":" + std::to_string(c.job_id) + ",\"request\":" + request(c.request) +
       ",\"model\":" + json::quote(plan.model) + ",\"subgraph\":" + std::to_string(c.subgraph) +
       ",\"start_ns\":" + std::to_string(c.start_ns) + ",\"end_ns\":" + std::to_string(c.end_ns) +
       ",\"ok\":" + (c.ok ? "true" : "false") + "}");
}

void DecisionLog::line(const std::string& text) {
  if (text.rfind("{\"call\"", 0) == 0) ++calls_;
  out_ << text << '\n';
  if (!out_) throw RunnerError("cannot write the decision trace " + path_);
}

}  // namespace runner
