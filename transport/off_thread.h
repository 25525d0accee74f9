#pragma once
// Work that takes seconds, run off a daemon's control thread: hashing a large
// file, walking and hashing a tree, packing a bundle, compressing. The kj
// thread answers agents' heartbeats and clients' calls; an agent silent
// for lostTimeoutSeconds (2.5 s by default) is declared lost, so nothing
// there may read a gigabyte. Each piece of work runs on a thread of its
// own and its answer comes back on the kj thread, where `done` runs.
#include <functional>
#include <map>
#include <memory>
#include <thread>
#include <utility>

#include <kj/async.h>
#include <spdlog/spdlog.h>

namespace hnow::transport {

class OffThread final {
 public:
  OffThread() = default;
  OffThread(const OffThread&) = delete;
  OffThread& operator=(const OffThread&) = delete;
  // Answers still due are dropped (nobody waits for them any more), then
  // the threads are waited for: a shutdown lets a hash or pack finish.
  ~OffThread() {
    std::map<std::uint64_t, std::thread> threads = std::move(threads_);
    tasks_.reset();
    for (auto& [id, thread] : threads) thread.join();
  }

  // `work()` on a new thread, then `done(result)` on this (the kj) thread,
  // unless this OffThread is gone by then. Call on the kj thread only.
  // `work` shares nothing with the kj thread but what it captured.
  template <typename T>
  void run(std::function<T()> work, std::function<void(T&)> done) {
    // Held by kj::Own: GCC 12 warns falsely about strings inside kj's ExceptionOr.
    using Answer = kj::Own<T>;
    auto paf = kj::newPromiseAndCrossThreadFulfiller<Answer>();
    const std::uint64_t id = next_++;
    using Fulfiller = kj::Own<kj::CrossThreadPromiseFulfiller<Answer>>;
    auto fulfiller = std::make_shared<Fulfiller>(kj::mv(paf.fulfiller));
    threads_.emplace(id, std::thread([work = std::move(work), fulfiller] { (*fulfiller)->fulfill(kj::heap<T>(work())); }));
    tasks_->add(paf.promise.then([this, id, done = std::move(done)](Answer answer) {
      if (auto it = threads_.find(id); it != threads_.end()) {
        it->second.join();  // it has answered: it ends now
        threads_.erase(it);
      }
      done(*answer);
    }));
  }

  std::size_t running() const { return threads_.size(); }

 private:
  struct Failures final : kj::TaskSet::ErrorHandler {
    void taskFailed(kj::Exception&& e) override {
      spdlog::error("work done off the control thread failed to answer: {}", e.getDescription().cStr());
    }
  };

  std::map<std::uint64_t, std::thread> threads_;
  std::uint64_t next_ = 1;
  Failures failures_;
  std::unique_ptr<kj::TaskSet> tasks_ = std::make_unique<kj::TaskSet>(failures_);
};

}  // namespace hnow::transport
