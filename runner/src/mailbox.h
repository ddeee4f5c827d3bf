// A blocking first-in first-out queue between threads (executor -> worker). A taker may spin
// for a while before sleeping: a thread that never sleeps needs no wake-up, the largest part
// of a hand-over's cost on a loaded system, at the price of a busy core.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>

namespace runner {

template <typename T>
class Mailbox {
 public:
  void put(T item) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      items_.push_back(std::move(item));
      count_.store(items_.size(), std::memory_order_release);
    }
    ready_.notify_one();
  }
  // waits for an item
  T take() {
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait(lock, [this] { return !items_.empty(); });
    return pop();
  }
  // spins up to `spin` for an item, then waits for it
  T take(std::chrono::nanoseconds spin) {
    auto until = std::chrono::steady_clock::now() + spin;
    while (count_.load(std::memory_order_acquire) == 0 &&
           std::chrono::steady_clock::now() < until) {
    }
    return take();
  }

 private:
  T pop() {
    T item = std::move(items_.front());
    items_.pop_front();
    count_.store(items_.size(), std::memory_order_release);
    return item;
  }
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<T> items_;
  std::atomic<std::size_t> count_{0};
};

}  // namespace runner
