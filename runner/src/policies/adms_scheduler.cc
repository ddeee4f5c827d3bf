// ADMS's decision rule (see adms.h), function for function as adms/scheduler.py. Python's
// dicts keep insertion order: Options do too. Times in ms are Python's int / int
// (py::truediv); sums and products in Python's order.
#include "adms.h"

#include <initializer_list>
#include <stdexcept>
#include <string>

#include "pyops.h"

namespace policies::adms {
namespace {

constexpr int64_t kNsPerMs = 1000000;
constexpr double kMinAvgMs = 1e-6;

const Option* option_on(const Options& options, int processor) {
  for (const Option& o : options)
    if (o.processor == processor) return &o;
  return nullptr;
}

// the conf's value of an enum field (by name), one of `allowed`
std::string one_of(const Setup& s, const std::string& key,
                   std::initializer_list<const char*> allowed) {
  std::string value = s.conf_string(key);
  std::string names;
  for (const char* name : allowed) {
    if (value == name) return value;
    names += std::string(names.empty() ? "" : ", ") + name;
  }
  throw std::runtime_error("ADMS conf " + key + " is '" + value + "'; allowed: " + names);
}

}  // namespace

Knobs::Knobs(const Setup& s)
    : alpha(s.conf_double("alpha")), gamma(s.conf_double("gamma")), delta(s.conf_double("delta")),
      margin_c(s.conf_double("thermal_margin_c")),
      implicit_slo_factor(s.conf_double("implicit_slo_factor")),
      ema_alpha(s.conf_double("ema_alpha")), refresh(s.conf_double("estimate_refresh")),
      loop_call_size(s.conf_int("loop_call_size")),
      by_budget(one_of(s, "slo_reading", {"budget", "time_left"}) == "budget"),
      earliest(s.conf_bool("earliest_finish")), work_conserving(s.conf_bool("work_conserving")),
      queue_aware(s.conf_bool("queue_aware")), exclusive(s.conf_bool("exclusive_aware")),
      shed(s.conf_bool("shed")), monitor(s.conf_bool("use_monitor")),
      lp_split(s.conf_bool("lp_split")),
      job_first(one_of(s, "pairing", {"processor_asks", "job_first"}) == "job_first"),
      load_ordered(one_of(s, "idle_order", {"device", "reverse", "load"}) == "load"),
      reversed(s.conf_string("idle_order") == "reverse"),
      on_processor(one_of(s, "t_latency", {"on_processor", "free_device", "since_arrival"}) ==
                   "on_processor"),
      since_arrival(s.conf_string("t_latency") == "since_arrival"),
      highest_first(one_of(s, "score_order", {"lowest_first", "highest_first"}) ==
                    "highest_first") {}

Scheduler::Scheduler(const Setup& setup, Estimator& estimator)
    : setup_(setup), knobs_(setup), estimator_(estimator), tables_(setup, estimator) {}

const Subgraph& Scheduler::sg_at(int model, int position) const {
  return setup_.plans[static_cast<std::size_t>(model)].subgraphs[static_cast<std::size_t>(position)];
}

const std::string& Scheduler::name(int processor) const {
  return setup_.processors[static_cast<std::size_t>(processor)].name;
}

Job Scheduler::job(int position, const JobView& j, const View& view, const std::vector<bool>& hot,
                   double now_ms) {
  const Kind& k = tables_.kind(j.request.model, j.next_unit, j.last_processor, hot);
  Job out;
  out.position = position;
  out.job = &j;
  out.options = k.options;
  out.enqueue_ms = py::truediv(j.enqueue_ns, kNsPerMs);
  out.avg_ms = k.avg_ms;
  out.remaining_ms = k.remaining_ms;
  // priority.slo_ms
  int64_t budget = j.request.slo_ns;
  bool has = true;
  if (budget <= 0) {
    if (knobs_.implicit_slo_factor <= 0) has = false;
    else budget = py::trunc(knobs_.implicit_slo_factor * static_cast<double>(k.avg_ns));
  }
  if (has)
    out.slo_ms = knobs_.by_budget ? py::truediv(budget, kNsPerMs)
                                  : py::truediv(j.request.arrival_ns + budget - view.now_ns, kNsPerMs);
  // priority.wait_term: -alpha * (now - enqueue) / max(avg, MIN_AVG_MS)
  double avg = kMinAvgMs > k.avg_ms ? kMinAvgMs : k.avg_ms;
  out.wait = -knobs_.alpha * (now_ms - out.enqueue_ms) / avg;
  if (knobs_.since_arrival)
    out.latency_ms = py::truediv(view.now_ns - j.request.arrival_ns, kNsPerMs);
  else if (!knobs_.on_processor)  // (free_device: C_remaining's time)
    out.latency_ms = k.remaining_ms;
  return out;
}

double Scheduler::score(const Job& item, int64_t latency_ns, double resource) const {
  double latency_ms = item.latency_ms ? *item.latency_ms : py::truediv(latency_ns, kNsPerMs);
  double slo_ms = item.slo_ms ? *item.slo_ms : latency_ms;
  double s = knobs_.gamma * (slo_ms - latency_ms) + item.wait + resource * item.remaining_ms;
  return knobs_.highest_first ? -s : s;
}

std::optional<std::pair<int, int>> Scheduler::lowest(const Free& f, const std::vector<Job>& jobs,
                                                     const std::vector<int64_t>& waiting,
                                                     const std::vector<int64_t>* soonest,
                                                     const std::vector<int64_t>& reserved) {
  double best_score = 0.0;
  int64_t best_finish = 0;
  int best_position = 0, best_k = -1, best_sg = -1;
  work_ += static_cast<int64_t>(jobs.size());
  int64_t held = reserved[static_cast<std::size_t>(f.processor)];
  int64_t here = waiting[static_cast<std::size_t>(f.processor)];
  double resource = knobs_.delta * ((2.0 * f.load - 1.0) / 1.0);
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    const Job& item = jobs[k];
    const Option* opt = option_on(item.options, f.processor);
    if (opt == nullptr) continue;
    int64_t ahead = item.options.size() > 1 ? held : 0;
    if (soonest != nullptr && here + ahead + opt->ns > (*soonest)[k]) continue;
    int64_t finish = here + opt->ns;
    double s = score(item, finish, resource);
    if (best_sg < 0 || s < best_score ||
        (s == best_score && (finish < best_finish ||
                             (finish == best_finish && item.position < best_position)))) {
      best_score = s;
      best_finish = finish;
      best_position = item.position;
      best_k = static_cast<int>(k);
      best_sg = opt->position;
    }
  }
  if (best_sg < 0) return std::nullopt;
  return std::make_pair(best_k, best_sg);
}

