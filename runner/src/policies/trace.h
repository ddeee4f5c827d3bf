// Decision trace calls (docs/decision-traces.md) read into the library's types, and
// decisions written back in the trace's own JSON form (for naming a difference).
#pragma once

#include <string>
#include <vector>

#include "decision.h"

namespace policies::trace {

// The recorded queue: the jobs the recorded policy read, the queue's length, its heads if
// they were read. Reading past them throws QueueUnread.
class RecordedQueue : public Queue {
 public:
  std::vector<JobView> prefix;
  std::size_t length = 0;
  bool has_heads = false;
  std::vector<JobView> head_jobs;

  std::size_t size() const override { return length; }
  const JobView& at(std::size_t k) const override;
  const std::vector<JobView>& heads() const override;
};

struct ScheduleCall {
  int64_t index = 0;
  RecordedQueue queue;
  View view;  // its queue points at `queue` (do not copy a ScheduleCall)
  Decision expected;
};

Request request_of(const json::Value& row, const Setup& setup);
JobView job_of(const json::Value& row, const Setup& setup);
// fills `call` (its view's queue and setup point into `call` and `setup`)
void schedule_of(const json::Value& obj, const Setup& setup, ScheduleCall& call);
Completion completion_of(const json::Value& obj, const Setup& setup);
Decision decision_of(const json::Value& obj, const Setup& setup);
// {"assign":[[job,"model",index]],"drop":[...],"work":n}, as Python's json.dumps writes it
std::string to_json(const Decision& d, const Setup& setup);

}  // namespace policies::trace
