// hnowd's control port as an unauthenticated peer reaches it: the fuzz
// input is the raw byte stream a connecting peer sends, into the real
// ControlServer (accept, login deadline, Gate, Cap'n Proto reader limits)
// over a socketpair in this process. The peer cannot log in (the nonce is
// fresh), so this is exactly what anyone on the network can make hnowd do.
// The first byte says how the peer leaves: closing its end, or staying
// silent until the login deadline passes.
#include <kj/async-io.h>
#include <kj/debug.h>
#include <kj/timer.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>

#include "daemon/core/memory_state_store.h"
#include "daemon/server/test_trust.h"
#include "fuzz/fuzz_check.h"
#include "fuzz/quiet_logs.h"
#include "server/control_server.h"

namespace {

using namespace hnow;

// Hands the server one connection, then nothing (as a listening socket no one else dials).
class OneConnection final : public kj::ConnectionReceiver {
 public:
  explicit OneConnection(kj::Own<kj::AsyncIoStream> stream) : stream_(kj::mv(stream)) {}
  kj::Promise<kj::Own<kj::AsyncIoStream>> accept() override {
    KJ_IF_MAYBE(s, stream_) {
      auto out = kj::mv(*s);
      stream_ = nullptr;
      return kj::mv(out);
    }
    return kj::NEVER_DONE;
  }
  kj::uint getPort() override { return 0; }

 private:
  kj::Maybe<kj::Own<kj::AsyncIoStream>> stream_;
};

// Reads and drops what hnowd answers until it closes its end.
kj::Promise<void> drain(kj::AsyncIoStream& stream, kj::byte* buffer, std::size_t size) {
  return stream.tryRead(buffer, 1, size).then([&stream, buffer, size](std::size_t n) -> kj::Promise<void> {
    if (n == 0) return kj::READY_NOW;
    return drain(stream, buffer, size);
  });
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  hnow::fuzz::quietLogs();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const bool waitForDeadline = data[0] & 1;
  ++data;
  --size;

  kj::AsyncIoContext io = kj::setupAsyncIo();
  kj::TimerImpl timer{kj::origin<kj::TimePoint>()};
  hnow::ManualClock clock;
  daemon::MemoryStateStore store;
  daemon::Coordinator coordinator{clock, daemon::RateTableOptions{}, store};
  testing::TestTrust keys{clock};

  int fds[2];
  HNOW_FUZZ_CHECK(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0, "a socketpair");
  auto flags = kj::LowLevelAsyncIoProvider::TAKE_OWNERSHIP;
  auto peer = io.lowLevelProvider->wrapSocketFd(fds[1], flags);
  {
    OneConnection receiver(io.lowLevelProvider->wrapSocketFd(fds[0], flags));
    daemon::ConnectionLimits limits;
    limits.loginTimeout = 10 * kj::SECONDS;
    auto server = kj::heap<daemon::ControlServer>(coordinator, keys.trust, timer, limits);
    auto listening = server->listen(receiver).eagerlyEvaluate(nullptr);

    kj::byte buffer[4096];
    auto answered = drain(*peer, buffer, sizeof buffer).fork();
    auto sent = peer->write(data, size);
    auto done = kj::mv(sent).then([&]() -> kj::Promise<void> {
      if (!waitForDeadline) {
        peer->shutdownWrite();
        return answered.addBranch();
      }
      // Let hnowd handle what it got, then pass its login deadline.
      return kj::evalLast([&]() {
        timer.advanceTo(timer.now() + limits.loginTimeout + 1 * kj::SECONDS);
        return answered.addBranch();
      });
    });
    // A broken stream ends in an exception on our side (hnowd closed on us): fine.
    auto ended = kj::mv(done).then([]() { return true; }, [](kj::Exception&&) { return true; });
    // Work per input is bounded: hnowd must have closed the connection by now.
    bool closed = io.provider->getTimer()
                      .timeoutAfter(5 * kj::SECONDS, kj::mv(ended))
                      .then([](bool b) { return b; }, [](kj::Exception&&) { return false; })
                      .wait(io.waitScope);
    HNOW_FUZZ_CHECK(closed, "hnowd closes a connection that ended or missed its login deadline");
    HNOW_FUZZ_CHECK(coordinator.status().empty(), "no agent registers without a key hnowd binds to its name");
    listening = nullptr;
    server = nullptr;
  }
  io.waitScope.poll();
  return 0;
}
