#include "core/send/striped_send.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <utility>

#include "core/send/send_picture.h"
#include "planner/pipelined/concurrent_pipelines.h"
#include "planner/striped/striped_plan.h"

namespace hnow::daemon {

StripedSend::StripedSend(const Clock& clock, const SendTree& tree, const std::vector<std::string>& names,
                         const std::vector<std::string>& addresses, const std::vector<std::string>& paths,
                         std::uint64_t size, std::string sha256Hex, std::vector<StripeSource> stripes,
                         const std::vector<SendCommands*>& commands, ReplanSettings settings)
    : clock_(clock), settings_(std::move(settings)), tree_(tree), size_(size), sha256Hex_(std::move(sha256Hex)),
      sources_(std::move(stripes)) {
  for (std::size_t k = 0; k < sources_.size(); ++k) {
    SendTree stripe;
    stripe.algo = tree.algo;
    stripe.parent = tree.stripeParents[k];
    stripe.finish = tree.finish;
    stripe.predictedSeconds = tree.predictedSeconds;
    stripes_.push_back(std::make_unique<SendOperation>(clock, std::move(stripe), names, addresses, paths,
                                                       sources_[k].length, sources_[k].sha256Hex, *commands[k]));
  }
  shareNodes();
}

void StripedSend::start() {
  started_ = clock_.now();
  for (auto& stripe : stripes_) stripe->start();
}

bool StripedSend::report(const std::string& node, const std::string& token, const TransferReport& report) {
  for (std::size_t k = 0; k < sources_.size(); ++k) {
    if (sources_[k].token != token) continue;
    const bool back = stripes_[k]->report(node, report);
    if (report.state == TransferReport::State::kProgress) endGame(stripes_[k]->nodeIndex(node));
    if (report.state == TransferReport::State::kParentCorrupt) barEverywhere(k);
    if (report.state == TransferReport::State::kParentUnreachable) unreachableEverywhere(k);
    if (report.state == TransferReport::State::kProgress || report.state == TransferReport::State::kParentLost)
      return back;
    // One stripe failed at the node fails its file: its other stripes stop
    // there too, and their children move.
    for (const CopyStatus& copy : stripes_[k]->statusOfCopies().copies) {
      if (copy.node != node || copy.state != CopyStatus::State::kFailed) continue;
      for (std::size_t other = 0; other < stripes_.size(); ++other)
        if (other != k) stripes_[other]->failCopy(node, "stripe " + std::to_string(k + 1) + ": " + copy.message);
    }
    return back;
  }
  return false;
}

// A relay that altered the bytes of one stripe is hostile, not unlucky: it
// relays nothing more in any stripe, and the stripes are re-shared without it.
void StripedSend::barEverywhere(std::size_t caughtIn) {
  std::vector<RelayFault> caught = stripes_[caughtIn]->takeRelayFaults();
  for (const RelayFault& fault : caught) {
    const std::string cause = "corrupt: " + fault.relay + " relayed bytes that differ from the source's in stripe " +
                              std::to_string(caughtIn + 1);
    for (std::size_t k = 0; k < stripes_.size(); ++k)
      if (k != caughtIn) stripes_[k]->barRelay(fault.relay, cause);
    note_ = fault.relay + " relays nothing more: in each stripe its children moved";
    reshare("replan: " + cause);
    faults_.push_back(fault);
  }
}

// Its children in every stripe would wait out the same connect timeout.
void StripedSend::unreachableEverywhere(std::size_t foundIn) {
  for (const std::string& agent : stripes_[foundIn]->takeUnreachable()) {
    const std::string cause = "unreachable: a child cannot connect to " + agent + " in stripe " +
                              std::to_string(foundIn + 1);
    for (std::size_t k = 0; k < stripes_.size(); ++k)
      if (k != foundIn) stripes_[k]->barRelay(agent, cause);
    note_ = agent + " accepts no connection: in each stripe its children moved";
    reshare("replan: " + cause);
    unreachable_.push_back(agent);
  }
}

std::vector<RelayFault> StripedSend::takeRelayFaults() {
  for (auto& stripe : stripes_)
    for (RelayFault& fault : stripe->takeRelayFaults()) faults_.push_back(std::move(fault));
  return std::exchange(faults_, {});
}

void StripedSend::lost(const std::string& node) {
  if (!involves(node)) return;
  for (auto& stripe : stripes_) stripe->lost(node);
  note_ = node + " lost: in each stripe its children moved to their nearest ancestor still standing";
  reshare("replan: " + node + " lost");
}

bool StripedSend::awaitsReturn(const std::string& node) const {
  return std::any_of(stripes_.begin(), stripes_.end(), [&node](const auto& s) { return s->awaitsReturn(node); });
}

bool StripedSend::rejoin(const std::string& node, const std::string& address) {
  bool back = false;
  for (auto& stripe : stripes_) back = stripe->rejoin(node, address) || back;
  if (back) note_ = node + " logged in afresh after it was lost: ordered again, each stripe resumes from the bytes it kept";
  return back;
}

void StripedSend::refusedAgain(const std::string& node, const std::string& why) {
  for (auto& stripe : stripes_) stripe->refusedAgain(node, why);
}

bool StripedSend::ratesChanged(const std::string& node, const planner::NodeRates& rates, const std::string& reason) {
  // The source too: hnowd's uplink may drift.
  const int i = node == kCoordinatorNode ? 0 : stripes_.front()->nodeIndex(node);
  if (i < 0 || static_cast<std::size_t>(i) >= settings_.nodes.size()) return false;
  settings_.nodes[static_cast<std::size_t>(i)].rates = rates;
  shareNodes();
  return reshare(reason);
}

bool StripedSend::trunkChanged(const std::string& room, const planner::Trunk& trunk, const std::string& reason) {
  if (!setRoomTrunk(settings_.nodes, room, trunk)) return false;
  shareNodes();
  return reshare(reason);
}

bool StripedSend::reshare(const std::string& reason) {
  if (!settings_.enabled || finished() || settings_.nodes.size() != stripes_.front()->statusOfCopies().copies.size() + 1)
    return false;
  // A node that may not serve in some stripe (lost, or barred) is planned as
  // a leaf in all: no uplink.
  std::vector<TreeNode> nodes = settings_.nodes;
  for (std::size_t i = 1; i < nodes.size(); ++i)
    for (const auto& stripe : stripes_)
      if (!stripe->canServe(static_cast<int>(i))) nodes[i].relays = false;
  const std::vector<planner::NodeRates> rates = plannedRates(nodes);
  const std::size_t n = rates.size();
  // What is left: each stripe's bytes past the least any node standing holds.
  const SendStatus whole = status();
  std::vector<bool> standing(n, true);
  std::vector<int> destinations;
  for (std::size_t i = 1; i < n; ++i) {
    standing[i] = whole.copies[i - 1].state != CopyStatus::State::kFailed;
    if (standing[i]) destinations.push_back(static_cast<int>(i));
  }
  std::vector<planner::PipelinedItem> kept;
  double left = 0.0;
  for (std::size_t k = 0; k < stripes_.size(); ++k) {
    std::uint64_t least = sources_[k].length;
    for (std::size_t i = 1; i < n; ++i)
      if (standing[i] && whole.copies[i - 1].state != CopyStatus::State::kDone)
        least = std::min(least, stripes_[k]->heldBy(static_cast<int>(i)));
    std::vector<int> parent = stripes_[k]->plan().parent;
    for (std::size_t i = 1; i < n; ++i)
      if (!standing[i]) parent[i] = -1;
    parent[0] = -1;
    auto tree = planner::treeFromParents(0, parent);
    const double bytes = static_cast<double>(sources_[k].length - least);
    left += bytes;
    if (tree) kept.push_back({std::move(*tree), bytes});
  }
  if (!(left > 0.0) || destinations.empty()) return false;
  // The stripes keep the chunk they are relayed in.
  const double chunk = tree_.stripeChunkBytes ? tree_.stripeChunkBytes : settings_.chunkBytes;
  double keptSeconds = std::numeric_limits<double>::infinity();
  // Rooms as the plan had them: each stripe still enters a room once.
  const planner::SiteLinks sites = siteLinksOf(nodes);
  if (kept.size() == stripes_.size())
    if (auto p = planner::predictConcurrentPipelines(kept, rates, chunk, sites)) keptSeconds = p->seconds;
  planner::StripedOptions options;
  options.minStripes = options.maxStripes = static_cast<int>(stripes_.size());
  options.minChunkBytes = chunk;
  auto plan = planner::planStriped(rates, 0, destinations, left, chunk, options, sites);
  const double now = seconds(clock_.now() - started_);
  char text[200];
  if (!plan || plan->stripes() != static_cast<int>(stripes_.size())) {
    note_ = reason + ": kept the stripes (" + (plan ? "no plan of as many stripes" : plan.error().message) + ")";
    return false;
  }
  const bool adopt = plan->predictedSeconds < keptSeconds * (1.0 - settings_.minGain);
  std::snprintf(text, sizeof text, ": kept %.2f s, re-shared %.2f s%s", keptSeconds, plan->predictedSeconds,
                adopt ? "" : " (gain below the threshold)");
  note_ = reason + text;
  if (!adopt) return false;
  ++replans_;
  replannedPredictedS_ = now + plan->predictedSeconds;
  for (std::size_t k = 0; k < stripes_.size(); ++k) {
    std::vector<int> parent = plan->trees[k].parent;
    for (std::size_t i = 1; i < n; ++i)
      if (!standing[i]) parent[i] = -1;  // a failed node stays where it is, out of every plan
    (void)stripes_[k]->adoptParents(parent, reason);  // a plan of leaves without uplink: never refused
  }
  return true;
}

int StripedSend::feeding(int j) const {
  int n = 0;
  for (std::size_t k = 0; k < stripes_.size(); ++k) {
    const SendOperation& stripe = *stripes_[k];
    const std::vector<int>& parent = stripe.plan().parent;
    for (std::size_t c = 1; c < parent.size(); ++c) {
      const int child = static_cast<int>(c);
      n += parent[c] == j && stripe.receivingAt(child) && stripe.heldBy(child) < sources_[k].length;
    }
  }
  return n;
}

void StripedSend::endGame(int node) {
  if (node <= 0 || settings_.nodes.size() <= static_cast<std::size_t>(node)) return;
  // The stripe this node lags most in, and how far behind its others.
  std::size_t lagging = 0;
  double least = 2.0, others = 1.0;
  for (std::size_t k = 0; k < stripes_.size(); ++k) {
    const double held = static_cast<double>(stripes_[k]->heldBy(node)) / static_cast<double>(sources_[k].length);
    if (held < least) others = std::min(others, least), least = held, lagging = k;
    else others = std::min(others, held);
  }
  SendOperation& stripe = *stripes_[lagging];
  const StripeSource& source = sources_[lagging];
  if (others - least < kEndGameLag || !stripe.receivingAt(node)) return;
  if (endGameMoved_.empty()) endGameMoved_.assign(stripes_.size(), std::vector<bool>(settings_.nodes.size(), false));
  if (endGameMoved_[lagging][static_cast<std::size_t>(node)]) return;
  const std::vector<int>& parent = stripe.plan().parent;
  const int current = parent[static_cast<std::size_t>(node)];
  auto uplink = [&](int j) { return settings_.nodes[static_cast<std::size_t>(j)].rates.uplinkBytesPerSecond; };
  const double currentShare = uplink(current) / std::max(1, feeding(current));
  const auto left = static_cast<double>(source.length - stripe.heldBy(node));
  if (!(currentShare > 0) || left / currentShare < kEndGameSeconds) return;
  // Not one of its own descendants in the stripe: the parents stay a tree.
  auto below = [&](int j) {
    const int most = static_cast<int>(parent.size());
    for (int up = j, hops = 0; up > 0 && hops < most; up = parent[static_cast<std::size_t>(up)], ++hops)
      if (up == node) return true;
    return false;
  };
  // Rooms: a node fed inside its room stays inside it, so the stripe still
  // crosses the room's trunk once (docs/rooms.md); the stripe's entry may
  // move to any holder.
  auto room = [&](int j) { return settings_.nodes[static_cast<std::size_t>(j)].site; };
  const bool fedInside = !siteLinksOf(settings_.nodes).siteOf.empty() && room(current) == room(node);
  int best = -1;
  double bestShare = currentShare * kEndGameGain;
  for (int j = 0; j < static_cast<int>(parent.size()); ++j) {
    if (j == node || j == current || !stripe.canServe(j) || stripe.heldBy(j) < source.length || below(j)) continue;
    if (fedInside && room(j) != room(node)) continue;
    const double share = uplink(j) / (feeding(j) + 1);
    if (share > bestShare) best = j, bestShare = share;
  }
  if (best < 0) return;
  endGameMoved_[lagging][static_cast<std::size_t>(node)] = true;
  std::vector<int> moved = parent;
  moved[static_cast<std::size_t>(node)] = best;
  char why[160];
  std::snprintf(why, sizeof why, "end game: %.1f MiB left, %.0f%% behind its other stripes",
                static_cast<double>(source.length - stripe.heldBy(node)) / (1 << 20), (others - least) * 100);
  stripe.adoptParents(moved, why);
}

bool StripedSend::finished() const {
  return std::all_of(stripes_.begin(), stripes_.end(), [](const auto& s) { return s->finished(); });
}

std::size_t StripedSend::parentChangeCount() const {
  std::size_t n = 0;
  for (const auto& stripe : stripes_) n += stripe->parentChangeCount();
  return n;
}

SendStatus StripedSend::status() const {
  std::vector<SendStatus> each;
  for (const auto& stripe : stripes_) each.push_back(stripe->statusOfCopies());
  SendStatus s = planStatus(tree_, size_);
  s.finished = finished();
  s.replanning = settings_.enabled;
  s.replans = replans_;
  s.replannedPredictedS = replannedPredictedS_;
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
    copy.heldS = 0;
    bool allDone = true;
    for (const SendStatus& stripe : each) {
      const CopyStatus& part = stripe.copies[i];
      copy.bytes += part.bytes;
      copy.corruptChunks += part.corruptChunks;
      copy.finishedS = std::max(copy.finishedS, part.finishedS);
      copy.stripeParents.push_back(part.parent);
      copy.stripeHeldS.push_back(part.heldS);
      allDone = allDone && part.state == CopyStatus::State::kDone;
      if (part.state == CopyStatus::State::kFailed && copy.state != CopyStatus::State::kFailed) {
        copy.state = CopyStatus::State::kFailed;
        copy.message = part.message;
      }
    }
    if (copy.state == CopyStatus::State::kFailed) continue;
    if (std::all_of(copy.stripeHeldS.begin(), copy.stripeHeldS.end(), [](double t) { return t > 0; }))
      copy.heldS = *std::max_element(copy.stripeHeldS.begin(), copy.stripeHeldS.end());
    // Every stripe's copy finishes with the file (renamed once all matched).
    copy.state = allDone ? CopyStatus::State::kDone : CopyStatus::State::kReceiving;
    if (allDone) copy.sha256 = sha256Hex_;
  }
  std::vector<const SendOperation*> trees;
  for (const auto& stripe : stripes_) trees.push_back(stripe.get());
  s.picture = sendPicture(s, trees);
  return s;
}

// Each stripe's tree keeps the rates hnowd plans with for its picture; the
// striped send alone re-plans them.
void StripedSend::shareNodes() {
  for (auto& stripe : stripes_)
    stripe->setReplanning({false, settings_.algo, settings_.nodes, settings_.chunkBytes, settings_.minGain});
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
