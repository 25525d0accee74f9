#include "core/links/survey_runner.h"

#include <algorithm>

#include "core/links/rooms.h"

namespace hnow::daemon {

namespace {

// A finding within 5% of the cap its node paces the link at reached the cap.
constexpr double kCapReached = 0.95;

// An automatic survey that measured nothing waits this long before the next.
constexpr Duration kRetryFailed = std::chrono::seconds(60);

std::string describe(const LinkId& link) { return link.node + " " + directionName(link.direction); }

}  // namespace

SurveyRunner::SurveyRunner(Coordinator& coordinator, LinkProber& prober, const Clock& clock,
                           std::string coordinatorAddress, std::function<std::string()> newToken,
                           SurveyRunnerOptions options)
    : coordinator_(coordinator), prober_(prober), clock_(clock), coordinatorAddress_(std::move(coordinatorAddress)),
      newToken_(std::move(newToken)), options_(options), lastFull_(clock.now()) {}

std::vector<SurveyNode> SurveyRunner::surveyNodes() const {
  const std::vector<AgentView> agents = coordinator_.status();
  const AgentRooms rooms = agentRooms(agents, coordinator_.linkKnowledge().ownNetworks(), coordinator_.linkKnowledge().measuredRooms());
  std::vector<SurveyNode> nodes{{kCoordinatorNode, rooms.coordinatorRoom}};
  for (const AgentView& a : agents)
    if (a.connected && a.record.state == AgentState::kAlive && !a.registration.dataAddress.empty())
      nodes.push_back({a.record.name, rooms.foundBy.empty() ? a.record.site : rooms.roomOf.at(a.record.name),
                       a.reachability.reachable});
  return nodes;
}

std::string SurveyRunner::addressOf(const std::string& node) const {
  if (node == kCoordinatorNode) return coordinatorAddress_;
  for (const AgentView& a : coordinator_.status())
    if (a.record.name == node && a.connected) return a.registration.dataAddress;
  return "";
}

std::vector<LinkId> SurveyRunner::linksOf(const std::vector<std::string>& nodes) const {
  std::vector<LinkId> out;
  for (const std::string& node : nodes)
    for (LinkDirection d : {LinkDirection::kDown, LinkDirection::kUp})
      if (!coordinator_.links().fixed({node, d})) out.push_back({node, d});
  return out;
}

double SurveyRunner::peerCapacity(const std::vector<SurveyNode>& nodes, const LinkId& link) const {
  const LinkBook& book = coordinator_.links();
  const KnownRate known = [&book](const LinkId& l) { return book.knownAtLeast(l); };
  double total = 0.0;
  for (const ProbeRound& round : planSurvey(nodes, {link}, known, options_.survey))
    for (const auto& [from, to] : round.flows)
      total += link.direction == LinkDirection::kDown ? known({from, LinkDirection::kUp})
                                                      : known({to, LinkDirection::kDown});
  return total;
}

std::vector<LinkId> SurveyRunner::unmeasured() const {
  const LinkBook& book = coordinator_.links();
  const std::vector<SurveyNode> nodes = surveyNodes();
  std::vector<LinkId> out;
  bool realAgent = false;
  for (const SurveyNode& n : nodes)
    for (LinkDirection d : {LinkDirection::kDown, LinkDirection::kUp})
      realAgent |= n.name != kCoordinatorNode && !book.fixed({n.name, d});
  const double headroom = options_.survey.verdict.headroom;
  for (const SurveyNode& n : nodes) {
    // hnowd measures itself only against real links: emulated agents would
    // read their own pacing, not hnowd's link.
    if (n.name == kCoordinatorNode && !realAgent) continue;
    for (LinkDirection d : {LinkDirection::kDown, LinkDirection::kUp}) {
      const LinkId link{n.name, d};
      if (book.fixed(link)) continue;
      const LinkRate* rate = book.rate(link);
      if (!rate) {
        out.push_back(link);
        continue;
      }
      if (!rate->bound()) continue;
      // A bound is measured again once the peers could fill it with room to
      // spare, and could send (receive) clearly more than when last tried.
      const double peers = peerCapacity(nodes, link);
      auto tried = triedWith_.find(link);
      if (peers >= (1.0 + 2 * headroom) * rate->bytesPerSecond &&
          (tried == triedWith_.end() || peers > 1.25 * tried->second))
        out.push_back(link);
    }
  }
  return out;
}

void SurveyRunner::request(std::vector<std::string> nodes, Done done) {
  asked_.push_back({std::move(nodes), std::move(done)});
}

void SurveyRunner::tick() {
  const TimePoint now = clock_.now();
  const Duration roundLimit = std::chrono::duration_cast<Duration>(
      std::chrono::duration<double>(options_.warmSeconds + options_.windowSeconds + 5.0));
  if (round_ && now - round_->started > roundLimit) finishRound();
  if (current_) return;

  if (!asked_.empty()) {
    Asked a = std::move(asked_.front());
    asked_.erase(asked_.begin());
    std::vector<std::string> nodes = a.nodes;
    const std::vector<SurveyNode> present = surveyNodes();
    if (nodes.empty())
      for (const SurveyNode& n : present) nodes.push_back(n.name);
    for (const std::string& name : nodes)
      if (std::none_of(present.begin(), present.end(), [&](const SurveyNode& n) { return n.name == name; }))
        return a.done(Error{"no connected agent named '" + name + "' (hnow status lists them)"});
    std::vector<LinkId> targets = linksOf(nodes);
    if (targets.empty()) return a.done(Error{"nothing to measure: every link named is emulated or configured"});
    begin(std::move(targets), true, std::move(a.done));
    if (current_) current_->thenTrunks = a.nodes.empty();
    return;
  }
  // Joiners settle whether or not data moves meanwhile.
  std::vector<LinkId> targets = unmeasured();
  if (targets != lastUnmeasured_) {
    lastUnmeasured_ = targets;
    unmeasuredSince_ = now;
  }
  if (coordinator_.moving()) return;
  const bool retryable = targets != failedTargets_ || now >= retryAt_;
  if (!targets.empty() && now - unmeasuredSince_ >= options_.settle && retryable)
    return begin(std::move(targets), false, {});
  // Rooms' trunks once their nodes' links are known: a trunk round judges
  // its flows by what their ends carry.
  if (targets.empty() && now - unmeasuredSince_ >= options_.settle) {
    // Rooms first (on one subnet only measurement finds them), then trunks.
    if (std::vector<std::string> nodes = roomDiscoveryNodes();
        !nodes.empty() && (nodes != discoveryTried_ || now >= discoveryRetryAt_)) {
      discoveryTried_ = nodes;
      discoveryRetryAt_ = now + kRetryFailed;
      return beginDiscovery(nodes);
    }
    std::vector<LinkId> trunks = trunkLinks(false);
    if (!trunks.empty() && (trunks != failedTrunks_ || now >= trunksRetryAt_)) {
      failedTrunks_ = trunks;  // kept unless the survey measures them
      trunksRetryAt_ = now + kRetryFailed;
      return begin(std::move(trunks), false, {}, true);
    }
  }

  std::vector<LinkId> again;
  for (const LinkId& link : coordinator_.links().remeasureNow())
    if (!addressOf(link.node).empty()) again.push_back(link);
  if (!again.empty()) {
    for (const LinkId& link : again) coordinator_.links().remeasured(link);
    return begin(std::move(again), false, {});
  }

  if (options_.every > Duration::zero() && now - lastFull_ >= options_.every) {
    lastFull_ = now;
    std::vector<std::string> nodes;
    for (const SurveyNode& n : surveyNodes()) nodes.push_back(n.name);
    if (auto all = linksOf(nodes); !all.empty()) begin(std::move(all), false, {});
  }
}

std::vector<ProbeRound> SurveyRunner::planRounds(const std::vector<SurveyNode>& nodes,
                                                 const std::vector<LinkId>& targets, bool trunks) const {
  const LinkBook& book = coordinator_.links();
  const KnownRate known = [&book](const LinkId& l) { return book.knownAtLeast(l); };
  return trunks ? planTrunkSurvey(nodes, targets, known, options_.trunk)
                : planSurvey(nodes, targets, known, options_.survey);
}

void SurveyRunner::begin(std::vector<LinkId> targets, bool asked, Done done, bool trunks) {
  const std::vector<SurveyNode> nodes = surveyNodes();
  if (!trunks)
    for (const LinkId& link : targets) triedWith_[link] = peerCapacity(nodes, link);
  std::vector<ProbeRound> rounds = planRounds(nodes, targets, trunks);
  if (rounds.empty()) {
    if (done) done(Error{"no peer to measure against: a survey needs hnowd and at least one agent with a data plane"});
    if (!asked) {
      failedTargets_ = targets;
      retryAt_ = clock_.now() + kRetryFailed;
    }
    return;
  }
  Survey survey;
  survey.targets = std::move(targets);
  survey.rounds = std::move(rounds);
  survey.asked = asked;
  survey.done = std::move(done);
  survey.started = clock_.now();
  survey.trunks = trunks;
  current_ = std::move(survey);
  startRound();
}

void SurveyRunner::startRound() {
  const ProbeRound& plan = current_->rounds[current_->next];
  Round round;
  round.generation = ++generation_;
  round.nodes = plan.nodes();
  round.replies.resize(round.nodes.size());
  round.started = clock_.now();
  round_ = std::move(round);
  notePaced(round_->nodes);
  const std::string token = newToken_();
  const std::uint64_t generation = round_->generation;
  const std::vector<std::string> nodes = round_->nodes;
  issuing_ = true;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    ProbeOrder order{token, false, {}, options_.warmSeconds, options_.windowSeconds};
    std::string missing;
    for (const auto& [from, to] : plan.flows) {
      if (from == nodes[i]) order.serve = true;
      if (to != nodes[i]) continue;
      order.pullFrom.push_back(addressOf(from));
      if (order.pullFrom.back().empty()) missing = from;
    }
    if (!missing.empty() || addressOf(nodes[i]).empty()) {
      answer(generation, i, Error{(missing.empty() ? nodes[i] : missing) + " is no longer connected"});
      continue;
    }
    prober_.probe(nodes[i], order,
                  [this, generation, i](const Result<ProbeReply>& reply) { answer(generation, i, reply); });
  }
  issuing_ = false;
  if (round_ && round_->generation == generation && round_->answered == round_->nodes.size()) finishRound();
}

