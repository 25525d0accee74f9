#include "server/link_probes.h"

#include <kj/async.h>
#include <spdlog/spdlog.h>

#include "server/link_values.h"
#include "transport/data/kj_inbox.h"

namespace hnow::daemon {

// hnowd's own probes: the data thread pushes each result to an inbox the kj
// thread drains, calling the waiting `done` by its number.
struct NodeProber::Pending {
  struct Answer {
    std::uint64_t id;
    hnow::Result<transport::data::ProbeResult> result;
  };
  transport::data::KjInbox<Answer> inbox;
  std::map<std::uint64_t, ProbeDone> waiting;
  std::uint64_t next = 1;

  kj::Promise<void> drain() {
    return inbox.next().then([this](std::vector<Answer> results) {
      for (Answer& r : results) {
        auto it = waiting.find(r.id);
        if (it == waiting.end()) continue;
        auto done = std::move(it->second);
        waiting.erase(it);
        if (r.result) done(probeReplyOf(r.result.value()));
        else done(r.result.error());
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

void NodeProber::probe(const std::string& node, const ProbeOrder& order, ProbeDone done) {
  if (node != kCoordinatorNode) {
    AgentLink* link = coordinator_.link(node);
    if (!link) return done(Error{"not connected"});
    return link->probeLinks(order, std::move(done));
  }
  const std::uint64_t id = pending_->next++;
  pending_->waiting[id] = std::move(done);
  plane_.probe(probeOrderOf(order), [pending = pending_, id](hnow::Result<transport::data::ProbeResult> result) {
    pending->inbox.push({id, std::move(result)});
  });
}

}  // namespace hnow::daemon
