#include "agent/receiver.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include "agent/dest_path.h"
#include "transport/rpc_errors.h"

namespace hnow::agent {

Receiver::Receiver(std::vector<std::string> roots, const hnow::Clock& clock,
                   transport::data::DataOptions options)
    : roots_(std::move(roots)),
      plane_(clock, [this](transport::data::TransferEvent e) { inbox_.push(std::move(e)); }, options) {}

std::string Receiver::listen(const std::string& host) {
  auto port = plane_.listen(host);
  if (!port) transport::refuse(port.error().message);
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port.value());
}

std::string Receiver::receive(const std::string& token, const std::string& dest, std::uint64_t size,
                              const transport::data::Sha256& sha256) {
  auto target = openDestination(roots_, dest);
  if (!target) {
    spdlog::warn("refused a receive into '{}' that hnowd ordered: {}", dest, target.error().message);
    transport::refuse(target.error().message);
  }
  auto& t = target.value();
  std::string path = t.path;
  spdlog::info("receiving {} bytes into {}", size, path);
  plane_.receive(token, size, sha256, std::move(t));
  return path;
}

std::string Receiver::receiveStriped(const transport::ReceiveOrder& order) {
  auto target = openDestination(roots_, order.dest);
  if (!target) {
    spdlog::warn("refused a receive into '{}' that hnowd ordered: {}", order.dest, target.error().message);
    transport::refuse(target.error().message);
  }
  auto& t = target.value();
  std::string path = t.path;
  std::vector<transport::data::ByteRange> ranges;
  for (const transport::StripeOrder& s : order.stripes) {
    transport::data::ByteRange r{s.token, s.offset, s.length, {}};
    std::copy(s.sha256.begin(), s.sha256.end(), r.sha256.begin());
    ranges.push_back(std::move(r));
  }
  spdlog::info("receiving {} bytes into {} in {} stripes", order.size, path, ranges.size());
  plane_.receiveRanges(order.token, std::move(ranges), std::move(t), order.stripeChunkBytes);
  return path;
}

std::string Receiver::reachable(const std::string& address) const {
  for (const char* any : {"0.0.0.0:", "[::]:"})
    if (address.rfind(any, 0) == 0 && !coordinatorHost_.empty())
      return coordinatorHost_ + address.substr(std::string(any).size() - 1);
  return address;
}

void Receiver::pull(const std::string& token, const std::string& parentAddress) {
  plane_.pull(token, reachable(parentAddress));
}

kj::Promise<Receiver::ProbeAnswer> Receiver::probe(transport::data::ProbeOrder order) {
  for (std::string& address : order.pullFrom) address = reachable(address);
  auto paf = kj::newPromiseAndCrossThreadFulfiller<ProbeAnswer>();
  using Fulfiller = kj::Own<kj::CrossThreadPromiseFulfiller<ProbeAnswer>>;
  auto fulfiller = std::make_shared<Fulfiller>(kj::mv(paf.fulfiller));
  plane_.probe(std::move(order), [fulfiller](Result<transport::data::ProbeResult> result) {
    (*fulfiller)->fulfill(kj::heap<Result<transport::data::ProbeResult>>(std::move(result)));
  });
  return kj::mv(paf.promise);
}

kj::Promise<void> Receiver::forwardEvents(
    std::function<void(const transport::data::TransferEvent&)> report) {
  return inbox_.next().then([this, report](std::vector<transport::data::TransferEvent> events) mutable {
    for (const auto& e : events) report(e);
    return forwardEvents(kj::mv(report));
  });
}

}  // namespace hnow::agent