void SurveyRunner::answer(std::uint64_t generation, std::size_t node, const Result<ProbeReply>& reply) {
  if (!round_ || round_->generation != generation || round_->replies.at(node)) return;
  round_->replies[node] = reply;
  ++round_->answered;
  if (round_->answered == round_->nodes.size() && !issuing_) finishRound();
}

namespace {
// A node's loads over a round's window. Without its interface's counters
// they are its data plane's, fitted to its chunks where there were enough:
// a link hnow paces itself lets a whole chunk go at once, and a count
// between the window's ends reads it a chunk off (flow_slope.h).
NodeLoad probeLoad(const ProbeReply& reply) {
  NodeLoad load = loadBetween(reply.before, reply.after);
  if (load.atInterface) return load;
  if (reply.sentBytesPerSecond > 0) load.sent = reply.sentBytesPerSecond;
  if (reply.receivedBytesPerSecond > 0) load.received = reply.receivedBytesPerSecond;
  return load;
}
}  // namespace

void SurveyRunner::finishRound() {
  Round round = std::move(*round_);
  round_.reset();
  const ProbeRound& plan = current_->rounds[current_->next];
  std::vector<std::string> problems;
  std::set<std::string> failed;
  for (std::size_t i = 0; i < round.nodes.size(); ++i) {
    if (!round.replies[i]) problems.push_back(round.nodes[i] + ": no answer in time");
    else if (!*round.replies[i]) problems.push_back(round.nodes[i] + ": " + round.replies[i]->error().message);
    else continue;
    failed.insert(round.nodes[i]);
  }
  if (problems.empty()) {
    notePaced(round.nodes);
    RoundOutcome outcome;
    for (std::size_t i = 0; i < round.nodes.size(); ++i) {
      const ProbeReply& reply = round.replies[i]->value();
      outcome.loads[round.nodes[i]] = probeLoad(reply);
      std::size_t k = 0;
      for (const auto& [from, to] : plan.flows) {
        if (to != round.nodes[i]) continue;
        outcome.flows.push_back({from, to, k < reply.flowBytesPerSecond.size() ? reply.flowBytesPerSecond[k] : 0.0});
        ++k;
      }
    }
    if (current_->trunks) current_->trunkRounds.emplace_back(plan, outcome);
    current_->outcomes.push_back(std::move(outcome));
  } else {
    std::string line = "round for " + describe(plan.target) + ":";
    for (const std::string& p : problems) line += " " + p + ";";
    line.pop_back();
    current_->errors.push_back(line);
    replanWithout(failed);
  }
  ++current_->next;
  if (current_->next == current_->rounds.size()) return complete(false);
  // An automatic survey yields to an operation that starts moving data.
  if (!current_->asked && coordinator_.moving()) return complete(true);
  startRound();
}

