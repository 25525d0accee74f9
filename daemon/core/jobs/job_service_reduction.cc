// `hnow run --reduce CMD`: the partial results stay on the agents
// and are combined pairwise there, along a reduction schedule to a sink
// agent (seed 003: optimal branch-and-bound for a few agents, else SNF,
// slowest node first), whose result hnowd then collects. A combine runs CMD
// on the receiver's partial followed by the sender's, so CMD must be
// associative and commutative (sums, counts, merges of sorted runs).
#include <spdlog/spdlog.h>

#include <algorithm>
#include <optional>

#include "core/jobs/job_reduction.h"
#include "core/jobs/job_state.h"

namespace hnow::daemon {

// The reduction's transport: JobReduction (core/jobs/job_reduction.h) decides,
// this moves files and runs CMD on the agents. A transport error counts as
// the loss of an agent for this job (the reduction is re-planned over the
// others); only the reduce command's own failure fails the job.
struct JobService::ReductionLink final : ReductionActions {
  ReductionLink(JobService& s, Job& j) : service(s), job(j) {}
  const ReductionPartial& part(int p) const { return job.reduction->partials()[static_cast<std::size_t>(p)]; }
  void combine(int step, const std::string& agent, int into, int other) override {
    const std::string token = service.newToken_(), a = part(into).token, b = part(other).token;
    job.agentTokens[agent].push_back(token);
    const double begun = seconds(service.clock_.now() - job.started);
    auto answer = [this, step, agent, token, a, b, begun, keep = job.self()](const Result<AgentLink::JobTaskAnswer>& r) {
      if (job.finished || !job.reduction->underWay(step)) return;  // abandoned by a re-plan: its answer is stale
      if (!r || (!r->succeeded() && !service.agentUp(agent))) {
        job.reduction->agentLost(agent);
      } else if (!r->succeeded()) {  // the command's own failure fails the job: it would fail anywhere
        job.reduction->combined(step, r->ended.error());
      } else {
        job.bars.push_back({agent, "reduce", begun, seconds(service.clock_.now() - job.started)});
        // In state.db before its inputs are dropped (JobReduction::combined): a restart reduces it.
        service.keepPartial(job, {agent, token, r->sha256, r->size, a, b});
        job.reduction->combined(step, CombinedFile{r->size, token, r->sha256});
      }
      service.reductionChanged(job);
    };
    AgentLink* link = service.coordinator_.link(agent);
    if (!link) return later([answer]() { answer(Error{"not connected"}); });
    service.sendingTo(job, agent);
    link->runJobTask({{a, b}, job.request.reduceArgv, token, job.request.shell,
                      static_cast<std::uint64_t>(job.record)}, answer);
  }
  void move(int step, int partial, const std::string& from, const std::string& to) override {
    const ReductionPartial& p = part(partial);
    job.agentTokens[to].push_back(p.token);
    const double begun = seconds(service.clock_.now() - job.started);
    auto answer = [this, step, from, to, begun, keep = job.self()](const Result<void>& moved) {
      if (job.finished || !job.reduction->underWay(step)) return;
      // A failed move drops the receiver if it is gone, else the sender (its
      // partial is found again elsewhere): the job goes on without it.
      if (!moved) {
        job.reduction->agentLost(service.agentUp(to) ? from : to);
      } else {
        job.bars.push_back({from, "return", begun, seconds(service.clock_.now() - job.started)});
        job.reduction->moved(step, moved);
      }
      service.reductionChanged(job);
    };
    AgentLink* link = service.coordinator_.link(to);
    if (!link) return later([answer]() { answer(Error{"not connected"}); });
    service.sendingTo(job, to);
    service.sendingTo(job, from);
    link->fetchJobFile({p.token, p.size, p.digest, service.addressOf(from)}, answer);
  }
  void collect(int step, int partial, const std::string& agent) override {
    const ReductionPartial& p = part(partial);
    const double begun = seconds(service.clock_.now() - job.started);
    service.sendingTo(job, agent);
    service.fetchResult(job, agent, p.token, p.size, p.digest, "final-" + std::to_string(step),
                        [this, step, partial, agent, begun, keep = job.self()](const Result<std::string>& path) {
                          if (job.finished || !job.reduction->underWay(step)) return;
                          if (!path) {  // the sink's partial is found again elsewhere
                            job.reduction->agentLost(agent);
                            return service.reductionChanged(job);
                          }
                          job.reduction->collected(step, {});
                          if (job.reduction->finalPartial() != partial) return service.reductionChanged(job);
                          job.bars.push_back({agent, "return", begun, seconds(service.clock_.now() - job.started)});
                          service.writeFinal(job, *path);
                        });
  }
  void drop(int partial, const std::string& agent) override {
    if (AgentLink* link = service.coordinator_.link(agent)) link->dropJobFiles({part(partial).token});
  }
  void recompute(const std::vector<int>& shares) override {
    spdlog::warn("run {}: {} share(s) lost with their agents during the reduction; computing them again", job.record,
                 shares.size());
    job.phase = "running";
    const auto& lost = job.reduction->lost();
    job.run->redo(shares, std::vector<std::string>(lost.begin(), lost.end()));
    // The run answers later; advance() brings the new results back here.
  }
  void later(std::function<void()> f) { service.defer_(std::move(f)); }
  JobService& service;
  Job& job;
};

bool JobService::agentUp(const std::string& agent) const {
  for (const AgentView& a : coordinator_.status())
    if (a.record.name == agent) return a.connected && a.record.state == AgentState::kAlive;
  return false;
}

void JobService::startReduction(Job& job) {
  job.phase = "reducing";
  if (!job.reduction) {
    job.reductionLink = std::make_unique<ReductionLink>(*this, job);
    const double bytesPerUnit =
        job.units.units() > 0 ? static_cast<double>(job.units.size()) / static_cast<double>(job.units.units()) : 1.0;
    // Send times from the rate table (seed 003 model); a combine is predicted
    // like the job's command on as many bytes (CMD itself is not calibrated).
    auto costs = [this, &job, bytesPerUnit](const std::string& agent) {
      ReductionCosts c;
      for (const AgentView& a : coordinator_.status())
        if (a.record.name == agent) {
          if (a.record.rates.uplinkBytesPerSecond > 0) c.uplinkBytesPerSecond = a.record.rates.uplinkBytesPerSecond;
          c.sendOverheadS = a.record.rates.sendOverheadSeconds;
        }
      if (auto it = job.calibrated.find(agent); it != job.calibrated.end()) {
        c.combineFixedS = it->second.fixedS;
        c.combineSecondsPerByte = it->second.secondsPerUnit / std::max(bytesPerUnit, 1.0);
      }
      return c;
    };
    ReductionOptions options;
    if (job.request.slack > 0) options.slack = job.request.slack;
    options.returnGrace = kAgentReturnGrace;
    job.reduction = std::make_unique<JobReduction>(clock_, *job.reductionLink, costs, options);
    restoreReduction(job);  // what an earlier hnowd's reduction combined, after a restart
  }
  // The shares' accepted results (first time: all; after a recomputation: the redone ones).
  job.run->handOver();
  for (std::size_t k = 0; k < job.run->shares().size(); ++k) {
    if (!job.run->shares()[k].accepted) continue;  // kept in a partial made before a restart
    const int id = *job.run->shares()[k].accepted;
    auto [it, fresh] = job.leafAttempt.try_emplace(static_cast<int>(k), id);
    if (!fresh && it->second == id) continue;
    it->second = id;
    const auto& data = job.attempts[id];
    job.reduction->addLeaf(static_cast<int>(k), job.run->attempts()[static_cast<std::size_t>(id)].agent,
                           data.result.size, data.resultToken, data.result.sha256);
  }
  if (job.reductionStarted == TimePoint{}) job.reductionStarted = clock_.now();
  job.reduction->start();
  if (job.reduction->waitingForRecompute() || job.reduction->finished()) return reductionChanged(job);
  if (job.reductionName.empty()) job.reductionPredictedS = job.reduction->predictedS();
  job.reductionName = job.reduction->scheduleName();
  spdlog::info("run {}: reducing along {} to {} (predicted {:.2f} s)", job.record, job.reductionName,
               job.reduction->sink(), job.reduction->predictedS());
}

void JobService::reductionChanged(Job& job) {
  if (job.finished || !job.reduction) return;
  if (job.reduction->failure()) return finish(job, *job.reduction->failure());
  if (!job.reduction->waitingForRecompute()) job.reductionName = job.reduction->scheduleName();
}

}  // namespace hnow::daemon