std::optional<std::pair<int, std::pair<int, int>>> Scheduler::pick(
    const std::vector<Free>& free, const std::vector<Job>& jobs, const std::vector<int64_t>& waiting) {
  std::vector<int64_t> held(setup_.processors.size(), 0);
  bool any_reserved = false;
  if (knobs_.exclusive) {
    held = reserved(jobs);
    for (std::size_t k = 0; k < jobs.size() && !any_reserved; ++k) any_reserved = jobs[k].options.size() == 1;
  }
  std::vector<int64_t> first;
  if (knobs_.earliest) first = soonest(jobs, waiting, held, any_reserved);
  const std::vector<int64_t>* bound = knobs_.earliest ? &first : nullptr;
  if (knobs_.job_first) {
    auto got = first_job(free, jobs, waiting, bound, held);
    if (got || !knobs_.work_conserving || bound == nullptr) return got;
    return first_job(free, jobs, waiting, nullptr, held);
  }
  for (const Free& f : free) {
    auto got = lowest(f, jobs, waiting, bound, held);
    if (got) return std::make_pair(f.processor, *got);
  }
  if (bound != nullptr && knobs_.work_conserving) {
    for (const Free& f : free) {
      auto got = lowest(f, jobs, waiting, nullptr, held);
      if (got) return std::make_pair(f.processor, *got);
    }
  }
  return std::nullopt;
}