void SurveyRunner::notePaced(const std::vector<std::string>& nodes) {
  for (const std::string& node : nodes)
    for (LinkDirection d : {LinkDirection::kDown, LinkDirection::kUp})
      if (coordinator_.links().paced({node, d})) current_->paced.insert({node, d});
}

void SurveyRunner::replanWithout(const std::set<std::string>& failed) {
  Survey& s = *current_;
  if (s.discovery) {  // every round pairs every node: the rest would say nothing for sure
    s.rounds.resize(s.next + 1);
    return;
  }
  s.excluded.insert(failed.begin(), failed.end());
  std::vector<LinkId> targets;
  for (std::size_t r = s.next; r < s.rounds.size(); ++r)
    if (!s.excluded.count(s.rounds[r].target.node)) targets.push_back(s.rounds[r].target);
  std::vector<SurveyNode> nodes;
  for (const SurveyNode& n : surveyNodes())
    if (!s.excluded.count(n.name)) nodes.push_back(n);
  std::vector<ProbeRound> rest = planRounds(nodes, targets, s.trunks);
  // The failed round stays in place (it is counted as done); the rest follows it.
  s.rounds.resize(s.next + 1);
  s.rounds.insert(s.rounds.end(), rest.begin(), rest.end());
}

std::vector<SurveyFinding> SurveyRunner::findingsOf(const Survey& survey, std::size_t fromOutcome) const {
  if (survey.trunks) return trunkFindings(survey);
  const LinkBook& book = coordinator_.links();
  const std::vector<RoundOutcome> outcomes(survey.outcomes.begin() + static_cast<std::ptrdiff_t>(fromOutcome),
                                           survey.outcomes.end());
  std::vector<SurveyFinding> findings =
      deriveSurvey(outcomes, [&book](const LinkId& l) { return book.knownAtLeast(l); }, options_.survey);
  std::erase_if(findings, [&](const SurveyFinding& f) { return survey.paced.count(f.link) > 0; });
  return findings;
}

