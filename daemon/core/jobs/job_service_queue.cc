// Queued jobs and the agents they get (core/jobs/job_queue.h says the rule):
// a job is queued when asked for, and starts (calibrates, plans, runs) once
// its agents are its own.
#include <spdlog/spdlog.h>

#include <algorithm>

#include "api/run_request_bytes.h"
#include "core/agent_selection.h"
#include "core/jobs/job_queue.h"
#include "core/jobs/job_service.h"
#include "core/jobs/job_state.h"
#include "core/operation_log.h"
#include "core/operation_records.h"

namespace hnow::daemon {

namespace {

bool runsJobs(const AgentView& a) {
  const auto& caps = a.registration.capabilities;
  return std::find(caps.begin(), caps.end(), "jobs") != caps.end();
}

std::string fromText(const RunRequest& request) {
  if (request.to.empty() || (request.to.size() == 1 && request.to[0] == "all")) return "the agents that run jobs";
  std::string out = "--to ";
  for (std::size_t i = 0; i < request.to.size(); ++i) out += (i ? "," : "") + request.to[i];
  return out;
}

}  // namespace

Result<void> JobService::checkTargets(const RunRequest& request) const {
  // A job waits for agents that are away, but a name no agent has ever
  // had is a typo: it would wait for ever.
  const std::vector<AgentView> known = coordinator_.status();
  std::size_t runners = 0;
  for (const AgentView& a : known)
    if (runsJobs(a) && wantedBy(a, request.to)) ++runners;
  if (!(request.to.empty() || (request.to.size() == 1 && request.to[0] == "all")))
    for (const std::string& entry : request.to)
      if (std::none_of(known.begin(), known.end(), [&](const AgentView& a) { return wantedBy(a, {entry}); }))
        return Error{"--to: no agent or site named '" + entry + "' is known to hnowd (`hnow status` lists them)"};
  if (runners > 0 && static_cast<std::size_t>(request.replicas) > runners)
    return Error{"--replicas " + (request.adaptiveReplicas ? std::string("adaptive needs 2") : std::to_string(request.replicas) + " needs as many") +
                 " agents; " + std::to_string(runners) + " known to hnowd run jobs (" + fromText(request) + ")"};
  return {};
}

std::vector<std::string> JobService::mayUse(const Job& job) const {
  // One hnowd cannot connect to hands its result back over a connection it
  // opens (job_service_results.cc). A --reduce run moves partials from
  // agent to agent by pulling, which nobody can do from such an agent: it
  // takes no share there.
  std::vector<std::string> out;
  for (const AgentView& a : coordinator_.status())
    if (canTakePart(a) && runsJobs(a) && wantedBy(a, job.request.to) && (a.reachability.reachable || !job.reduce))
      out.push_back(a.record.name);
  return out;
}

void JobService::admit() {
  claimHeld();  // before any job order goes to an agent seen for the first time
  std::map<std::string, std::uint64_t> held;
  std::vector<QueuedJob> queued;
  for (const auto& [id, job] : jobs_) {
    if (job->finished) continue;
    if (job->phase != "queued") {
      for (const auto& agent : holding(*job)) held[agent] = id;
      continue;
    }
    if (clock_.now() < job->notBefore && !everyKnownBack(*job)) {
      job->waiting = "hnowd restarted: waiting for its agents to log in again";
      continue;
    }
    if (!claimsAnswered(*job)) {  // an answer, or the call's failure, comes soon
      job->waiting = "hnowd restarted: asking its agents which shares they still hold";
      continue;
    }
    queued.push_back({id, job->request.priority, mayUse(*job), static_cast<std::size_t>(job->request.replicas),
                      fromText(job->request)});
  }
  if (queued.empty()) return;
  Admission admission = admitJobs(std::move(queued), held);
  for (auto& [id, why] : admission.waiting) {
    Job& job = *jobs_.at(id);
    if (job.waiting != why) spdlog::info("run {} waits: {}", job.record, why);
    job.waiting = std::move(why);
  }
  for (std::uint64_t id : admission.start) launch(*jobs_.at(id));
}

std::vector<std::string> JobService::holding(const Job& job) {
  std::vector<std::string> out;
  for (const auto& agent : job.agents)
    if (!job.lost.count(agent)) out.push_back(agent);
  out.insert(out.end(), job.joining.begin(), job.joining.end());
  return out;
}

bool JobService::everyKnownBack(const Job& job) const {
  // Agents hnowd knows from state.db have no registration (and so no
  // capabilities) until they log in: every one --to covers counts.
  for (const AgentView& a : coordinator_.status())
    if (wantedBy(a, job.request.to) && !canTakePart(a)) return false;
  return true;
}

void JobService::launch(Job& job) {
  dropQueued(job);
  job.agents = mayUse(job);
  job.waiting.clear();
  job.phase = "calibrating";
  if (job.reduce)
    for (const AgentView& a : coordinator_.status())
      if (canTakePart(a) && runsJobs(a) && wantedBy(a, job.request.to) && !a.reachability.reachable)
        spdlog::warn("run {}: {} takes no share in a --reduce run: other agents cannot connect to its data plane "
                     "to take its partial result (docs/reachability.md)",
                     job.record, a.record.name);
  launchRecord(coordinator_, job.record);
  spdlog::info("run {}: '{}' on {} ({} bytes) over {} agents, after {:.1f} s queued", job.record, job.request.command,
               job.request.input, job.input->size(), job.agents.size(), seconds(clock_.now() - job.created));
  auto dir = files_.makeWorkDir(job.id);
  if (!dir) return finish(job, dir.error());
  job.dir = *dir;
  keepRunning(job);
  indexInput(job, conf::parseSplitSpec(job.request.split).value());
}

void JobService::keepQueued(Job& job) {
  if (job.record == 0) return;
  if (auto kept = coordinator_.operationLog().keepQueued(job.record, api::encodeRunRequest(job.request)); !kept)
    spdlog::error("run {}: keeping it queued in state.db (it is lost if hnowd stops before it starts): {}", job.record,
                  kept.error().message);
  else
    job.keptQueued = true;
}

void JobService::dropQueued(Job& job) {
  if (!job.keptQueued) return;
  job.keptQueued = false;
  if (auto dropped = coordinator_.operationLog().dropQueued(job.record); !dropped)
    spdlog::error("run {}: removing it from state.db's queue: {}", job.record, dropped.error().message);
}

Result<std::shared_ptr<JobService::Job>> JobService::requeued(OperationId record, const std::string& requestBytes,
                                                              Duration grace, std::uint64_t inputSize,
                                                              std::int64_t inputModifiedNs) {
  auto request = api::decodeRunRequest(requestBytes);
  if (!request) return request.error();
  auto input = files_.openInput(request->input);
  if (!input) return input.error();
  if (inputSize != 0 && ((*input)->size() != inputSize || (*input)->modifiedNs() != inputModifiedNs))
    return Error{"--input " + request->input + " changed since the run began (size or modification time)"};
  auto job = makeJob();
  job->id = nextJob_++;
  job->request = std::move(request).value();
  job->reduce = !job->request.reduceArgv.empty();
  job->input = std::move(input).value();
  job->record = record;
  job->created = clock_.now();
  job->notBefore = clock_.now() + grace;
  job->waiting = "hnowd restarted: waiting for its agents to log in again";
  return job;
}

void JobService::restoreQueue(Duration grace) {
  auto stored = coordinator_.operationLog().queued();
  if (!stored) return spdlog::error("reading the queued jobs from state.db: {}", stored.error().message);
  for (const StoredQueuedJob& kept : *stored) {
    auto job = requeued(kept.id, kept.request, grace);
    if (!job) {
      spdlog::error("run {}, left queued by the last hnowd, cannot start: {}", kept.id, job.error().message);
      coordinator_.operationLog().dropQueued(kept.id);
      finishRecord(coordinator_, kept.id, "failed", "{\"error\":" + jsonString(job.error().message) + "}");
      continue;
    }
    (*job)->keptQueued = true;
    spdlog::info("run {}: '{}' on {} queued again, as the last hnowd left it", (*job)->record, (*job)->request.command,
                 (*job)->request.input);
    const std::uint64_t id = (*job)->id;
    jobs_[id] = std::move(job).value();
  }
}

}  // namespace hnow::daemon
