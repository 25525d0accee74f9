// What a job's run (core/jobs/job_run.h) asks of the lab, done through the
// agents' links: serve a share, run the command on it, collect its result,
// drop what an attempt left. Each answer comes back to the run under the
// job's operation and the agent as the log's fields (base/log_context.h).
#include <spdlog/spdlog.h>

#include "base/log_context.h"
#include "core/jobs/job_run.h"
#include "core/jobs/job_service.h"
#include "core/jobs/job_state.h"

namespace hnow::daemon {

struct JobService::Actions final : JobActions {
  Actions(JobService& s, Job& j) : service(s), job(j) {}
  void serve(int id) override {
    const JobAttempt& a = job.run->attempts()[static_cast<std::size_t>(id)];
    const auto k = static_cast<std::size_t>(a.share);
    if (!job.shareHashed[k]) return job.servesWaiting[k].push_back(id);  // served once its digest is taken
    AgentLink* link = service.coordinator_.link(a.agent);
    auto answer = [this, id, agent = a.agent, keep = job.self()](const Result<void>& served) {
      if (job.finished) return;
      LogScope scope(LogFields{job.record, agent, {}});
      job.run->served(id, served);
      service.advance(job);
    };
    job.agentTokens[a.agent].push_back(job.shareTokens[k]);
    if (!link) return later([answer]() { answer(Error{"not connected"}); });
    job.attempts[id].login = service.coordinator_.logins(a.agent);
    service.sendingTo(job, a.agent);
    link->fetchJobFile({job.shareTokens[k], job.shareSizes[k], job.shareShas[k], service.sourceAddress_}, answer);
  }
  void compute(int id) override {
    const JobAttempt& a = job.run->attempts()[static_cast<std::size_t>(id)];
    const auto k = static_cast<std::size_t>(a.share);
    auto& data = job.attempts[id];
    const auto claimed = job.claimedResults.find(k);
    const auto held = claimed == job.claimedResults.end() ? nullptr : &claimed->second;
    const bool adopted = held && held->count(a.agent);
    data.resultToken = adopted ? held->at(a.agent).resultToken : service.newToken_();
    if (adopted) {
      data.shareToken = held->at(a.agent).shareToken;
      held->erase(a.agent);  // a reissue on it runs the command
      if (held->empty()) job.claimedResults.erase(claimed);
    } else {
      job.agentTokens[a.agent].push_back(data.resultToken);
      service.keepAttempt(job, id);  // state.db has the adopted one's row
    }
    AgentLink* link = service.coordinator_.link(a.agent);
    auto answer = [this, id, agent = a.agent, share = a.share,
                   keep = job.self()](const Result<AgentLink::JobTaskAnswer>& result) {
      if (job.finished) return;
      LogScope scope(LogFields{job.record, agent, {}});
      if (!result) {
        job.run->computed(id, 0.0, result.error());
      } else {
        job.attempts[id].result = *result;
        // Its digest before the replicas' check uses it: a restarted hnowd compares it with the others'.
        if (result->succeeded() && job.run->replicas(share) > 1) service.keepAttempt(job, id, result->sha256);
        if (result->refused && job.excluded.insert(agent).second) {  // later rounds leave it out
          job.leftOutWhy[agent] = result->ended.error().message;
          spdlog::warn("run {}: {} left out: {}", job.record, agent, result->ended.error().message);
        }
        job.run->computed(id, result->computeS,
                          result->succeeded() ? Result<std::string>(result->sha256) : result->ended.error(),
                          result->refused);
        // Judged as it is learnt, not at the run's end: a run hnowd dies in still counts.
        if (job.request.adaptiveReplicas) service.keepHostTrust();
      }
      service.advance(job);
    };
    if (!link) return later([answer]() { answer(Error{"not connected"}); });
    // Served to an earlier session, it stays that one's: its share is not on this one.
    if (data.login == 0) data.login = service.coordinator_.logins(a.agent);
    service.sendingTo(job, a.agent);
    if (adopted) return link->awaitJobTask(data.resultToken, answer);
    link->runJobTask({{job.shareTokens[k]}, job.request.argv, data.resultToken, job.request.shell,
                      static_cast<std::uint64_t>(job.record)}, answer);
  }
  void collect(int id) override {
    const JobAttempt& a = job.run->attempts()[static_cast<std::size_t>(id)];
    auto& data = job.attempts[id];
    service.fetchResult(job, a.agent, data.resultToken, data.result.size, data.result.sha256,
                        "result-" + std::to_string(id),
                        [this, id, agent = a.agent, keep = job.self()](const Result<std::string>& path) {
                          if (job.finished) return;
                          LogScope scope(LogFields{job.record, agent, {}});
                          if (path) job.attempts[id].path = *path;
                          job.run->collected(id, path ? Result<void>() : path.error());
                          service.advance(job);
                        });
  }
  void drop(int id) override {
    const JobAttempt& a = job.run->attempts()[static_cast<std::size_t>(id)];
    auto& data = job.attempts[id];
    if (!data.resultToken.empty()) {
      service.plane_.release(data.resultToken);
    }
    if (AgentLink* link = service.coordinator_.link(a.agent))
      link->dropJobFiles({job.shareTokens[static_cast<std::size_t>(a.share)], data.resultToken});
  }
  // A failure found at once is answered on the next turn, never from inside the run's own call.
  void later(std::function<void()> f) { service.defer_(std::move(f)); }
  JobService& service;
  Job& job;
};

std::shared_ptr<JobService::Job> JobService::makeJob() { return std::make_shared<Job>(); }

void JobService::startRun(Job& job, std::vector<JobShare> shares, std::vector<int> returnOrder,
                          std::vector<std::string> pool, JobRunOptions options) {
  job.actions = std::make_unique<Actions>(*this, job);
  job.run = std::make_unique<JobRun>(clock_, *job.actions, std::move(shares), std::move(returnOrder), std::move(pool),
                                     options);
}

}  // namespace hnow::daemon
