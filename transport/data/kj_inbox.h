#pragma once
// The data thread's way back to the kj thread (docs/architecture.md
// "Threads"): push() from any thread appends under a mutex and fulfills the kj
// side's waiting cross-thread fulfiller; next() on the kj thread resolves with
// everything queued so far.
#include <kj/async.h>

#include <mutex>
#include <vector>

namespace hnow::transport::data {

template <class T>
class KjInbox {
 public:
  // Any thread.
  void push(T item) {
    kj::Own<kj::CrossThreadPromiseFulfiller<void>> wake;
    {
      std::lock_guard lock(mutex_);
      items_.push_back(std::move(item));
      wake = kj::mv(waiting_);
    }
    if (wake) wake->fulfill();
  }

  // The kj thread; one next() at a time.
  kj::Promise<std::vector<T>> next() {
    {
      std::lock_guard lock(mutex_);
      if (!items_.empty()) return take();
      auto paf = kj::newPromiseAndCrossThreadFulfiller<void>();
      waiting_ = kj::mv(paf.fulfiller);
      return paf.promise.then([this]() {
        std::lock_guard lock(mutex_);
        return take();
      });
    }
  }

 private:
  std::vector<T> take() {
    std::vector<T> out;
    out.swap(items_);
    return out;
  }

  std::mutex mutex_;
  std::vector<T> items_;
  kj::Own<kj::CrossThreadPromiseFulfiller<void>> waiting_;
};

}  // namespace hnow::transport::data