void SurveyRunner::complete(bool aborted) {
  // An automatic survey that gives way while it measures falls again keeps
  // what its first rounds found, the falls aside.
  if (current_->retakeFrom) aborted = false;
  else if (!aborted && !current_->trunks && !current_->discovery && !current_->outcomes.empty() && retakeFalls())
    return;
  Survey survey = std::move(*current_);
  current_.reset();
  if (survey.discovery) return finishDiscovery(survey, aborted);
  SurveyReport report;
  report.targets = survey.targets;
  report.errors = survey.errors;
  report.aborted = aborted;
  report.asked = survey.asked;
  report.seconds = seconds(clock_.now() - survey.started);
  LinkBook& book = coordinator_.links();
  if (!aborted && !survey.outcomes.empty()) {
    report.findings = survey.retakeFrom ? retaken(survey, report.retaken) : findingsOf(survey, 0);
    const double noise = coordinator_.linkKnowledge().options().book.foreignNoise;
    bool otherTraffic = false;
    for (const SurveyFinding& f : report.findings) otherTraffic |= f.foreign > noise * f.bytesPerSecond;
    // A link its node paces at a cap carried the cap: the link carries at
    // least that, its capacity is not known (a percentage of it would shrink).
    for (SurveyFinding& f : report.findings) {
      const double cap = coordinator_.pacing().capPacedByNode(f.link);
      if (f.saturated && cap > 0 && f.bytesPerSecond >= kCapReached * cap) f.saturated = false;
    }
    book.applySurvey(report.findings, survey.targets, otherTraffic);
    // Other traffic the rounds saw is on those links now.
    std::map<std::string, NodeLoad> other;
    for (const RoundOutcome& o : survey.outcomes)
      for (const auto& [node, load] : o.loads) {
        other[node].foreignSent = std::max(other[node].foreignSent, load.foreignSent);
        other[node].foreignReceived = std::max(other[node].foreignReceived, load.foreignReceived);
      }
    for (const auto& [node, load] : other) book.noteForeign(node, load.foreignSent, load.foreignReceived);
  }
  if (!aborted && !survey.asked && !survey.trunks) {
    // Targets its rounds could not measure (their nodes failed) wait before
    // the next try; a link measured as a bound is retried by its own rule.
    std::vector<LinkId> left;
    for (const LinkId& link : survey.targets)
      if (!book.rate(link)) left.push_back(link);
    if (!left.empty()) {
      failedTargets_ = unmeasured();
      retryAt_ = clock_.now() + kRetryFailed;
    }
  }
  if (report_) report_(report);
  if (!aborted && survey.thenTrunks && !survey.outcomes.empty()) {
    std::vector<LinkId> trunks = trunkLinks(true);
    if (!trunks.empty() && !planRounds(surveyNodes(), trunks, true).empty())
      return begin(std::move(trunks), true, std::move(survey.done), true);
  }
  if (!survey.done) return;
  if (aborted) survey.done(Error{"the survey gave way to an operation that started"});
  else if (survey.outcomes.empty()) survey.done(Error{"no probe round measured anything: " + survey.errors.front()});
  else survey.done({});
}

}  // namespace hnow::daemon
