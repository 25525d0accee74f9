#pragma once
// LinkProber over the real nodes: an agent's part of a probe round goes to
// it over its AgentControl capability, hnowd's own to its data plane (its
// answer comes back from the data thread to the kj thread).
#include <kj/async.h>

#include <memory>

#include "core/coordinator.h"
#include "core/links/link_probe.h"
#include "transport/data/data_plane.h"

namespace hnow::daemon {

class NodeProber final : public LinkProber {
 public:
  NodeProber(Coordinator& coordinator, transport::data::DataPlane& plane);
  // kj promises may throw from their destructors; LinkProber's may not.
  ~NodeProber() noexcept override;
  void probe(const std::string& node, const ProbeOrder& order, ProbeDone done) override;

 private:
  struct Pending;
  Coordinator& coordinator_;
  transport::data::DataPlane& plane_;
  // Shared with the data thread's callbacks, which may outlive this.
  std::shared_ptr<Pending> pending_;
  kj::Promise<void> draining_;
};


}  // namespace hnow::daemon
