#include "transport/rpc_connection.h"

#include <capnp/message.h>

namespace hnow::transport {

capnp::ReaderOptions peerReaderOptions() {
  capnp::ReaderOptions options;
  // Words a single message may make us traverse: the largest message and
  // its envelope, well under the 64 MiB default.
  options.traversalLimitInWords = (2 * kLargestMessageBytes) / sizeof(capnp::word);
  // Our schema nests a few levels; 64 is the default and far more than we need.
  options.nestingLimit = 16;
  return options;
}

RpcConnection::RpcConnection(kj::Own<kj::AsyncIoStream> stream, capnp::Capability::Client bootstrap)
    : stream_(kj::mv(stream)),
      network_(*stream_, capnp::rpc::twoparty::Side::SERVER, peerReaderOptions()),
      rpc_(capnp::makeRpcServer(network_, kj::mv(bootstrap))) {}

RpcConnection::RpcConnection(kj::Own<kj::AsyncIoStream> stream)
    : stream_(kj::mv(stream)),
      network_(*stream_, capnp::rpc::twoparty::Side::CLIENT, peerReaderOptions()),
      rpc_(capnp::makeRpcClient(network_)) {}

capnp::Capability::Client RpcConnection::bootstrapCapability() {
  capnp::word scratch[4] = {};
  capnp::MallocMessageBuilder message(scratch);
  auto vat = message.getRoot<capnp::rpc::twoparty::VatId>();
  vat.setSide(capnp::rpc::twoparty::Side::SERVER);
  return rpc_.bootstrap(vat);
}

}  // namespace hnow::transport
