// Receives parked while their hnowd restarts, and adopted by its next send
// of the same file: the bytes written in order, and the SHA-256 taken over
// them, carry over, so the receive resumes where it stopped (as after a
// lost parent) rather than from byte 0.
#include <spdlog/spdlog.h>

#include "transport/data/plane_impl.h"

namespace hnow::transport::data {

void DataPlane::Impl::park(Operation& op) {
  for (ServeConnection* child : std::vector<ServeConnection*>(op.children.begin(), op.children.end()))
    child->close("the operation was parked");
  if (!op.offerTicket.empty()) offerTickets_.erase(op.offerTicket);
  op.offerTicket.clear();
  retire(std::move(op.upstream));
  uv_timer_stop(op.retryTimer.get());
  op.parentAddress.clear();
  op.state = Operation::State::kWaiting;
}

void DataPlane::Impl::releaseAllBut(const std::set<std::string>& parked) {
  std::vector<std::string> tokens;
  for (const auto& [token, file] : assemblies_) tokens.push_back(token);
  for (const auto& [token, op] : operations_) tokens.push_back(token);
  for (const auto& token : tokens) {
    Operation* op = find(token);
    // Only a whole file still arriving: a range's file is its assembly's.
    if (parked.count(token) && op && !op->assembly && op->receiving()) {
      park(*op);
      spdlog::info("parked the receive into {} at byte {} of {}", op->target.path, op->available, op->size);
    } else {
      release(token);
    }
  }
}

void DataPlane::Impl::adopt(const std::string& parked, const std::string& token) {
  Operation* op = find(parked);
  if (!op || op->assembly || !op->receiving() || find(token)) return;
  park(*op);
  auto node = operations_.extract(parked);
  node.key() = token;
  node.mapped()->token = token;
  spdlog::info("the receive into {} resumes after byte {} of {}", op->target.path, op->available, op->size);
  operations_.insert(std::move(node));
}

void DataPlane::releaseAllBut(std::set<std::string> parked) {
  loop_->post([this, parked = std::move(parked)]() { impl_->releaseAllBut(parked); });
}

void DataPlane::adopt(std::string parked, std::string token) {
  loop_->post([this, parked = std::move(parked), token = std::move(token)]() { impl_->adopt(parked, token); });
}

}  // namespace hnow::transport::data
