#include "server/reachability_check.h"

#include <spdlog/spdlog.h>

#include <memory>

#include "transport/rpc_errors.h"

namespace hnow::daemon {

ReachabilityCheck::ReachabilityCheck(kj::Network& network, kj::Timer& timer, kj::Duration timeout)
    : network_(network), timer_(timer), timeout_(timeout), checks_(*this) {}

ReachabilityCheck::~ReachabilityCheck() noexcept = default;

void ReachabilityCheck::check(const std::string& dataAddress, std::function<void(Result<void>)> done) {
  auto answer = std::make_shared<std::function<void(Result<void>)>>(std::move(done));
  const double seconds = static_cast<double>(timeout_ / kj::MILLISECONDS) / 1000.0;
  auto connected = network_.parseAddress(dataAddress).then([](kj::Own<kj::NetworkAddress> address) {
    return address->connect().attach(kj::mv(address));
  });
  auto timeout = timer_.afterDelay(timeout_).then([seconds]() -> kj::Own<kj::AsyncIoStream> {
    kj::throwFatalException(transport::refusal(fmt::format("no answer within {:g} s", seconds)));
  });
  checks_.add(connected.exclusiveJoin(kj::mv(timeout))
                  .then([answer](kj::Own<kj::AsyncIoStream>) { (*answer)(Result<void>{}); },
                        [answer](kj::Exception&& e) { (*answer)(Error{transport::describe(e)}); }));
}

void ReachabilityCheck::taskFailed(kj::Exception&& exception) {
  spdlog::warn("checking an agent's data address: {}", exception.getDescription().cStr());
}

}  // namespace hnow::daemon
