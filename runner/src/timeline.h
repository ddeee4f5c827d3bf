// Where the executor's time comes from and how its run() waits for the next event. The
// real timeline is CLOCK_REALTIME with a condition variable; the simulated one
// (simulation.h) is a virtual clock that jumps from one table-timed completion to the next.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>

#include "clock.h"

namespace runner {

class Timeline {
 public:
  virtual ~Timeline() = default;
  virtual int64_t now_ns() = 0;
  // waits until `deadline_ns` or until woken through `wake`, with `lock` (the executor's,
  // held on entry and on return) released meanwhile; `next_arrival_ns` is the traffic's next
  // release (Traffic::kNever: none is scheduled)
  virtual void wait_until(std::unique_lock<std::mutex>& lock, std::condition_variable& wake,
                          int64_t deadline_ns, int64_t next_arrival_ns) = 0;
};

class RealTimeline : public Timeline {
 public:
  int64_t now_ns() override { return realtime_ns(); }
  void wait_until(std::unique_lock<std::mutex>& lock, std::condition_variable& wake,
                  int64_t deadline_ns, int64_t) override {
    wake.wait_until(lock, std::chrono::system_clock::time_point(
                              std::chrono::duration_cast<std::chrono::system_clock::duration>(
                                  std::chrono::nanoseconds(deadline_ns))));
  }
};

}  // namespace runner
