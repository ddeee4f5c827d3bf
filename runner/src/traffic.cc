// The three traffic sources: frames, streams (both closed loops) and shipped arrival times.
#include "traffic.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include "errors.h"

namespace runner {
namespace {

class FramesTraffic : public Traffic {
 public:
  FramesTraffic(std::size_t models, int frames) : models_(models), left_(frames) {}
  void start(int64_t) override { open_ = left_ > 0; }
  std::vector<Release> due(int64_t now_ns) override {
    std::vector<Release> out;
    if (!open_ || pending_ > 0) return out;
    open_ = false;
    --left_;
    pending_ = models_;
    for (std::size_t m = 0; m < models_; ++m) out.push_back({m, now_ns, frame_});
    ++frame_;
    return out;
  }
  void completed(std::size_t) override {
    if (--pending_ == 0 && left_ > 0) open_ = true;
  }
  int64_t next_ns() const override { return open_ ? 0 : kNever; }
  bool finished() const override { return left_ == 0 && !open_; }

 private:
  std::size_t models_;
  int left_;
  std::size_t pending_ = 0;
  int64_t frame_ = 0;
  bool open_ = false;
};

class StreamsTraffic : public Traffic {
 public:
  StreamsTraffic(std::size_t models, int requests)
      : requests_(requests), left_(models, requests), open_(models) {}
  void start(int64_t) override {
    for (std::size_t m = 0; m < left_.size(); ++m) open_[m] = left_[m] > 0;
  }
  std::vector<Release> due(int64_t now_ns) override {
    std::vector<Release> out;
    for (std::size_t m = 0; m < left_.size(); ++m) {
      if (!open_[m]) continue;
      open_[m] = false;
      --left_[m];
      int64_t k = requests_ - left_[m] - 1;
      out.push_back({m, now_ns, k, static_cast<int64_t>(m)});
    }
    return out;
  }
  void completed(std::size_t model) override { open_[model] = left_[model] > 0; }
  int64_t next_ns() const override {
    return std::any_of(open_.begin(), open_.end(), [](bool o) { return o; }) ? 0 : kNever;
  }
  bool finished() const override {
    return std::all_of(left_.begin(), left_.end(), [](int n) { return n == 0; }) &&
           next_ns() == kNever;
  }

 private:
  int requests_;
  std::vector<int> left_;
  std::vector<bool> open_;
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
  void completed(std::size_t) override {}
  int64_t next_ns() const override {
    return next_ < arrivals_.size() ? arrivals_[next_].arrival_ns : kNever;
  }
  bool finished() const override { return next_ == arrivals_.size(); }

 private:
  std::vector<Release> arrivals_;
  std::size_t next_ = 0;
};

}  // namespace

std::unique_ptr<Traffic> frames_traffic(const Plan& plan, int frames) {
  return std::make_unique<FramesTraffic>(plan.models.size(), frames);
}

std::unique_ptr<Traffic> streams_traffic(const Plan& plan, int requests) {
  return std::make_unique<StreamsTraffic>(plan.models.size(), requests);
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
