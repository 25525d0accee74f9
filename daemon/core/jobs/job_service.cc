#include "core/jobs/job_service.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include "base/log_context.h"
#include "conf/run_request.h"
#include "core/jobs/job_plan.h"
#include "core/jobs/job_run.h"
#include "core/jobs/job_state.h"
#include "core/operation_records.h"
#include "planner/reduction/reduction.h"

namespace hnow::daemon {

JobService::JobService(Coordinator& coordinator, SourcePlane& plane, RunFiles& files, std::string sourceAddress,
                       const Clock& clock, Defer defer, std::function<std::string()> newToken,
                       double sourceUplinkBytesPerSecond, double calibrationMaxSeconds)
    : coordinator_(coordinator), plane_(plane), files_(files), sourceAddress_(std::move(sourceAddress)),
      clock_(clock), defer_(std::move(defer)), newToken_(std::move(newToken)),
      sourceUplink_(sourceUplinkBytesPerSecond), calibrationMaxS_(calibrationMaxSeconds), calibrations_(clock) {
  coordinator_.addTransferObserver(&driftListener_);  // drift events re-plan the next round
  // Who has agreed with others so far outlives hnowd, as it outlives a run.
  if (auto lines = coordinator_.loadLedger(kHostTrustLedger); !lines) {
    spdlog::error("reading the host-trust ledger from state.db: {}", lines.error().message);
  } else {
    std::vector<HostTrust::Line> ledger;
    for (const StoredLedgerEntry& e : *lines)
      ledger.push_back({e.agent, static_cast<int>(e.first), static_cast<int>(e.second)});
    hostTrust_.restore(ledger);
  }
}

JobService::~JobService() {
  coordinator_.removeTransferObserver(&driftListener_);
  for (auto& [id, job] : jobs_)
    if (!job->finished) cleanUp(*job, job->resumable);
}

bool JobService::running() const {
  for (const auto& [id, job] : jobs_)
    if (!job->finished) return true;
  return false;
}

namespace {

// The options of a run that need no file and no agent to be refused.
Result<void> checkRunOptions(const RunRequest& request) {
  if (request.argv.empty()) return Error{"--cmd is empty"};
  if (auto split = conf::parseSplitSpec(request.split); !split) return split.error();
  if (request.order != "fifo" && request.order != "lifo" && request.order != "auto")
    return Error{"unknown --order '" + request.order + "'; use fifo, lifo or auto"};
  if (!std::isfinite(request.slack) || request.slack < 0) return Error{"--slack must be a positive number"};
  if (request.strategy != "plan" && request.strategy != "equal" && request.strategy != "self")
    return Error{"unknown --strategy '" + request.strategy + "'; use plan, equal or self"};
  if (request.strategy == "self" && request.blockBytes == 0) return Error{"--block must be positive"};
  if (request.rounds < 0 || request.rounds > 100) return Error{"--rounds must be auto or from 1 to 100"};
  return {};
}

}  // namespace

Result<std::uint64_t> JobService::start(RunRequest request, const std::string& peer) {
  // hnowd's own files are at stake: --input and --output are checked
  // against [run] roots before anything else is read (server/run_paths.h).
  auto pathRefused = [&peer](const Error& why) {
    spdlog::warn("refused a run from {}: {}", peer.empty() ? "a client" : peer, why.message);
    return why;
  };
  auto input = files_.openInput(request.input);
  if (!input) return pathRefused(input.error());
  if (!request.output.empty())
    if (auto outputDir = files_.outputDir(nextJob_, request.output); !outputDir) return pathRefused(outputDir.error());
  if (request.strategy.empty()) request.strategy = "plan";
  if (auto checked = checkRunOptions(request); !checked) return checked.error();
  finished_.forgetOldest(jobs_);
  auto job = makeJob();
  job->id = nextJob_;
  job->reduce = !request.reduceArgv.empty();
  job->input = std::move(input).value();
  if (job->input->size() == 0) return Error{"--input " + request.input + " is empty: there is no work unit"};

  if (auto named = checkTargets(request); !named) return named.error();
  if (request.replicas < 1) return Error{"--replicas must be at least 1"};

  ++nextJob_;
  job->request = std::move(request);
  job->created = clock_.now();
  job->phase = "queued";
  job->record = queueRecord(coordinator_, "run",
                            "{\"input\":" + jsonString(job->request.input) + ",\"command\":" +
                                jsonString(job->request.command) + ",\"priority\":" +
                                std::to_string(job->request.priority) + "}");
  spdlog::info("run {}: '{}' on {} ({} bytes) queued (priority {})", job->record, job->request.command,
               job->request.input, job->input->size(), job->request.priority);
  keepQueued(*job);  // before the client hears it is queued
  const std::uint64_t id = job->id;
  jobs_[id] = std::move(job);
  admit();
  return id;
}

void JobService::indexInput(Job& job, const conf::SplitSpec& split) {
  plane_.indexUnits(job.input, split, [this, &job, keep = job.self()](const Result<conf::UnitIndex>& index) {
    if (job.finished) return;
    if (!index) return finish(job, Error{"cannot read --input " + job.request.input + ": " + index.error().message});
    job.units = *index;
    std::vector<UnitRange> done;
    for (const auto& k : job.kept) done.push_back({k.firstUnit, k.firstUnit + k.units});
    job.todo = UnitGaps::of(job.units.units(), done);
    const std::uint64_t accepted = job.units.units() - job.todo.count();
    adoptHeld(job);
    job.indexed = true;
    spdlog::info("run {}: {} units in {} bytes", job.record, job.units.units(), job.units.size());
    if (!job.kept.empty() || !job.adopted.empty())
      spdlog::info("run {}: {} units accepted before hnowd restarted, {} held by its agents, {} left", job.record, accepted,
                   job.units.units() - accepted - job.todo.count(), job.todo.count());
    // Every share was accepted before (--reduce: a partial held stands for them, to be reduced still).
    if (job.todo.count() == 0 && job.adopted.empty() && job.restoredTops.empty()) return writeConcat(job);
    calibrate(job);
  });
}

void JobService::serveShare(Job& job, std::size_t k, std::uint64_t offset, std::uint64_t length) {
  const std::string token = newToken_();
  job.shareTokens.push_back(token);
  job.shareShas.emplace_back();
  job.shareSizes.push_back(length);
  job.shareHashed.push_back(false);
  job.planeTokens.push_back(token);
  plane_.serveRange(token, job.input, offset, length, [this, &job, k, keep = job.self()](const Result<SourceFile>& served) {
    if (job.finished) return;
    if (!served) return finish(job, Error{"cannot serve share " + std::to_string(k) + " of --input " + job.request.input +
                                        ": " + served.error().message});
    job.shareShas[k] = served->sha256;
    job.shareHashed[k] = true;
    auto waiting = job.servesWaiting.find(k);
    if (waiting == job.servesWaiting.end()) return;
    const std::vector<int> attempts = std::move(waiting->second);
    job.servesWaiting.erase(waiting);
    for (int id : attempts)  // each unless the run gave it up meanwhile (its agent lost)
      if (!job.finished && job.run->attempts()[static_cast<std::size_t>(id)].state == JobAttempt::State::kServing)
        job.actions->serve(id);
  });
}

void JobService::advance(Job& job) {
  if (job.finished || !job.run || job.phase != "running") return;
  keepAccepted(job);
  if (!job.run->finished()) {
    // The serve port is free: the next round goes out when an agent is
    // about to be free, planned on what was measured (job_round_planning.cc).
    if (job.roundsLeft > 0 && !job.run->failure() && job.run->servesIdle()) plan(job);
    return;
  }
  if (job.run->failure()) return finish(job, *job.run->failure());
  if (job.reduce) return startReduction(job);
  writeConcat(job);
}

std::string JobService::addressOf(const std::string& agent) const {
  for (const AgentView& a : coordinator_.status())
    if (a.record.name == agent) return a.registration.dataAddress;
  return "";
}

void JobService::receiveFile(Job& job, const std::string& token, std::uint64_t size, const std::string& sha,
                             const std::string& from, const std::string& name,
                             std::function<void(const Result<std::string>& path)> done) {
  job.planeTokens.push_back(token);
  plane_.receiveFile(token, size, sha, job.dir + "/" + name, from, std::move(done));
}

void JobService::finish(Job& job, const Result<void>& ended) {
  if (job.finished) return;
  job.finished = true;
  finished_.add(job.id);
  forgetOldOutputs(job.id);  // any outcome counts: an output goes before its job is forgotten
  job.error = ended ? "" : ended.error().message;
  const bool cancelled = !job.cancelledBy.empty();
  job.phase = cancelled ? "cancelled" : ended ? "done" : "failed";
  job.elapsedS = job.started == TimePoint{} ? 0.0 : seconds(clock_.now() - job.started);
  if (ended)
    spdlog::info("run {} done in {:.2f} s (predicted {:.2f} s): {} bytes to {}", job.record, job.elapsedS,
                 job.plan ? job.plan->predictedSeconds + job.reductionPredictedS : 0.0, job.outputSize,
                 job.outputPath);
  else if (!cancelled)
    spdlog::warn("run {} failed: {}", job.record, job.error);
  if (job.run) coordinator_.counts().reissues += static_cast<std::uint64_t>(job.run->reissued());
  cleanUp(job);
  dropQueued(job);  // one cancelled while queued
  forgetRunning(job);
  defer_([this] { admit(); });  // its agents are free for the jobs queued
  if (job.record != 0) {
    char numbers[200];
    std::snprintf(numbers, sizeof numbers, ",\"predicted_s\":%.3f,\"actual_s\":%.3f,\"reissued\":%d,\"units\":%zu",
                  job.plan ? job.plan->predictedSeconds + job.reductionPredictedS : 0.0, job.elapsedS,
                  job.run ? job.run->reissued() : 0, job.units.units());
    std::string summary = "{\"input\":" + jsonString(job.request.input) + ",\"command\":" +
                          jsonString(job.request.command) + ",\"plan\":" +
                          jsonString(job.plan ? job.plan->algorithm : "") + numbers +
                          (ended ? "" : ",\"error\":" + jsonString(job.error)) +
                          (cancelled ? ",\"cancelled_by\":" + jsonString(job.cancelledBy) : "") + "}";
    finishRecord(coordinator_, job.record, job.phase, summary);
  }
}

std::uint64_t JobService::operationOf(OperationId record) const {
  for (const auto& [id, job] : jobs_)
    if (record != 0 && job->record == record) return id;
  return 0;
}

bool JobService::cancel(OperationId record, const std::string& who) {
  for (auto& [id, job] : jobs_) {
    if (job->finished || record == 0 || job->record != record) continue;
    spdlog::info("run {}: cancelled by {}", record, who);
    job->cancelledBy = who;
    finish(*job, Error{"cancelled by " + who});
    return true;
  }
  return false;
}

void JobService::keepHostTrust() {
  std::vector<StoredLedgerEntry> ledger;
  for (const HostTrust::Line& l : hostTrust_.ledger()) ledger.push_back({l.agent, l.streak, l.overruled});
  const auto same = [](const StoredLedgerEntry& a, const StoredLedgerEntry& b) {
    return a.agent == b.agent && a.first == b.first && a.second == b.second;
  };
  if (std::equal(ledger.begin(), ledger.end(), keptHostTrust_.begin(), keptHostTrust_.end(), same)) return;
  coordinator_.saveLedger(kHostTrustLedger, ledger);  // logs a failure itself
  keptHostTrust_ = std::move(ledger);
}

void JobService::cleanUp(Job& job, bool keepResults) {
  // A job that resumes keeps its agents' shares running too: the next
  // hnowd collects them (job_service_claims.cc).
  if (!keepResults)
    for (const auto& [agent, tokens] : job.agentTokens)
      if (AgentLink* link = coordinator_.link(agent)) link->dropJobFiles(tokens);
  for (const auto& token : job.planeTokens) {
    plane_.release(token);
  }
  job.planeTokens.clear();
  if (!job.dir.empty() && !keepResults) files_.removeWorkDir(job.dir);  // none while queued
  job.input.reset();  // a share still being hashed holds it until that ends
}

void JobService::tick() {
  claimHeld();
  std::map<std::string, bool> up;
  std::set<std::string> relogged = loggedInAgain(up);
  for (auto& [id, owned] : jobs_) {
    Job& job = *owned;
    if (job.finished) continue;
    LogScope scope(operationField(job.record));
    for (const auto& agent : job.agents) {
      // Against the login each order went to, not the last look: a login
      // between the job's first order and JobService's first look counts.
      if (up[agent] && !job.lost.count(agent) && sessionEnded(job, agent)) {
        relogged.insert(agent);
        sessionLost(job, agent);
      }
      if (job.finished) break;
      if (up[agent] || job.lost.count(agent)) continue;
      job.lost.insert(agent);
      job.sessions.erase(agent);  // every session of it is gone: what it is sent when back is its new one's
      spdlog::warn("run {}: agent {} lost in phase {}", job.record, agent, job.phase);
      if (job.phase == "calibrating") {
        excludeFromCalibration(job, agent);
      } else {
        // Running (or computing again what a reduction lost), then the reduction's own view.
        if (job.phase == "running") job.run->agentLost(agent);
        if (job.reduction) {
          job.reduction->agentLost(agent);
          reductionChanged(job);
        }
      }
      if (job.finished) break;
    }
    if (!job.finished && job.phase == "calibrating") checkCalibrationDeadlines(job);
    if (!job.finished && job.run && job.phase == "running") job.run->tick();
    joinAgents(job);
    if (!job.finished && job.reduction && job.phase == "reducing") {
      job.reduction->tick();
      reductionChanged(job);
    }
    advance(job);
  }
  // After the losses above: what a returning agent gives back revives the attempts they failed.
  askReturning(up, relogged);
  admit();  // agents that came back, or were freed
}

}  // namespace hnow::daemon
