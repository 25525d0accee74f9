// hnowd pulls a job's result from the one agent that holds it
// (server/data_source_plane.h, receiveFile): an agent that keeps closing
// the pull without a byte more (it serves no such token) fails the receive
// after kPullTries, saying so, instead of leaving the job waiting for ever.
#include <doctest/doctest.h>
#include <kj/async-io.h>

#include <filesystem>
#include <optional>

#include "server/data_source_plane.h"
#include "transport/data/kj_inbox.h"

using namespace hnow;
using transport::data::TransferEvent;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

kj::Promise<void> forward(transport::data::KjInbox<TransferEvent>& inbox, daemon::DataSourcePlane& source) {
  return inbox.next().then([&inbox, &source](std::vector<TransferEvent> events) {
    for (const auto& e : events) source.onTransfer(e);
    return forward(inbox, source);
  });
}

transport::data::DataOptions quickRetries() {
  transport::data::DataOptions options;
  options.reconnectDelay = 10ms;
  return options;
}

}  // namespace

TEST_CASE("a pull the holding agent keeps closing at the same byte fails after kPullTries, saying so") {
  char name[] = "/tmp/hnow-job-pull-XXXXXX";
  const fs::path top = ::mkdtemp(name);
  auto io = kj::setupAsyncIo();
  SteadyClock steady;
  transport::data::KjInbox<TransferEvent> events;
  transport::data::DataPlane hnowd{steady, [&events](TransferEvent e) { events.push(std::move(e)); }, quickRetries()};
  REQUIRE(hnowd.listen("127.0.0.1"));
  daemon::DataSourcePlane source(hnowd, (top / "trees").string());
  auto forwarding = forward(events, source).eagerlyEvaluate(nullptr);
  // The agent's plane: up, but holding nothing under the token asked for.
  transport::data::DataPlane agent{steady, [](TransferEvent) {}};
  const std::string agentAddress = "127.0.0.1:" + std::to_string(agent.listen("127.0.0.1").value());

  std::optional<Result<std::string>> received;
  source.receiveFile(std::string(32, 'r'), 1000, std::string(32, 's'), (top / "result").string(), agentAddress,
                     [&received](const Result<std::string>& path) { received = path; });
  for (int turn = 0; turn < 4000 && !received; ++turn) io.provider->getTimer().afterDelay(5 * kj::MILLISECONDS).wait(io.waitScope);
  REQUIRE(received.has_value());
  REQUIRE_FALSE(*received);
  CHECK(received->error().message.find("closed the pull 20 times in a row at byte 0") != std::string::npos);
  CHECK_FALSE(fs::exists(top / "result"));
  fs::remove_all(top);
}
