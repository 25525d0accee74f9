// `hnow run` in rounds, part of JobService: each round is
// planned when the agents are about to be free (core/jobs/job_rounds.h), on the
// agents still alive, their ready times, and the rates known then: the
// compute times their last shares showed, the coordinator's compute drift
// events, and the rate table's links.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "base/bandwidth_limits.h"
#include "core/jobs/job_evidence.h"
#include "core/jobs/job_rounds.h"
#include "core/jobs/job_state.h"

namespace hnow::daemon {

namespace {
// A round is served this long before its first agent is free: a fetch's
// round trips, and the check runs every tick (250 ms), so a round goes out
// between kLead and kLead + kWithin before it is needed.
constexpr double kLead = 0.25;
constexpr double kWithin = 0.25;  // commit when the plan's serve start is this close
constexpr int kMaxAutoRounds = 4;

}  // namespace

int JobService::roundsFor(Job& job, const std::vector<std::string>& active, double sourceUplink) {
  if (job.request.strategy != "plan") return 1;  // the baselines are one-shot
  // --rounds N is N rounds over the whole input: a resumed job has the
  // part of them its units left still need.
  if (job.request.rounds > 0)
    return std::max(1, static_cast<int>(std::ceil(static_cast<double>(job.request.rounds) *
                                                  static_cast<double>(job.todo.count()) /
                                                  static_cast<double>(std::max<std::uint64_t>(job.units.units(), 1)))));
  if (job.request.order != "auto") return 1;  // a protocol asked for by name is seed 002's, one round
  const std::uint64_t units = job.todo.count();
  RoundsInput in;
  in.units = units;
  in.resultRatio = 0;
  const double bytesPerUnit = static_cast<double>(job.units.size()) / static_cast<double>(units);
  for (const auto& agent : active) {
    in.workers.push_back({bytesPerUnit / linkOf(agent, sourceUplink), std::max(secondsPerUnitNow(job, agent), 1e-9),
                          job.calibrated[agent].fixedS, 0.0});
    in.resultRatio += (job.reduce ? 0.0 : job.calibrated[agent].resultRatio) / static_cast<double>(active.size());
  }
  in.lead = kLead;
  return chooseRounds(in, kMaxAutoRounds);
}

double JobService::secondsPerUnitNow(const Job& job, const std::string& agent) const {
  auto c = job.calibrated.find(agent);
  if (c == job.calibrated.end()) return 0.0;
  std::optional<ComputeDrift> drift;
  if (auto d = job.drifted.find(agent); d != job.drifted.end()) drift = d->second;
  return daemon::secondsPerUnitNow(c->second, job.run.get(), agent, drift);
}

void JobService::planNextRound(Job& job, const std::vector<std::string>& active, double sourceUplink) {
  const std::uint64_t total = job.todo.count(), remaining = total - job.nextUnit;
  if (remaining == 0) {  // more rounds than units: the last ones are empty
    job.roundsLeft = 0;
    if (job.run) job.run->setMoreComing(false);
    return advance(job);
  }
  auto perUnit = todoBytesPerUnit(job);
  if (!perUnit) return finish(job, Error{"cannot read --input " + job.request.input + ": " + perUnit.error().message});
  const double bytesPerUnit = *perUnit;
  RoundsInput in;
  in.units = remaining;
  in.rounds = std::max(1, job.roundsLeft);
  in.lead = kLead;
  const TimePoint now = clock_.now();
  for (const auto& agent : active) {
    RoundWorker w;
    const double link = linkOf(agent, sourceUplink);
    w.tau = bytesPerUnit / link;
    w.perUnit = std::max(secondsPerUnitNow(job, agent), 1e-9);
    w.fixedS = job.calibrated[agent].fixedS;
    const std::vector<HeldShare> held = job.run ? heldShares(*job.run, agent, now, link, job.shareSizes)
                                                : std::vector<HeldShare>{};
    w.readyAt = readyTime(held, w.perUnit, w.fixedS);
    in.workers.push_back(w);
    in.resultRatio += (job.reduce ? 0.0 : job.calibrated[agent].resultRatio) / static_cast<double>(active.size());
  }
  auto planned = planRounds(in);
  if (!planned) return finish(job, Error{"cannot plan the next round: " + planned.error().message});
  const Round& round = planned->rounds.front();
  // Not yet: the agents are busy for a while; later measurements and drift
  // events get into the plan if it waits (tick() asks again).
  if (job.run && !timeToServe(round, kWithin)) return;
  std::vector<PlannedShare> shares;
  std::uint64_t next = 0;
  for (const RoundShare& s : round.shares) {
    PlannedShare p;
    p.worker = s.worker;
    p.firstUnit = next;
    p.units = s.units;
    next += s.units;
    p.serveStart = s.serveStart;
    p.serveEnd = s.serveEnd;
    p.computeEnd = s.computeEnd;
    p.returnStart = s.returnStart;
    p.returnEnd = s.returnEnd;
    shares.push_back(p);
  }
  const int number = job.rounds - job.roundsLeft + 1;
  std::string sizes;
  for (const RoundShare& s : round.shares)
    sizes += (sizes.empty() ? "" : ", ") + active[static_cast<std::size_t>(s.worker)] + " " + std::to_string(s.units);
  spdlog::info("run {}: round {} of {}: {}", job.record, number, job.rounds, sizes);
  commitShares(job, active, std::move(shares), round.returnOrder, "rounds", planned->makespan, job.run != nullptr);
}

void JobService::ratesDrifted(const RateEvent& event, const planner::NodeRates& rates) {
  for (auto& [id, owned] : jobs_) {
    Job& job = *owned;
    if (job.finished || std::find(job.agents.begin(), job.agents.end(), event.agent) == job.agents.end()) continue;
    // Links: the next round reads the rate table, which has the new rate.
    if (event.rate == "compute" && rates.computeSecondsPerUnit > 0)
      job.drifted[event.agent] = {clock_.now(), rates.computeSecondsPerUnit};
    if (job.rounds > 1)
      spdlog::info("run {}: {} {} drifted {:.4g} -> {:.4g}: the work not yet started is planned on it", job.record,
                   event.agent, event.rate, event.before, event.after);
    // Slower compute: what the agent holds but has not started may end sooner elsewhere.
    if (event.rate == "compute" && event.after < event.before && job.rounds > 1) moveUnstarted(job, event.agent);
  }
}

// The shares `slowed` holds but has not started, in the order it would
// compute them, each kept if it ends soonest there, else moved to the agent
// that would end it soonest (its ready time, start-up, compute, fetch).
void JobService::moveUnstarted(Job& job, const std::string& slowed) {
  if (!job.run || job.phase != "running" || job.lost.count(slowed)) return;
  const double sourceUplink = capped(coordinator_.pacing().sourceUplink(sourceUplink_).plan, job.request.maxRateBytesPerSecond);
  const TimePoint now = clock_.now();
  const std::uint64_t total = job.units.units();
  const double bytesPerUnit = static_cast<double>(job.units.size()) / static_cast<double>(std::max<std::uint64_t>(total, 1));
  std::vector<std::string> names;
  std::vector<RoundWorker> workers;
  std::vector<int> unstarted;  // attempt ids on `slowed`
  std::vector<std::uint64_t> units;
  int slowedIndex = -1;
  const auto& attempts = job.run->attempts();
  for (const auto& name : job.agents) {
    if (job.excluded.count(name) || job.lost.count(name)) continue;
    RoundWorker w;
    w.perUnit = std::max(secondsPerUnitNow(job, name), 1e-9);
    w.fixedS = job.calibrated[name].fixedS;
    w.tau = bytesPerUnit / linkOf(name, sourceUplink);
    std::vector<HeldShare> held;
    for (std::size_t id = 0; id < attempts.size(); ++id) {
      const JobAttempt& t = attempts[id];
      if (t.agent != name || !holdsWork(t.state)) continue;
      const std::uint64_t n = job.run->shares()[static_cast<std::size_t>(t.share)].units;
      const bool computing = t.state == JobAttempt::State::kComputing;
      if (name == slowed && (t.state == JobAttempt::State::kQueued || t.state == JobAttempt::State::kReceived)) {
        unstarted.push_back(static_cast<int>(id));
        units.push_back(n);
        continue;
      }
      HeldShare h;
      h.units = n;
      h.computing = computing;
      if (computing && t.computeStart) h.startedAgo = seconds(now - *t.computeStart);
      held.push_back(h);
    }
    w.readyAt = readyTime(held, w.perUnit, w.fixedS);
    if (name == slowed) slowedIndex = static_cast<int>(workers.size());
    names.push_back(name);
    workers.push_back(w);
  }
  if (slowedIndex < 0 || unstarted.empty()) return;
  const std::vector<int> placed = placeUnstarted(workers, slowedIndex, units);
  for (std::size_t k = 0; k < unstarted.size(); ++k) {
    if (placed[k] == slowedIndex) continue;
    const std::string& to = names[static_cast<std::size_t>(placed[k])];
    const int share = attempts[static_cast<std::size_t>(unstarted[k])].share;
    if (job.run->moveTo(unstarted[k], to))
      spdlog::info("run {}: share {} ({} units) moves from {} to {}: it ends sooner there", job.record, share + 1,
                   units[k], slowed, to);
  }
  advance(job);
}

}  // namespace hnow::daemon
