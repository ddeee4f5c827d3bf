// The three traffic sources: frames, streams (both closed loops) and shipped arrival times.
#include "traffic.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "errors.h"

namespace runner {
namespace {

// Frames waiting for release are release times (one per frame, earliest first); a released
// frame counts its requests not yet ended and whether one was dropped.
class FramesTraffic : public Traffic {
 public:
  FramesTraffic(std::size_t models, int frames, const ClosedLoop& loop)
      : models_(models), unscheduled_(frames), loop_(loop) {}
  void start(int64_t now_ns) override {
    for (int64_t k = 0; k < loop_.in_flight && unscheduled_ > 0; ++k) schedule(now_ns);
  }
  std::vector<Release> due(int64_t now_ns) override {
    std::vector<Release> out;
    while (!waiting_.empty() && *waiting_.begin() <= now_ns) {
      int64_t at = *waiting_.begin();
      waiting_.erase(waiting_.begin());
      open_[frame_] = {models_, false};
      for (std::size_t m = 0; m < models_; ++m) out.push_back({m, at, frame_});
      ++frame_;
    }
    return out;
  }
  void completed(const Release& released, bool dropped, int64_t now_ns) override {
    Open& frame = open_.at(released.frame_id);
    frame.dropped = frame.dropped || dropped;
    if (--frame.requests > 0) return;
    bool wait = frame.dropped;
    open_.erase(released.frame_id);
    if (unscheduled_ > 0) schedule(now_ns + (wait ? loop_.drop_wait_ns : 0));
  }
  int64_t next_ns() const override { return waiting_.empty() ? kNever : *waiting_.begin(); }
  bool finished() const override { return unscheduled_ == 0 && waiting_.empty(); }

 private:
  struct Open {
    std::size_t requests = 0;  // not yet ended
    bool dropped = false;
  };
  void schedule(int64_t at_ns) {
    --unscheduled_;
    waiting_.insert(at_ns);
  }

  std::size_t models_;
  int unscheduled_;  // frames neither released nor waiting
  ClosedLoop loop_;
  std::multiset<int64_t> waiting_;
  std::map<int64_t, Open> open_;  // released frames by id
  int64_t frame_ = 0;             // the next frame's id
};

// Each model's next request is a release time (kNever: none waiting). Requests due at one
// instant are released in the order they were scheduled (Python's heap orders them by the
// time, then by when they were issued: streams whose requests were dropped together release
// in the order of the drops).
class StreamsTraffic : public Traffic {
 public:
  StreamsTraffic(std::size_t models, int requests, const ClosedLoop& loop)
      : requests_(requests),
        left_(models, requests),
        at_(models, kNever),
        order_(models, 0),
        loop_(loop) {}
  void start(int64_t now_ns) override {
    for (std::size_t m = 0; m < left_.size(); ++m) {
      at_[m] = left_[m] > 0 ? now_ns : kNever;
      order_[m] = scheduled_++;
    }
  }
  std::vector<Release> due(int64_t now_ns) override {
    std::vector<std::size_t> due;
    for (std::size_t m = 0; m < left_.size(); ++m) {
      if (at_[m] <= now_ns) due.push_back(m);
    }
    std::sort(due.begin(), due.end(), [this](std::size_t a, std::size_t b) {
      return at_[a] != at_[b] ? at_[a] < at_[b] : order_[a] < order_[b];
    });
    std::vector<Release> out;
    for (std::size_t m : due) {
      --left_[m];
      int64_t k = requests_ - left_[m] - 1;
      out.push_back({m, at_[m], k, static_cast<int64_t>(m)});
      at_[m] = kNever;
    }
    return out;
  }
  void completed(const Release& released, bool dropped, int64_t now_ns) override {
    if (left_[released.model] > 0) {
      at_[released.model] = now_ns + (dropped ? loop_.drop_wait_ns : 0);
      order_[released.model] = scheduled_++;
    }
  }
  int64_t next_ns() const override {
    return at_.empty() ? kNever : *std::min_element(at_.begin(), at_.end());
  }
  bool finished() const override {
    return std::all_of(left_.begin(), left_.end(), [](int n) { return n == 0; }) &&
           next_ns() == kNever;
  }

 private:
  int requests_;
  std::vector<int> left_;
  std::vector<int64_t> at_;
  std::vector<int64_t> order_;  // when each model's next request was scheduled
  int64_t scheduled_ = 0;
  ClosedLoop loop_;
};

class ArrivalsTraffic : public Traffic {
 public:
  explicit ArrivalsTraffic(std::vector<Release> offsets) : arrivals_(std::move(offsets)) {}
  void start(int64_t now_ns) override {
    for (auto& a : arrivals_) a.arrival_ns += now_ns;
  }
  std::vector<Release> due(int64_t now_ns) override {
    std::vector<Release> out;
    for (; next_ < arrivals_.size() && arrivals_[next_].arrival_ns <= now_ns; ++next_) {
      out.push_back(arrivals_[next_]);
    }
    return out;
  }
  void completed(const Release&, bool, int64_t) override {}
  int64_t next_ns() const override {
    return next_ < arrivals_.size() ? arrivals_[next_].arrival_ns : kNever;
  }
  bool finished() const override { return next_ == arrivals_.size(); }

 private:
  std::vector<Release> arrivals_;
  std::size_t next_ = 0;
};

}  // namespace

std::unique_ptr<Traffic> frames_traffic(const Plan& plan, int frames, const ClosedLoop& loop) {
  return std::make_unique<FramesTraffic>(plan.models.size(), frames, loop);
}

std::unique_ptr<Traffic> streams_traffic(const Plan& plan, int requests, const ClosedLoop& loop) {
  return std::make_unique<StreamsTraffic>(plan.models.size(), requests, loop);
}

std::unique_ptr<Traffic> arrivals_traffic(const Plan& plan, const std::string& path) {
  std::ifstream in(path);
  if (!in) throw RunnerError("cannot read arrivals file " + path);
  std::vector<Release> offsets;
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    std::istringstream words(line.substr(0, line.find('#')));
    long long offset = 0, stream = 0;
    std::string model, extra;
    if (!(words >> offset)) continue;
    bool ok = static_cast<bool>(words >> model);
    if (ok && !(words >> stream)) {
      ok = words.eof();
      stream = 0;
    }
    if (!ok || (words >> extra) || offset < 0 || stream < 0) {
      throw RunnerError(path + ":" + std::to_string(number) +
                        ": expected '<offset_ns> <model> [<stream>]'");
    }
    offsets.push_back({plan.model_index(model), offset, -1, stream});
  }
  std::stable_sort(offsets.begin(), offsets.end(),
                   [](const Release& a, const Release& b) { return a.arrival_ns < b.arrival_ns; });
  std::map<std::pair<std::size_t, int64_t>, int64_t> counts;  // (model, stream) -> arrivals
  for (Release& r : offsets) r.frame_id = counts[{r.model, r.stream}]++;
  return std::make_unique<ArrivalsTraffic>(std::move(offsets));
}

}  // namespace runner
