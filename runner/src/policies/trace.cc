// Reading decision trace calls (see trace.h).
#include "trace.h"

#include <stdexcept>

namespace policies::trace {

const JobView& RecordedQueue::at(std::size_t k) const {
  if (k >= prefix.size())
    throw QueueUnread("read queue position " + std::to_string(k) + ", which the recorded " +
                      "policy did not read (" + std::to_string(prefix.size()) + " were)");
  return prefix[k];
}

const std::vector<JobView>& RecordedQueue::heads() const {
  if (!has_heads) throw QueueUnread("read the queue's heads, which the recorded policy did not");
  return head_jobs;
}

namespace {

int model_of(const json::Value& name, const Setup& setup) {
  int model = setup.model_index(name.as_string());
  if (model < 0) throw std::runtime_error("trace names unknown model " + name.as_string());
  return model;
}

std::optional<double> real(const json::Value& obj, const char* key) {
  const json::Value* v = obj.find(key);
  if (v == nullptr || v->is_null()) return std::nullopt;
  return v->as_double();
}

std::optional<SensorState> state_of(const json::Value& obj) {
  if (obj.is_null()) return std::nullopt;
  SensorState s;
  s.t_ns = obj["t_ns"].as_int();
  s.temperature_c = real(obj, "temperature_c");
  s.frequency_hz = real(obj, "frequency_hz");
  s.max_frequency_hz = real(obj, "max_frequency_hz");
  s.load = real(obj, "load");
  s.power_w = real(obj, "power_w");
  const json::Value* t = obj.find("throttled");
  if (t != nullptr && !t->is_null()) s.throttled = t->as_bool();
  s.throttle_temperature_c = real(obj, "throttle_temperature_c");
  return s;
}

}  // namespace

Request request_of(const json::Value& row, const Setup& setup) {
  return {row[0].as_int(), model_of(row[1], setup), row[2].as_int(), row[3].as_int(),
          row[4].as_int(), row[5].as_int()};
}

JobView job_of(const json::Value& row, const Setup& setup) {
  JobView job;
  job.job_id = row[0].as_int();
  job.next_unit = row[1].as_int();
  job.enqueue_ns = row[2].as_int();
  job.executed = row[3].as_int();
  job.request = {row[4].as_int(), model_of(row[5], setup), row[6].as_int(), row[7].as_int(),
                 row[8].as_int(), row[9].as_int()};
  job.last_processor = setup.processor_index(row[10].as_string());
  return job;
}

void schedule_of(const json::Value& obj, const Setup& setup, ScheduleCall& call) {
  call.index = obj["i"].as_int();
  for (const auto& row : obj["queue"].items) call.queue.prefix.push_back(job_of(row, setup));
  call.queue.length = static_cast<std::size_t>(obj["queue_len"].as_int());
  if (const json::Value* heads = obj.find("heads")) {
    call.queue.has_heads = true;
    for (const auto& row : heads->items) call.queue.head_jobs.push_back(job_of(row, setup));
  }
  call.view.now_ns = obj["now_ns"].as_int();
  call.view.queue = &call.queue;
  call.view.setup = &setup;
  for (const auto& p : obj["processors"].items)
    call.view.processors.push_back(
        {p["idle"].as_bool(), p["available_ns"].as_int(), p["queued"].as_int(),
         state_of(p["state"])});
  if (call.view.processors.size() != setup.processors.size())
    throw std::runtime_error("call " + std::to_string(call.index) + ": processors differ "
                             "from the header's");
  call.expected = decision_of(obj["decision"], setup);
}

Completion completion_of(const json::Value& obj, const Setup& setup) {
  Completion c;
  c.job_id = obj["job_id"].as_int();
  c.request = request_of(obj["request"], setup);
  c.model = model_of(obj["model"], setup);
  c.subgraph = static_cast<int>(obj["subgraph"].as_int());
  if (setup.plans[static_cast<std::size_t>(c.model)].by_index(c.subgraph) == nullptr)
    throw std::runtime_error("completion of unknown subgraph");
  c.start_ns = obj["start_ns"].as_int();
  c.end_ns = obj["end_ns"].as_int();
  c.ok = obj["ok"].as_bool();
  return c;
}

Decision decision_of(const json::Value& obj, const Setup& setup) {
  Decision d;
  for (const auto& a : obj["assign"].items)
    d.assign.push_back({a[0].as_int(), model_of(a[1], setup), static_cast<int>(a[2].as_int())});
  for (const auto& j : obj["drop"].items) d.drop.push_back(j.as_int());
  d.work = obj["work"].as_int();
  return d;
}

std::string to_json(const Decision& d, const Setup& setup) {
  std::string out = "{\"assign\":[";
  for (std::size_t k = 0; k < d.assign.size(); ++k) {
    const Assignment& a = d.assign[k];
    out += (k ? ",[" : "[") + std::to_string(a.job_id) + "," +
           json::quote(setup.plans[static_cast<std::size_t>(a.model)].model) + "," +
           std::to_string(a.subgraph) + "]";
  }
  out += "],\"drop\":[";
  for (std::size_t k = 0; k < d.drop.size(); ++k)
    out += (k ? "," : "") + std::to_string(d.drop[k]);
  return out + "],\"work\":" + std::to_string(d.work) + "}";
}

}  // namespace policies::trace
