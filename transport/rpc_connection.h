#pragma once
// One Cap'n Proto two-party connection with hnow's reader limits. Built on
// TwoPartyVatNetwork directly: TwoPartyServer/TwoPartyClient (0.9.2) take no
// ReaderOptions, and every message from a peer must be read with limits.
#include <capnp/rpc-twoparty.h>
#include <kj/async-io.h>

#include <cstdint>

namespace hnow::transport {

// Limits for every message read from a peer: sizes a peer sends are never
// trusted. The largest legitimate message is a 1 MiB piece of a job's
// output (ClientSession.runOutput).
inline constexpr std::uint32_t kLargestMessageBytes = 1 << 20;
capnp::ReaderOptions peerReaderOptions();

class RpcConnection {
 public:
  // The side that accepted the connection; `bootstrap` is all the peer gets.
  RpcConnection(kj::Own<kj::AsyncIoStream> stream, capnp::Capability::Client bootstrap);
  // The side that connected; it exports nothing by bootstrap (capabilities
  // it passes in calls, such as an agent's AgentControl, still work).
  explicit RpcConnection(kj::Own<kj::AsyncIoStream> stream);

  template <class T>
  typename T::Client peerBootstrap() {
    return bootstrapCapability().castAs<T>();
  }
  kj::Promise<void> onDisconnect() { return network_.onDisconnect(); }

 private:
  capnp::Capability::Client bootstrapCapability();

  kj::Own<kj::AsyncIoStream> stream_;
  capnp::TwoPartyVatNetwork network_;
  capnp::RpcSystem<capnp::rpc::twoparty::VatId> rpc_;
};

}  // namespace hnow::transport
