#include "server/link_probes.h"

#include <kj/async.h>
#include <spdlog/spdlog.h>

#include "server/link_values.h"
#include "transport/data/kj_inbox.h"

namespace hnow::daemon {

// hnowd's own probes: the data thread pushes each result to an inbox the kj
// thread drains, calling the waiting `done` by its number.
struct NodeProber::Pending {
  struct Result {
    std::uint64_t id;
    transport::data::ProbeResult result;
  };
  transport::data::KjInbox<Result> inbox;
  std::map<std::uint64_t, std::function<void(const ProbeReply&)>> waiting;
  std::uint64_t next = 1;

  kj::Promise<void> drain() {
    return inbox.next().then([this](std::vector<Result> results) {
      for (Result& r : results) {
        auto it = waiting.find(r.id);
        if (it == waiting.end()) continue;
        auto done = std::move(it->second);
        waiting.erase(it);
        done(probeReplyOf(r.result));
      }
      return drain();
    });
  }
};

NodeProber::NodeProber(Coordinator& coordinator, transport::data::DataPlane& plane)
    : coordinator_(coordinator), plane_(plane), pending_(std::make_shared<Pending>()),
      draining_(pending_->drain().eagerlyEvaluate([](kj::Exception&& e) {
        spdlog::error("hnowd's probe results stopped: {}", e.getDescription().cStr());
      })) {}

NodeProber::~NodeProber() noexcept {}

void NodeProber::probe(const std::string& node, const ProbeOrder& order,
                       std::function<void(const ProbeReply&)> done) {
  if (node != kCoordinatorNode) {
    AgentLink* link = coordinator_.link(node);
    if (!link) {
      ProbeReply gone;
      gone.error = "not connected";
      return done(gone);
    }
    return link->probeLinks(order, std::move(done));
  }
  const std::uint64_t id = pending_->next++;
  pending_->waiting[id] = std::move(done);
  plane_.probe(probeOrderOf(order), [pending = pending_, id](transport::data::ProbeResult result) {
    pending->inbox.push({id, std::move(result)});
  });
}

}  // namespace hnow::daemon
