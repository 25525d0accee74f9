#pragma once
// The data thread (docs/architecture.md "Threads"): a libuv loop in its own
// thread. Other threads hand it work with post(): a mutex-protected queue plus
// uv_async_send, drained whole in the async callback (sends coalesce). No uv_*
// call but uv_async_send is made from another thread.
#include <uv.h>

#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace hnow::transport::data {

class DataLoop {
 public:
  DataLoop();
  // Runs stop() if it was not called.
  ~DataLoop();
  DataLoop(const DataLoop&) = delete;
  DataLoop& operator=(const DataLoop&) = delete;

  // Any thread; `task` runs on the data thread. After stop() it is dropped.
  void post(std::function<void()> task);
  // Runs `task` on the data thread and waits for it (start-up only).
  void runSync(std::function<void()> task);
  // Runs the tasks already posted, closes every handle still open, joins.
  void stop();

  uv_loop_t* loop() { return &loop_; }
  bool onLoopThread() const { return std::this_thread::get_id() == thread_.get_id(); }

 private:
  void drain();

  uv_loop_t loop_{};
  uv_async_t async_{};
  std::mutex mutex_;
  std::vector<std::function<void()>> queue_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace hnow::transport::data
