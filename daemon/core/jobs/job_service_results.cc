// Results come back to hnowd on its data plane. hnowd pulls them from
// agents it can connect to. An agent it cannot (behind NAT or a host
// firewall, core/links/reachability.h) is asked over its control link to dial
// hnowd's data port and hand the result over on that connection
// (AgentLink::offerFile, SourcePlane::receiveOffered): the same pull, with
// its resume offset and SHA-256 check, whoever opened the connection.
#include <spdlog/spdlog.h>

#include "core/jobs/job_service.h"
#include "core/jobs/job_state.h"

namespace hnow::daemon {

namespace {
// A connection the agent opened that ends mid-way is asked for again this
// often (each resumes after the bytes held); then the share goes elsewhere.
constexpr int kMaxRedials = 3;
}  // namespace

struct JobService::OfferedFetch {
  std::string agent, token, ticket;
  std::function<void(const Result<std::string>& path)> done;
  std::shared_ptr<Job> job;  // kept while the fetch lives
  int redials = 0;
  bool answered = false;
  void answer(const Result<std::string>& path) {
    if (answered) return;
    answered = true;
    done(path);
  }
};

void JobService::fetchResult(Job& job, const std::string& agent, const std::string& token, std::uint64_t size,
                             const std::string& sha, const std::string& name,
                             std::function<void(const Result<std::string>& path)> done) {
  if (coordinator_.relays().reachability().reachable(agent))
    return receiveFile(job, token, size, sha, addressOf(agent), name, std::move(done));
  // A ticket of its own, told to this agent alone: another agent that
  // learnt the result's token cannot hand over bytes in its place.
  auto fetch = std::make_shared<OfferedFetch>(OfferedFetch{agent, token, newToken_(), std::move(done), job.self()});
  job.planeTokens.push_back(token);
  plane_.receiveOffered(
      token, fetch->ticket, size, sha, job.dir + "/" + name,
      [this, fetch](const std::string& why) { askToOffer(fetch, why); },
      [fetch](const Result<std::string>& path) { fetch->answer(path); });
  askToOffer(fetch, "");
}

void JobService::askToOffer(const std::shared_ptr<OfferedFetch>& fetch, const std::string& lostWhy) {
  if (fetch->answered || fetch->job->finished) return;
  if (!lostWhy.empty()) {
    if (++fetch->redials > kMaxRedials)
      return failOffer(fetch, "the connection it opened to hand its result back ended " +
                                  std::to_string(kMaxRedials + 1) + " times, last: " + lostWhy);
    spdlog::info("run {}: {} lost the connection handing its result back ({}); asking it to dial again",
                 fetch->job->record, fetch->agent, lostWhy);
  }
  AgentLink* link = coordinator_.link(fetch->agent);
  // Answered on a later turn, never from inside the run's own call.
  if (!link) return defer_([this, fetch]() { failOffer(fetch, "not connected"); });
  link->offerFile(fetch->token, fetch->ticket, sourceAddress_, [this, fetch](const Result<void>& offered) {
    if (!offered)
      failOffer(fetch, "it could not hand its result back over a connection it opens (" + offered.error().message +
                           "); hnowd's data port must accept connections from the agents");
  });
}

void JobService::failOffer(const std::shared_ptr<OfferedFetch>& fetch, const std::string& why) {
  if (fetch->answered) return;
  plane_.release(fetch->token);  // its receive never answers now
  spdlog::warn("run {}: {}: {}", fetch->job->record, fetch->agent, why);
  fetch->answer(Error{why});
}

}  // namespace hnow::daemon
