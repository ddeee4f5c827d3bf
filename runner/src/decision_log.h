// The runner's own decision trace (--decisions): the header it was given, then every
// schedule call with the view as the policy read it (the queue's prefix it read, its length,
// its kind heads if read, the processors) and the decision, and every observe call with its
// completion; the JSON-lines format of docs/decision-traces.md, so the harness can replay
// the phone's decisions through the Python policies (harness.replay.check_phone_trace).
#pragma once

#include <cstdint>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "policies/decision.h"

namespace runner {

class DecisionLog {
 public:
  // writes `header` (one JSON object) as the first line; throws RunnerError if it cannot
  DecisionLog(const std::string& path, const std::string& header, const policies::Setup& setup);
  void schedule(const policies::View& view, const std::vector<policies::JobView>& read,
                const std::optional<std::vector<policies::JobView>>& heads,
                const policies::Decision& decision);
  void observe(const policies::Completion& completion);
  void flush() { out_.flush(); }

 private:
  std::string request(const policies::Request& r) const;
  std::string job(const policies::JobView& j) const;
  std::string jobs(const std::vector<policies::JobView>& list) const;
  std::string state(const std::optional<policies::SensorState>& s, std::size_t processor) const;
  void line(const std::string& text);

  std::ofstream out_;
  std::string path_;
  const policies::Setup& setup_;
  int64_t calls_ = 0;
};

}  // namespace runner
