// Receives parked while their hnowd restarts, and adopted by its next send
// of the same file: the bytes written in order, and the SHA-256 taken over
// them, carry over, so the receive resumes where it stopped (as after a
// lost parent) rather than from byte 0. A file moved as byte ranges is
// parked whole, each range with its own bytes and digest.
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
  if (op.receiving()) op.state = Operation::State::kWaiting;  // a range verified already stays so
}

void DataPlane::Impl::rekey(const std::string& from, const std::string& to) {
  auto node = operations_.extract(from);
  node.key() = to;
  node.mapped()->token = to;
  operations_.insert(std::move(node));
}

void DataPlane::Impl::releaseAllBut(const std::set<std::string>& parked) {
  std::vector<std::string> tokens;
  for (const auto& [token, file] : assemblies_) tokens.push_back(token);
  for (const auto& [token, op] : operations_) tokens.push_back(token);
  for (const auto& token : tokens) {
    if (auto file = assemblies_.find(token); file != assemblies_.end()) {
      Assembly& a = *file->second;
      if (!parked.count(token) || a.state != Assembly::State::kReceiving) {
        release(token);
        continue;
      }
      std::uint64_t held = 0;
      for (const std::string& range : a.ranges)
        if (Operation* op = find(range)) park(*op), held += op->available;
      spdlog::info("parked the receive into {}: {} bytes held in {} ranges", a.target.path, held, a.ranges.size());
      continue;
    }
    Operation* op = find(token);
    if (!op || (op->assembly && assemblies_.count(op->assembly->token))) continue;  // its file's, above
    // A whole file still arriving; one being renamed into place as it
    // was parked goes on to its end (adopt() then reports it done).
    if (parked.count(token) && op->receiving()) {
      park(*op);
      spdlog::info("parked the receive into {}: {} bytes held", op->target.path, op->available);
    } else if (!parked.count(token) || (op->state != Operation::State::kVerifying && op->state != Operation::State::kDone)) {
      release(token);
    }
  }
}

void DataPlane::Impl::lostParked(const std::vector<std::string>& tokens) {
  for (const std::string& token : tokens) {
    if (find(token)) continue;  // a repeated order: the first stands
    TransferEvent e;
    e.kind = TransferEvent::Kind::kFailed;
    e.token = token;
    e.message = "the part of this file received before hnowd restarted is gone (it ended meanwhile); send it again";
    sink_(std::move(e));
  }
}

void DataPlane::Impl::adopt(const std::string& parked, const std::string& token) {
  if (find(token)) return;  // a repeated order
  Operation* op = find(parked);
  if (op && !op->assembly && op->state == Operation::State::kDone) {  // it landed whole as it was parked
    rekey(parked, token);
    return emit(TransferEvent::Kind::kDone, *op);
  }
  // Failed, or still being renamed into place: nothing under `token` would ever report.
  if (!op || op->assembly || !op->receiving()) return lostParked({token});
  park(*op);
  spdlog::info("the receive into {} resumes after byte {} of {}", op->target.path, op->available, op->size);
  rekey(parked, token);
}

void DataPlane::Impl::adoptRanges(const std::string& parked, const std::string& token,
                                  const std::vector<std::string>& ranges) {
  if (assemblies_.count(token)) return;  // a repeated order
  auto file = assemblies_.find(parked);
  bool whole = file != assemblies_.end() && file->second->state == Assembly::State::kReceiving &&
               file->second->ranges.size() == ranges.size();
  for (std::size_t i = 0; whole && i < ranges.size(); ++i) whole = find(file->second->ranges[i]) && !find(ranges[i]);
  if (!whole) return lostParked(ranges);
  auto node = assemblies_.extract(file);
  Assembly& a = *node.mapped();
  std::uint64_t held = 0;
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    Operation& op = *find(a.ranges[i]);
    park(op);
    held += op.available;
    rekey(a.ranges[i], ranges[i]);
    a.ranges[i] = ranges[i];
  }
  a.token = token;
  node.key() = token;
  assemblies_.insert(std::move(node));
  spdlog::info("the receive into {} resumes its {} ranges from the {} bytes they hold", a.target.path, ranges.size(), held);
}

void DataPlane::releaseAllBut(std::set<std::string> parked) {
  loop_->post([this, parked = std::move(parked)]() { impl_->releaseAllBut(parked); });
}

void DataPlane::adopt(std::string parked, std::string token) {
  loop_->post([this, parked = std::move(parked), token = std::move(token)]() { impl_->adopt(parked, token); });
}

void DataPlane::adoptRanges(std::string parked, std::string token, std::vector<std::string> ranges) {
  loop_->post([this, parked = std::move(parked), token = std::move(token), ranges = std::move(ranges)]() {
    impl_->adoptRanges(parked, token, ranges);
  });
}

}  // namespace hnow::transport::data
