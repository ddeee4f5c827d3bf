// Where requests come from. Closed loops live in the runner, as the Python traffic
// (harness/runtime/traffic.py) runs them: frames: `in_flight` frames outstanding, a frame one
// request per model, all arriving together; when every request of a frame has ended
// (finished or dropped) the next frame is released, `drop_wait_ns` later if any of them was
// dropped (Python's one camera period, 1/fps), at once otherwise; streams: each model its own
// closed loop, its next request `drop_wait_ns` after a dropped one. Frames are released, and
// numbered, in the order of their release times (a frame waiting after a drop can thus be
// overtaken by the next frame released at once; Python numbers frames when it schedules
// them), so request k is frame k / models, model k % models. Open-loop
// traffic (periodic, Poisson) is generated on the host from the run's seeded traffic and
// shipped as a file of arrival times, one "<offset_ns> <model> [<stream>]" line each, offsets
// from the run's start.
//
// Frame ids and streams as the Python traffic (harness/runtime/traffic.py) numbers them, so
// the policies' views match: frames: the frame's number, stream 0 (the runner's contract;
// Python numbers a frame's requests by model, which no policy tells apart from 0 as every
// model has one stream); streams: one client per model, stream = the model's index in the
// plan, frame id = the client's request count; arrivals: the stream given, frame id = the
// count of earlier arrivals of the same model and stream (Python's periodic frame number and
// Poisson per-stream count).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "plan.h"

namespace runner {

struct Release {
  std::size_t model = 0;
  int64_t arrival_ns = 0;  // CLOCK_REALTIME
  int64_t frame_id = -1;   // the frame's number, or the stream's request count (traffic.h)
  int64_t stream = 0;
};

class Traffic {
 public:
  static constexpr int64_t kNever = std::numeric_limits<int64_t>::max();
  virtual ~Traffic() = default;
  virtual void start(int64_t now_ns) = 0;
  // the requests that have arrived by now_ns, not released before
  virtual std::vector<Release> due(int64_t now_ns) = 0;
  // the request `released` ended at now_ns: finished, or dropped by the policy
  virtual void completed(const Release& released, bool dropped, int64_t now_ns) = 0;
  // the next scheduled arrival, kNever when none is scheduled
  virtual int64_t next_ns() const = 0;
  // no request will ever arrive again
  virtual bool finished() const = 0;
};

// how a closed loop goes on: frames outstanding at once (frames only), the wait after a drop
struct ClosedLoop {
  int64_t in_flight = 1;
  int64_t drop_wait_ns = 0;
};

// `frames` frames over every model of the plan
std::unique_ptr<Traffic> frames_traffic(const Plan& plan, int frames, const ClosedLoop& loop);
// `requests` requests per model, each model its own closed loop (loop.in_flight unused)
std::unique_ptr<Traffic> streams_traffic(const Plan& plan, int requests, const ClosedLoop& loop);
// arrival times read from `path`; throws RunnerError on a bad line or unknown model
std::unique_ptr<Traffic> arrivals_traffic(const Plan& plan, const std::string& path);

}  // namespace runner