std::optional<std::pair<int, std::pair<int, int>>> Scheduler::first_job(
    const std::vector<Free>& free, const std::vector<Job>& jobs,
    const std::vector<int64_t>& waiting, const std::vector<int64_t>* soonest,
    const std::vector<int64_t>& reserved) {
  bool have = false;
  double best_score = 0.0;
  int64_t best_finish = 0;
  int best_position = 0, best_k = 0, best_proc = 0, best_sg = 0;
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    const Job& item = jobs[k];
    const Options& opts = item.options;
    work_ += static_cast<int64_t>(opts.size());
    bool ahead = opts.size() > 1;
    const Option* target = nullptr;
    double target_load = 0.0;
    for (const Free& f : free) {
      const Option* opt = option_on(opts, f.processor);
      if (opt == nullptr) continue;
      int64_t held = ahead ? reserved[static_cast<std::size_t>(f.processor)] : 0;
      if (soonest != nullptr && opt->ns + held > (*soonest)[k]) continue;
      if (target == nullptr || opt->ns < target->ns) {
        target = opt;
        target_load = f.load;
      }
    }
    if (target == nullptr) continue;
    int64_t finish = target->ns;
    int64_t latency = finish;
    if (knobs_.on_processor)
      for (const Option& o : opts) {
        int64_t there = waiting[static_cast<std::size_t>(o.processor)] + o.ns;
        if (there < latency) latency = there;
      }
    double s = score(item, latency, knobs_.delta * ((2.0 * target_load - 1.0) / 1.0));
    if (!have || s < best_score ||
        (s == best_score && (finish < best_finish ||
                             (finish == best_finish && item.position < best_position)))) {
      have = true;
      best_score = s;
      best_finish = finish;
      best_position = item.position;
      best_k = static_cast<int>(k);
      best_proc = target->processor;
      best_sg = target->position;
    }
  }
  if (!have) return std::nullopt;
  return std::make_pair(best_proc, std::make_pair(best_k, best_sg));
}

std::vector<int64_t> Scheduler::reserved(const std::vector<Job>& jobs) const {
  std::vector<int64_t> out(setup_.processors.size(), 0);
  for (const Job& item : jobs)
    if (item.options.size() == 1) {
      const Option& o = item.options.front();
      out[static_cast<std::size_t>(o.processor)] += cost(sg_at(item.job->request.model, o.position));
    }
  return out;
}

std::vector<int64_t> Scheduler::soonest(const std::vector<Job>& jobs, const std::vector<int64_t>& waiting,
                                        const std::vector<int64_t>& reserved, bool any_reserved) {
  std::vector<int64_t> projected = waiting;
  std::vector<int64_t> out;
  std::size_t last = jobs.empty() ? 0 : jobs.size() - 1;
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    const Job& item = jobs[k];
    if (item.options.empty()) {
      out.push_back(0);
      continue;
    }
    bool extra = item.options.size() > 1 && any_reserved;  // (`if extra`: a non-empty dict)
    const Option* best = nullptr;
    int64_t best_ns = 0;
    for (const Option& o : item.options) {
      int64_t end = projected[static_cast<std::size_t>(o.processor)] + o.ns;
      if (extra) end += reserved[static_cast<std::size_t>(o.processor)];
      if (best == nullptr || end < best_ns || (end == best_ns && name(o.processor) < name(best->processor))) {
        best = &o;
        best_ns = end;
      }
    }
    out.push_back(best_ns);
    if (knobs_.queue_aware && k < last && !(any_reserved && item.options.size() == 1))
      projected[static_cast<std::size_t>(best->processor)] += cost(sg_at(item.job->request.model, best->position));
  }
  work_ += static_cast<int64_t>(jobs.size());
  return out;
}

}  // namespace policies::adms
