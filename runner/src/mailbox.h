// A blocking first-in first-out queue between threads (executor -> worker, worker -> executor).
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>

namespace runner {

template <typename T>
class Mailbox {
 public:
  void put(T item) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      items_.push_back(std::move(item));
    }
    ready_.notify_one();
  }
  // waits for an item
  T take() {
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait(lock, [this] { return !items_.empty(); });
    return pop();
  }
  // waits for an item until `deadline` (system_clock, i.e. CLOCK_REALTIME); empty on timeout
  std::optional<T> take_until(std::chrono::system_clock::time_point deadline) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!ready_.wait_until(lock, deadline, [this] { return !items_.empty(); })) return {};
    return pop();
  }
  std::optional<T> try_take() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (items_.empty()) return {};
    return pop();
  }

 private:
  T pop() {
    T item = std::move(items_.front());
    items_.pop_front();
    return item;
  }
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<T> items_;
};

}  // namespace runner
