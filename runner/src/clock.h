// The runner's one clock: CLOCK_REALTIME in integer nanoseconds, so that job logs from the
// phone line up with the host's records (which convert them with the measured clock offset).
#pragma once

#include <cstdint>
#include <ctime>

namespace runner {

inline int64_t realtime_ns() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

}  // namespace runner
