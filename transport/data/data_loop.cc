#include "transport/data/data_loop.h"

#include <future>
#include <stdexcept>

namespace hnow::transport::data {

DataLoop::DataLoop() {
  if (uv_loop_init(&loop_) != 0) throw std::runtime_error("cannot create the libuv loop");
  async_.data = this;
  uv_async_init(&loop_, &async_, [](uv_async_t* a) { static_cast<DataLoop*>(a->data)->drain(); });
  thread_ = std::thread([this]() {
    uv_run(&loop_, UV_RUN_DEFAULT);
    uv_loop_close(&loop_);
  });
}

DataLoop::~DataLoop() { stop(); }

void DataLoop::post(std::function<void()> task) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    queue_.push_back(std::move(task));
  }
  uv_async_send(&async_);
}

void DataLoop::runSync(std::function<void()> task) {
  std::promise<void> done;
  post([&]() {
    task();
    done.set_value();
  });
  done.get_future().wait();
}

void DataLoop::drain() {
  std::vector<std::function<void()>> tasks;
  {
    std::lock_guard lock(mutex_);
    tasks.swap(queue_);
  }
  for (auto& task : tasks) task();
  bool stopping;
  {
    std::lock_guard lock(mutex_);
    stopping = stopping_ && queue_.empty();
  }
  if (!stopping) return;
  // Close whatever owners left open (they were destroyed by the last tasks,
  // which already closed theirs); the loop then runs out of handles and ends.
  uv_walk(
      &loop_,
      [](uv_handle_t* h, void*) {
        if (!uv_is_closing(h)) uv_close(h, nullptr);
      },
      nullptr);
}

void DataLoop::stop() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  uv_async_send(&async_);
  thread_.join();
}

}  // namespace hnow::transport::data
