#include "core/striped_send.h"

#include <algorithm>

namespace hnow::daemon {

StripedSend::StripedSend(const Clock& clock, const SendTree& tree, const std::vector<std::string>& names,
                         const std::vector<std::string>& addresses, const std::vector<std::string>& paths,
                         std::uint64_t size, std::string sha256Hex, std::vector<StripeSource> stripes,
                         const std::vector<SendCommands*>& commands)
    : tree_(tree), size_(size), sha256Hex_(std::move(sha256Hex)), sources_(std::move(stripes)) {
  for (std::size_t k = 0; k < sources_.size(); ++k) {
    SendTree stripe;
    stripe.algo = tree.algo;
    stripe.parent = tree.stripeParents[k];
    stripe.finish = tree.finish;
    stripe.predictedSeconds = tree.predictedSeconds;
    stripes_.push_back(std::make_unique<SendOperation>(clock, std::move(stripe), names, addresses, paths,
                                                       sources_[k].length, sources_[k].sha256Hex, *commands[k]));
  }
}

void StripedSend::start() {
  for (auto& stripe : stripes_) stripe->start();
}

bool StripedSend::report(const std::string& node, const std::string& token, const TransferReport& report) {
  for (std::size_t k = 0; k < sources_.size(); ++k) {
    if (sources_[k].token != token) continue;
    const bool back = stripes_[k]->report(node, report);
    if (report.state != TransferReport::State::kFailed && report.state != TransferReport::State::kDone) return back;
    // One stripe failed at the node fails its file: its other stripes stop
    // there too, and their children move.
    for (const CopyStatus& copy : stripes_[k]->status().copies) {
      if (copy.node != node || copy.state != CopyStatus::State::kFailed) continue;
      for (std::size_t other = 0; other < stripes_.size(); ++other)
        if (other != k) stripes_[other]->failCopy(node, "stripe " + std::to_string(k + 1) + ": " + copy.message);
    }
    return back;
  }
  return false;
}

void StripedSend::lost(const std::string& node) {
  for (auto& stripe : stripes_) stripe->lost(node);
  note_ = node + " lost: in each stripe its children move to their nearest ancestor still standing";
}

bool StripedSend::ratesChanged(const std::string& node, const planner::NodeRates&, const std::string& reason) {
  if (!involves(node)) return false;
  note_ = reason + ": a striped send keeps its stripes (re-sharing them on drift is not done yet)";
  return false;
}

bool StripedSend::finished() const {
  return std::all_of(stripes_.begin(), stripes_.end(), [](const auto& s) { return s->finished(); });
}

SendStatus StripedSend::status() const {
  std::vector<SendStatus> each;
  for (const auto& stripe : stripes_) each.push_back(stripe->status());
  SendStatus s;
  s.finished = finished();
  s.algo = tree_.algo;
  s.size = size_;
  s.predictedS = tree_.predictedSeconds;
  s.considered = tree_.considered;
  s.fluidBoundS = tree_.fluidBoundSeconds;
  s.boundS = tree_.boundSeconds;
  s.why = tree_.why;
  s.rateBounds = tree_.rateBounds;
  s.stripeOffsets = tree_.stripeOffsets;
  for (std::size_t k = 0; k < each.size(); ++k) {
    s.elapsedS = std::max(s.elapsedS, each[k].elapsedS);
    for (ParentChange change : each[k].parentChanges) {
      change.reason = "stripe " + std::to_string(k + 1) + ": " + change.reason;
      s.parentChanges.push_back(std::move(change));
    }
  }
  s.copies = each.front().copies;
  for (std::size_t i = 0; i < s.copies.size(); ++i) {
    CopyStatus& copy = s.copies[i];
    copy.bytes = 0;
    copy.corruptChunks = 0;
    copy.finishedS = 0;
    bool allDone = true;
    for (const SendStatus& stripe : each) {
      const CopyStatus& part = stripe.copies[i];
      copy.bytes += part.bytes;
      copy.corruptChunks += part.corruptChunks;
      copy.finishedS = std::max(copy.finishedS, part.finishedS);
      copy.stripeParents.push_back(part.parent);
      allDone = allDone && part.state == CopyStatus::State::kDone;
      if (part.state == CopyStatus::State::kFailed && copy.state != CopyStatus::State::kFailed) {
        copy.state = CopyStatus::State::kFailed;
        copy.message = part.message;
      }
    }
    if (copy.state == CopyStatus::State::kFailed) continue;
    // Every stripe's copy finishes with the file (renamed once all matched).
    copy.state = allDone ? CopyStatus::State::kDone : CopyStatus::State::kReceiving;
    if (allDone) copy.sha256 = sha256Hex_;
  }
  return s;
}

std::vector<Flow> StripedSend::flows(Duration window) const {
  std::vector<Flow> out;
  for (const auto& stripe : stripes_) {
    auto flows = stripe->flows(window);
    out.insert(out.end(), flows.begin(), flows.end());
  }
  return out;
}

}  // namespace hnow::daemon
