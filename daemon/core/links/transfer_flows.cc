#include "core/links/transfer_flows.h"

namespace hnow::daemon {

namespace {
// Reports older than this serve no window hnowd judges.
constexpr Duration kKeep = std::chrono::seconds(10);
}  // namespace

TransferFlows::TransferFlows(std::size_t nodes, std::uint64_t leadBytes, std::uint64_t inFlightBytes)
    : lead_(leadBytes), inFlight_(inFlightBytes), samples_(nodes), movedAt_(nodes) {}

void TransferFlows::held(TimePoint now, int node, std::uint64_t bytes) {
  if (node <= 0 || static_cast<std::size_t>(node) >= samples_.size()) return;
  auto& list = samples_[static_cast<std::size_t>(node)];
  if (!list.empty() && bytes < list.back().bytes) bytes = list.back().bytes;  // held bytes never shrink
  list.push_back({now, bytes});
  while (list.size() > 2 && now - list.front().at > kKeep) list.pop_front();
}

void TransferFlows::moved(TimePoint now, int node) {
  if (node > 0 && static_cast<std::size_t>(node) < movedAt_.size()) movedAt_[static_cast<std::size_t>(node)] = now;
}

std::uint64_t TransferFlows::heldAt(std::size_t node, TimePoint t) const {
  std::uint64_t bytes = 0;
  for (const Sample& s : samples_[node]) {
    if (s.at > t) break;
    bytes = s.bytes;
  }
  return bytes;
}

std::vector<TreeFlow> TransferFlows::flows(TimePoint now, Duration window, const std::vector<int>& parent,
                                           const std::vector<bool>& receiving,
                                           const std::vector<bool>& holdsAll) const {
  std::vector<TreeFlow> out;
  const TimePoint start = now - window;
  for (std::size_t i = 1; i < samples_.size() && i < parent.size(); ++i) {
    const int p = parent[i];
    if (!receiving[i] || p < 0 || static_cast<std::size_t>(p) >= samples_.size()) continue;
    TreeFlow flow{p, static_cast<int>(i), 0.0, false};
    // The first report inside the window and the last one.
    const Sample* first = nullptr;
    const Sample* last = nullptr;
    for (const Sample& s : samples_[i]) {
      if (s.at < start || s.at > now) continue;
      if (!first) first = &s;
      last = &s;
    }
    if (first && last->at - first->at >= window / 2) {
      flow.bytesPerSecond = static_cast<double>(last->bytes - first->bytes) / seconds(last->at - first->at);
      const auto pi = static_cast<std::size_t>(p);
      flow.fed = movedAt_[i] <= start && (holdsAll[pi] || heldAt(pi, first->at) >= last->bytes + lead_);
      flow.starved = !holdsAll[pi] && heldAt(pi, last->at) < last->bytes + inFlight_;
    }
    out.push_back(flow);
  }
  return out;
}

}  // namespace hnow::daemon
