// Receives parked while hnowd restarts (Receiver::park), and adopted by
// its next send of the same file.
#include <spdlog/spdlog.h>

#include "agent/receiver.h"

namespace hnow::agent {

void Receiver::park(const std::set<std::string>& unfinished) {
  std::set<std::string> tokens;
  for (const std::string& token : unfinished) {
    auto it = wholeReceives_.find(token);
    if (it == wholeReceives_.end()) continue;
    parked_[token] = it->second;
  }
  for (const auto& [token, receive] : parked_) tokens.insert(token);  // parked before: they stay
  // A parked receive writes nothing until adopted: it holds no destination.
  claims_->clear();
  scratches_.clear();
  wholeReceives_.clear();
  adopted_.clear();
  plane_.releaseAllBut(std::move(tokens));
}

std::size_t Receiver::dropParked() {
  const std::size_t n = parked_.size();
  for (const auto& [token, receive] : parked_) {
    spdlog::info("dropping the part of {} received before hnowd restarted: no send resumed it", receive.path);
    plane_.release(token);
  }
  parked_.clear();
  return n;
}

std::optional<Result<std::string>> Receiver::adoptParked(const std::string& token, const std::string& path,
                                                         std::uint64_t size, const transport::data::Sha256& sha256,
                                                         int dirFd, const std::string& name,
                                                         const std::string& operation) {
  for (auto it = parked_.begin(); it != parked_.end(); ++it) {
    const WholeReceive& receive = it->second;
    if (receive.path != path || receive.size != size || receive.sha256 != sha256) continue;
    if (auto held = claim(dirFd, name, path, token, operation, size); !held) return Result<std::string>(held.error());
    spdlog::info("receiving {} bytes into {}: resumed from the part received before hnowd restarted", size, path);
    plane_.adopt(it->first, token);
    wholeReceives_[token] = receive;
    adopted_.insert(token);
    parked_.erase(it);
    return Result<std::string>(path);
  }
  return std::nullopt;
}

}  // namespace hnow::agent
