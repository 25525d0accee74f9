// OffThread: work that takes seconds runs on a thread of its own while the
// kj loop keeps answering; its answer comes back on the loop's thread.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <optional>
#include <string>
#include <thread>

#include <kj/async.h>

#include "transport/off_thread.h"

using namespace hnow::transport;

TEST_CASE("work off the control thread leaves the kj loop running, and its answer comes back on the loop's thread") {
  kj::EventLoop loop;
  kj::WaitScope ws(loop);
  OffThread work;
  std::atomic<bool> release{false};
  std::thread::id workedOn, answeredOn;
  std::optional<int> answer;
  auto paf = kj::newPromiseAndFulfiller<void>();
  work.run<int>(
      [&] {
        workedOn = std::this_thread::get_id();
        while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        return 42;
      },
      [&](int& v) {
        answeredOn = std::this_thread::get_id();
        answer = v;
        paf.fulfiller->fulfill();
      });
  // The loop is free while the work runs: other events are handled.
  int turns = 0;
  for (int i = 0; i < 100; ++i) {
    kj::evalLater([&] { ++turns; }).wait(ws);
  }
  CHECK(turns == 100);
  CHECK_FALSE(answer);
  CHECK(work.running() == 1);
  release = true;
  paf.promise.wait(ws);
  CHECK(*answer == 42);
  CHECK(answeredOn == std::this_thread::get_id());
  CHECK(workedOn != std::this_thread::get_id());
  CHECK(work.running() == 0);
}

TEST_CASE("an OffThread destroyed with work under way waits for it and drops its answer") {
  kj::EventLoop loop;
  kj::WaitScope ws(loop);
  bool answered = false;
  std::atomic<bool> finished{false};
  {
    OffThread work;
    work.run<std::string>(
        [&] {
          std::this_thread::sleep_for(std::chrono::milliseconds(50));
          finished = true;
          return std::string("late");
        },
        [&](std::string&) { answered = true; });
  }
  CHECK(finished);
  loop.run();
  CHECK_FALSE(answered);
}
