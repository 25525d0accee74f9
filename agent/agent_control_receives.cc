#include "agent/agent_control.h"

#include <kj/debug.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cmath>
#include <optional>
#include <utility>

#include "agent/receiver.h"
#include "agent/source_file.h"
#include "transport/agent_wire.h"
#include "transport/held_lists_wire.h"
#include "transport/rpc_errors.h"
#include "transport/wire_bytes.h"

namespace hnow::agent {

namespace {

// A manifest item's file opened and hashed off the kj thread; closed here
// unless it was handed to the data plane (a call cancelled meanwhile).
struct OpenedSource {
  Result<SourceFile> source;
  explicit OpenedSource(Result<SourceFile> opened) : source(std::move(opened)) {}
  OpenedSource(OpenedSource&& other) noexcept : source(std::move(other.source)) {
    if (other.source) other.source.value().fd = -1;
  }
  OpenedSource& operator=(OpenedSource&&) = delete;
  ~OpenedSource() {
    if (source && source.value().fd >= 0) ::close(source.value().fd);
  }
};

// hnowd's order, as the receiver takes it: the final path, or why not.
Result<std::string> receiveBy(Receiver& receiver, const transport::orders::ReceiveOrder& order,
                              const transport::data::Sha256& sha256) {
  if (order.tree) return receiver.receiveTree(order);
  if (order.compressed) return receiver.receiveCompressed(order);
  if (!order.stripes.empty()) return receiver.receiveStriped(order);
  return receiver.receive(order.token, order.dest, order.size, sha256, wholeFileDigests(order), order.operation);
}

}  // namespace

kj::Promise<void> AgentControlServer::receive(ReceiveContext context) {
  auto order = transport::valueOrRefuse(transport::receiveOrderFromWire(context.getParams().getOrder()));
  std::string path = transport::valueOrRefuse(receiveBy(runtime_.receiver(), order, digestOf(order.sha256)));
  runtime_.paceReceive(order.token, order.uplinkPaceBytesPerSecond, order.downlinkPaceBytesPerSecond);
  runtime_.spaceProgress(order);
  context.getResults().setPath(path);
  return kj::READY_NOW;
}

kj::Promise<void> AgentControlServer::pull(PullContext context) {
  auto params = context.getParams();
  runtime_.receiver().pull(tokenOf(params.getToken()), params.getParentAddress());
  return kj::READY_NOW;
}

kj::Promise<void> AgentControlServer::release(ReleaseContext context) {
  const std::string token = tokenOf(context.getParams().getToken());
  runtime_.receiver().release(token);
  runtime_.forgetReport(token);
  runtime_.paceReceive(token, 0.0, 0.0);
  return kj::READY_NOW;
}

kj::Promise<void> AgentControlServer::serveFile(ServeFileContext context) {
  auto params = context.getParams();
  KJ_REQUIRE(params.getToken().size() == wire::TOKEN_BYTES, "an operation token is 32 bytes");
  const double pace = params.getUplinkPaceBytesPerS();
  KJ_REQUIRE(std::isfinite(pace) && pace >= 0, "an uplink pace must be finite and not negative");
  std::string file = params.getFile();
  // Hashing the file takes seconds for a large one: off the kj thread, which keeps heartbeats going.
  return offThread<OpenedSource>([roots = runtime_.receiver().roots(), file] {
           return OpenedSource(openSourceFile(roots, file));
         })
      .then([this, context, file, pace](kj::Own<OpenedSource> opened) mutable {
        if (!opened->source) {
          spdlog::warn("refused to serve a file: {}", opened->source.error().message);
          transport::refuse(opened->source.error().message);
        }
        SourceFile& source = opened->source.value();
        spdlog::info("serving {} ({} bytes)", file, source.size);
        const std::string token = tokenOf(context.getParams().getToken());
        const std::string pieces = source.digests.pieceBytes();
        auto results = context.getResults();
        results.setSize(source.size);
        results.setSha256(capnp::Data::Reader(source.sha256.data(), source.sha256.size()));
        results.setDigestChunkBytes(source.digests.chunkBytes);
        results.setPieceDigests(transport::dataOf(pieces));
        runtime_.receiver().serve(token, std::exchange(source.fd, -1), source.size, std::move(source.digests));
        runtime_.paceReceive(token, pace, 0.0);
      });
}

kj::Promise<void> AgentControlServer::treeHeld(TreeHeldContext context) {
  auto params = context.getParams();
  auto index = params.getIndex();
  std::string dest = params.getDest();
  std::string query = transport::stringOf(index);
  return offThread<Result<transport::data::HeldFiles>>(
             [roots = runtime_.receiver().roots(), dest, query, listings = runtime_.receiver().listings()] {
               return Receiver::treeHeld(roots, dest, query, *listings);
             })
      .then([context](kj::Own<Result<transport::data::HeldFiles>> held) mutable {
        transport::setHeldLists(context.getResults(), transport::valueOrRefuse(std::move(*held)));
      });
}

kj::Promise<void> AgentControlServer::fileHeld(FileHeldContext context) {
  auto params = context.getParams();
  std::optional<transport::data::Sha256> sha256;
  if (params.getSha256().size() == 32)
    sha256 = digestOf(std::string(reinterpret_cast<const char*>(params.getSha256().begin()), 32));
  else if (params.getSha256().size() != 0)
    transport::refuse("a file's SHA-256 from hnowd must be 32 bytes");
  std::string dest = params.getDest();
  const std::uint64_t size = params.getSize();
  using Holding = Result<Receiver::FileHolding>;
  return offThread<Holding>([roots = runtime_.receiver().roots(), dest, size, sha256,
                             listings = runtime_.receiver().listings()] {
           return Receiver::fileHeld(roots, dest, size, sha256, *listings);
         })
      .then([context](kj::Own<Holding> answered) mutable {
        const Receiver::FileHolding held = transport::valueOrRefuse(std::move(*answered));
        using H = transport::data::DestHolding;
        wire::DestHolding out = wire::DestHolding::OTHER;
        switch (held.holding) {
          case H::kAbsent: out = wire::DestHolding::ABSENT; break;
          case H::kSameSize: out = wire::DestHolding::SAME_SIZE; break;
          case H::kSame: out = wire::DestHolding::SAME; break;
          case H::kOther: case H::kDirectory: break;
        }
        context.getResults().setHolding(out);
        context.getResults().setHeldAt(held.heldAt);
      });
}

kj::Promise<void> AgentControlServer::copyHeld(CopyHeldContext context) {
  auto params = context.getParams();
  if (params.getSha256().size() != 32) transport::refuse("a file's SHA-256 from hnowd must be 32 bytes");
  const auto sha256 = digestOf(std::string(reinterpret_cast<const char*>(params.getSha256().begin()), 32));
  std::string dest = params.getDest(), from = params.getFrom();
  const std::uint64_t size = params.getSize();
  // dest is held while the copy runs, as a receive holds its own.
  auto claim = transport::valueOrRefuse(runtime_.receiver().claimCopy(dest));
  using Copied = Result<std::string>;
  return offThread<Copied>([roots = runtime_.receiver().roots(), dest, from, size, sha256,
                            listings = runtime_.receiver().listings()] {
           return Receiver::copyHeld(roots, dest, from, size, sha256, *listings);
         })
      .then([context, claim = std::move(claim)](kj::Own<Copied> copied) mutable {
        context.getResults().setPath(transport::valueOrRefuse(std::move(*copied)));
      });
}

}  // namespace hnow::agent
