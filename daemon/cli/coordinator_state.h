#pragma once
// CoordinatorClient's connection (cli/coordinator_client.h), shared by the
// files that define its calls: the event loop, the session, and waiting
// for an answer under a deadline. Inside the client only; capnp stays here.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include <kj/async-io.h>
#include <kj/debug.h>

#include "cli/coordinator_client.h"
#include "transport/auth.h"
#include "transport/gate_client.h"
#include "transport/identity.h"
#include "transport/rpc_connection.h"
#include "transport/rpc_errors.h"
#include "transport/tls_config.h"

namespace hnow::cli {

// hnowd answers in milliseconds when it has a core to itself; one beside
// hundreds of agents and a CPU hog on two cores, or one stopped a while
// (docs/reachability.md), took seconds, and its sends went on meanwhile:
// only half a minute of silence means it is wedged.
inline constexpr auto kDeadline = 30 * kj::SECONDS;

struct CoordinatorClient::State {
  kj::AsyncIoContext io = kj::setupAsyncIo();
  std::optional<transport::KeyPair> key;
  std::unique_ptr<transport::TlsSetup> tls;  // outlives the connection it wraps
  kj::Own<transport::RpcConnection> connection;
  std::optional<wire::ClientSession::Client> session;
  std::string host;  // as the client reached hnowd (client.toml's coordinator), for its data plane
  bool watching = false;     // `hnow ops wait`: Ctrl-C leaves, cancelling nothing
  bool interrupted = false;  // Ctrl-C while following: hnowd was asked to cancel (progress_follow.cc)

  // Waits for `promise` under the deadline; a kj failure becomes a message.
  template <class T>
  Reply<T> wait(kj::Promise<T> promise, kj::Duration deadline = kDeadline) {
    std::optional<T> value;
    KJ_IF_MAYBE(e, kj::runCatchingExceptions([&]() {
      value.emplace(io.provider->getTimer().timeoutAfter(deadline, kj::mv(promise)).wait(io.waitScope));
    })) {
      return Error{transport::describe(*e)};
    }
    return std::move(*value);
  }

  // Waits for the answer to a call that first reads whole files at hnowd
  // (hashing a file, walking and packing a tree, compressing): seconds to
  // minutes for a large one, so no fixed deadline. hnowd does that work off
  // its control thread and answers other calls meanwhile: a cheap call
  // every few seconds tells a busy hnowd from one that stopped answering.
  // `slow` is said once when the answer is not there after a moment.
  template <class T>
  Reply<T> waitWhileAnswering(kj::Promise<T> promise, const std::string& slow) {
    auto watch = watchAlive(slow, 0).then([]() -> T {
      kj::throwFatalException(transport::refusal("hnowd's watch ended without an answer"));
    });
    return wait(promise.exclusiveJoin(kj::mv(watch)), kMaxPreparing);
  }

 private:
  static constexpr auto kAliveEvery = 3 * kj::SECONDS;
  static constexpr auto kMaxPreparing = 60 * 60 * kj::SECONDS;
  kj::Promise<void> watchAlive(std::string slow, int round) {
    return io.provider->getTimer().afterDelay(kAliveEvery).then([this, slow, round]() mutable {
      if (round == 0 && !slow.empty()) std::fprintf(stderr, "%s\n", slow.c_str());
      auto ping = io.provider->getTimer().timeoutAfter(kDeadline, session->operationsRequest().send());
      return ping.then([this, slow = kj::mv(slow), round](auto) mutable { return watchAlive(kj::mv(slow), round + 1); },
                       [](kj::Exception&& e) -> kj::Promise<void> {
                         return transport::refusal("hnowd stopped answering while it read files for its answer (" +
                                                   transport::describe(e) + ")");
                       });
    });
  }
};

}  // namespace hnow::cli
