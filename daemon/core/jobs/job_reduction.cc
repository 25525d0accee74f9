#include "core/jobs/job_reduction.h"

#include <algorithm>

#include "planner/reduction/reduction.h"

namespace hnow::daemon {

namespace {
Duration toDuration(double s) { return std::chrono::duration_cast<Duration>(std::chrono::duration<double>(s)); }
}  // namespace

JobReduction::JobReduction(const Clock& clock, ReductionActions& actions, CostsOf costs, ReductionOptions options)
    : clock_(clock), actions_(actions), costs_(std::move(costs)), options_(options) {}

int JobReduction::addLeaf(int share, const std::string& agent, std::uint64_t size, std::string token,
                          std::string digest) {
  // A share computed again replaces its earlier result wherever that sits in the tree.
  for (auto& p : partials_)
    if (p.share == share) p.replaced = true;
  ReductionPartial p;
  p.producer = agent;
  if (!isLost(agent)) p.holders.insert(agent);
  p.share = share;
  p.size = size;
  p.token = std::move(token);
  p.digest = std::move(digest);
  partials_.push_back(std::move(p));
  return static_cast<int>(partials_.size()) - 1;
}

int JobReduction::addKeptLeaf(int share, const std::string& producer) {
  ReductionPartial p;
  p.producer = producer;
  p.share = share;
  partials_.push_back(std::move(p));
  return static_cast<int>(partials_.size()) - 1;
}

int JobReduction::addKeptCombined(const std::vector<int>& children, const std::string& producer, bool held,
                                  CombinedFile file) {
  ReductionPartial p;
  p.producer = producer;
  if (held) p.holders.insert(producer);
  p.children = children;
  p.size = file.size;
  p.token = std::move(file.token);
  p.digest = std::move(file.digest);
  for (int c : children) partials_[static_cast<std::size_t>(c)].consumed = true;
  partials_.push_back(std::move(p));
  return static_cast<int>(partials_.size()) - 1;
}

// The live partials that stand for `p`: itself if a live agent holds it,
// else what it was combined from; a share result nobody holds is lost.
void JobReduction::frontier(int p, std::vector<int>& tops, std::vector<int>& lost) const {
  const ReductionPartial& part = partials_[static_cast<std::size_t>(p)];
  if (!part.holders.empty()) {
    tops.push_back(p);
  } else if (part.share >= 0) {
    if (!part.replaced) lost.push_back(part.share);
  } else {
    for (int c : part.children) frontier(c, tops, lost);
  }
}

void JobReduction::start() {
  if (finished()) return;
  std::vector<int> tops, lost;
  for (std::size_t p = 0; p < partials_.size(); ++p)
    if (!partials_[p].consumed && !(partials_[p].share >= 0 && partials_[p].replaced))
      frontier(static_cast<int>(p), tops, lost);
  nodes_.clear();
  steps_.clear();  // abandoned: their answers are ignored
  running_ = false;
  if (!lost.empty()) {
    waiting_ = true;
    // An agent lost a moment ago may be restarting with these results: asked for after returnGrace (tick).
    pendingRecompute_ = awaitingReturn();
    if (pendingRecompute_) return;
    std::sort(lost.begin(), lost.end());
    return actions_.recompute(lost);
  }
  waiting_ = false;
  pendingRecompute_ = false;
  if (tops.empty()) return fail("no partial result to reduce");
  ++replans_;
  // Each top partial at one live holder, its producer if possible (it keeps what it sent).
  for (int p : tops) {
    const ReductionPartial& part = partials_[static_cast<std::size_t>(p)];
    const std::string at = part.holders.count(part.producer) ? part.producer : *part.holders.begin();
    Node& n = nodes_[at];
    if (n.current < 0) n.current = p;
    else n.arrived.push_back(p);
  }
  std::vector<std::string> names;
  std::vector<double> sendTime;
  int sink = 0;
  double bestUplink = -1;
  for (auto& [agent, n] : nodes_) {
    const ReductionCosts c = costs_(agent);
    std::uint64_t bytes = partials_[static_cast<std::size_t>(n.current)].size;
    for (int p : n.arrived) bytes += partials_[static_cast<std::size_t>(p)].size;
    const double up = c.uplinkBytesPerSecond > 0 ? c.uplinkBytesPerSecond : 1e9;
    if (up > bestUplink) bestUplink = up, sink = static_cast<int>(names.size());
    n.sendS = c.sendOverheadS + static_cast<double>(bytes) / up;
    names.push_back(agent);
    sendTime.push_back(n.sendS);
  }
  sink_ = names[static_cast<std::size_t>(sink)];
  planner::Schedule schedule;
  scheduleName_.clear();
  if (names.size() > 1) {
    if (static_cast<int>(names.size()) <= options_.maxOptimal) {
      planner::SearchLimits limits;
      limits.maxSearchNodes = 200'000;
      if (auto best = planner::optimalReduction(sendTime, sink, limits)) {
        schedule = best->schedule;
        scheduleName_ = best->provenOptimal ? "optimal" : "best found";
      }
    }
    if (scheduleName_.empty()) {
      auto snf = planner::slowestNodeFirst(sendTime, sink);
      if (!snf) return fail("cannot plan the reduction: " + snf.error().message);
      schedule = snf.value();
      scheduleName_ = "snf";
    }
  } else {
    scheduleName_ = "none (one agent)";
  }
  double end = 0;
  for (const auto& t : schedule) {
    nodes_[names[static_cast<std::size_t>(t.from)]].parent = names[static_cast<std::size_t>(t.to)];
    ++nodes_[names[static_cast<std::size_t>(t.to)]].pendingChildren;
    end = std::max(end, t.end);
  }
  predictedS_ = end + sendTime[static_cast<std::size_t>(sink)];
  running_ = true;
  pump();
}

int JobReduction::newStep(Step step, double predictedS) {
  step.deadline = clock_.now() + toDuration(options_.slack * predictedS) + options_.grace;
  const int id = nextStep_++;
  steps_.emplace(id, std::move(step));
  return id;
}

// Moves every partial that can move: combine what arrived, send up what is complete.
// Actions answer later (never from inside the call), so nodes_ is stable here.
void JobReduction::pump() {
  for (auto& [agent, n] : nodes_) {
    if (finished() || !running_) return;
    if (n.busy || n.sent) continue;
    if (!n.arrived.empty()) {
      n.busy = true;
      const int other = n.arrived.front();
      const ReductionCosts c = costs_(agent);
      const auto bytes = partials_[static_cast<std::size_t>(n.current)].size +
                         partials_[static_cast<std::size_t>(other)].size;
      const int id = newStep({Step::Kind::kCombine, agent, "", n.current, other, {}},
                             c.combineFixedS + c.combineSecondsPerByte * static_cast<double>(bytes));
      actions_.combine(id, agent, n.current, other);
      continue;
    }
    if (n.pendingChildren > 0) continue;
    n.sent = true;
    if (n.parent.empty()) {
      actions_.collect(newStep({Step::Kind::kCollect, agent, agent, n.current, -1, {}}, n.sendS), n.current, agent);
      continue;
    }
    const int id = newStep({Step::Kind::kMove, n.parent, agent, n.current, -1, {}}, n.sendS);
    actions_.move(id, n.current, agent, n.parent);
  }
}

void JobReduction::combined(int stepId, const Result<CombinedFile>& combined) {
  auto it = steps_.find(stepId);
  if (it == steps_.end() || finished()) return;  // abandoned by a re-plan
  const Step s = it->second;
  steps_.erase(it);
  if (!combined) return fail("the reduce command failed on " + s.agent + ": " + combined.error().message);
  ReductionPartial p;
  p.producer = s.agent;
  p.holders.insert(s.agent);
  p.children = {s.partial, s.other};
  p.size = combined->size;
  p.token = combined->token;
  p.digest = combined->digest;
  partials_.push_back(std::move(p));
  const int made = static_cast<int>(partials_.size()) - 1;
  for (int input : {s.partial, s.other}) {
    ReductionPartial& in = partials_[static_cast<std::size_t>(input)];
    in.consumed = true;
    in.holders.erase(s.agent);  // the combining agent frees its inputs; a sender keeps its copy
    actions_.drop(input, s.agent);
  }
  Node& n = nodes_[s.agent];
  n.current = made;
  n.arrived.erase(n.arrived.begin());
  n.busy = false;
  pump();
}

void JobReduction::moved(int stepId, const Result<void>& moved) {
  auto it = steps_.find(stepId);
  if (it == steps_.end() || finished()) return;
  const Step s = it->second;
  steps_.erase(it);
  if (!moved) return fail("moving a partial result from " + s.from + " to " + s.agent + ": " + moved.error().message);
  partials_[static_cast<std::size_t>(s.partial)].holders.insert(s.agent);
  Node& n = nodes_[s.agent];
  n.arrived.push_back(s.partial);
  --n.pendingChildren;
  pump();
}

void JobReduction::collected(int stepId, const Result<void>& collected) {
  auto it = steps_.find(stepId);
  if (it == steps_.end() || finished()) return;
  const Step s = it->second;
  steps_.erase(it);
  if (!collected) return fail("collecting the reduced result from " + s.agent + ": " + collected.error().message);
  final_ = s.partial;
  running_ = false;
}

void JobReduction::agentLost(const std::string& agent) { lose(agent, true); }

void JobReduction::lose(const std::string& agent, bool returns) {
  if (finished() || !lost_.insert(agent).second) return;
  if (returns && options_.returnGrace > Duration::zero()) returnBy_[agent] = clock_.now() + options_.returnGrace;
  for (std::size_t p = 0; p < partials_.size(); ++p)
    if (partials_[p].holders.erase(agent)) heldWhenLost_[agent].insert(static_cast<int>(p));
  if (!running_) return;  // not planned yet, or recomputing: start() sees it
  // A node that already handed its partial up is not needed (the parent has a copy).
  auto node = nodes_.find(agent);
  bool involved = node != nodes_.end() && !node->second.sent;
  for (const auto& [id, s] : steps_) involved |= s.agent == agent || s.from == agent;
  if (!involved) return;
  start();  // re-plan over the survivors
}

std::set<std::string> JobReduction::agentBack(const std::string& agent, const std::set<std::string>& tokens) {
  std::set<std::string> taken;
  if (finished() || !lost_.erase(agent)) return taken;
  returnBy_.erase(agent);
  for (int p : heldWhenLost_[agent]) {
    ReductionPartial& part = partials_[static_cast<std::size_t>(p)];
    if (part.token.empty() || !tokens.count(part.token) || part.consumed || (part.share >= 0 && part.replaced)) continue;
    part.holders.insert(agent);
    taken.insert(part.token);
  }
  heldWhenLost_.erase(agent);
  // Waiting out the grace: planned again now, over what it gave back. A plan
  // under way goes on without it; recomputation asked for already goes on too
  // (its results replace the ones given back).
  if (pendingRecompute_) start();
  return taken;
}

bool JobReduction::awaitingReturn() const {
  for (const auto& [agent, until] : returnBy_)
    if (clock_.now() < until) return true;
  return false;
}

void JobReduction::tick() {
  if (finished()) return;
  if (pendingRecompute_) {
    if (!awaitingReturn()) start();
    return;
  }
  if (!running_) return;
  const TimePoint now = clock_.now();
  std::vector<std::string> late;
  for (const auto& [id, s] : steps_)
    if (now >= s.deadline) late.push_back(s.agent);
  for (const auto& agent : late) lose(agent, false);
}

std::vector<int> JobReduction::sharesOf(int p) const {
  const ReductionPartial& part = partials_[static_cast<std::size_t>(p)];
  if (part.share >= 0) return {part.share};
  std::vector<int> out;
  for (int c : part.children) {
    auto more = sharesOf(c);
    out.insert(out.end(), more.begin(), more.end());
  }
  return out;
}

void JobReduction::fail(std::string reason) {
  if (!failure_) failure_ = Error{std::move(reason)};
  running_ = false;
}

}  // namespace hnow::daemon
