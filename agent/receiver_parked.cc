// Receives parked while hnowd restarts (Receiver::park), and adopted by
// its next send of the same file.
#include <spdlog/spdlog.h>

#include "agent/receiver.h"
#include "agent/receiver_scratch.h"

namespace hnow::agent {

namespace {

std::vector<std::string> tokensOf(const std::vector<transport::orders::StripeOrder>& stripes) {
  std::vector<std::string> out;
  for (const transport::orders::StripeOrder& s : stripes) out.push_back(s.token);
  return out;
}

}  // namespace

void Receiver::Scratch::rekey(const std::map<std::string, std::string>& renamed) {
  auto renamedKeys = [&](auto& byToken) {
    std::remove_reference_t<decltype(byToken)> out;
    for (auto& [token, value] : byToken) out[renamed.at(token)] = std::move(value);
    byToken = std::move(out);
  };
  fileToken = renamed.at(fileToken);
  for (std::string& t : transfers) t = renamed.at(t);
  std::set<std::string> renamedWaiting;
  for (const std::string& t : waiting) renamedWaiting.insert(renamed.at(t));
  waiting = std::move(renamedWaiting);
  for (transport::data::TransferEvent& e : done) e.token = renamed.at(e.token);
  renamedKeys(firstByte);
  renamedKeys(landed);
}

bool Receiver::HeldReceive::sameFile(const HeldReceive& o) const {
  return path == o.path && size == o.size && sha256 == o.sha256 && compressed == o.compressed && tree == o.tree &&
         atomic == o.atomic && deleteOthers == o.deleteOthers;
}

bool Receiver::HeldReceive::sameAs(const HeldReceive& o) const {
  if (!sameFile(o) || stripes.size() != o.stripes.size()) return false;
  for (std::size_t i = 0; i < stripes.size(); ++i)
    if (stripes[i].offset != o.stripes[i].offset || stripes[i].length != o.stripes[i].length ||
        stripes[i].sha256 != o.stripes[i].sha256)
      return false;
  return true;
}

void Receiver::park(const std::set<std::string>& unfinished) {
  for (const auto& [token, receive] : receives_) {
    // A striped file's transfers report under its stripes' tokens.
    bool arriving = unfinished.count(token) > 0;
    for (const transport::orders::StripeOrder& s : receive.stripes) arriving = arriving || unfinished.count(s.token);
    if (arriving) parked_[token] = receive;
  }
  std::set<std::string> tokens;
  for (const auto& [token, receive] : parked_) tokens.insert(token);  // parked before: they stay
  for (const auto& [token, receive] : receives_)
    if (!tokens.count(token)) dropRecord(receive);
  // A parked receive writes nothing until adopted: it holds no destination.
  claims_->clear();
  scratches_.clear();
  receives_.clear();
  adopted_.clear();
  plane_.releaseAllBut(std::move(tokens));
}

bool Receiver::parks(const std::string& token) const {
  for (const auto& [file, receive] : parked_) {
    if (file == token) return true;
    for (const transport::orders::StripeOrder& s : receive.stripes)
      if (s.token == token) return true;
  }
  return false;
}

std::size_t Receiver::dropParked() {
  const std::size_t n = parked_.size();
  for (const auto& [token, receive] : parked_) {
    spdlog::info("dropping the part of {} received before hnowd restarted: no send resumed it", receive.path);
    plane_.release(token);
    dropRecord(receive);
  }
  parked_.clear();
  return n + dropLeftovers();
}

std::optional<Result<std::string>> Receiver::adoptParked(const std::string& token, const HeldReceive& held, int dirFd,
                                                         const std::string& name, const std::string& operation) {
  for (auto it = parked_.begin(); it != parked_.end(); ++it) {
    if (!it->second.sameAs(held)) continue;
    const std::vector<std::string> stripes = tokensOf(held.stripes);
    if (auto claimed = claim(dirFd, name, held.path, token, operation, held.size, stripes); !claimed)
      return Result<std::string>(claimed.error());
    spdlog::info("receiving {} bytes into {}: resumed from the part received before hnowd restarted", held.size,
                 held.path);
    if (stripes.empty()) plane_.adopt(it->first, token);
    else plane_.adoptRanges(it->first, token, stripes);
    HeldReceive& adopted = receives_[token] = held;
    adopted.recordId = it->second.recordId;
    if (const std::shared_ptr<Scratch> scratch = it->second.scratch) {
      std::map<std::string, std::string> renamed{{it->first, token}};
      for (std::size_t i = 0; i < stripes.size(); ++i) renamed[it->second.stripes[i].token] = stripes[i];
      scratch->rekey(renamed);
      adopted.scratch = scratch;
      scratches_[token] = scratch;
      for (const std::string& t : scratch->transfers) scratches_[t] = scratch;
    }
    adopted_.insert(token);
    for (const std::string& s : stripes) adopted_.insert(s);  // a striped file reports under these
    parked_.erase(it);
    return Result<std::string>(held.path);
  }
  return std::nullopt;
}

}  // namespace hnow::agent
