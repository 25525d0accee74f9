// `hnow run --reduce CMD` (issue 8): the partial results stay on the agents
// and are combined pairwise there, along a reduction schedule to a sink
// agent (seed 003: optimal branch-and-bound for a few agents, else SNF,
// slowest node first), whose result hnowd then collects. A combine runs CMD
// on the receiver's partial followed by the sender's, so CMD must be
// associative and commutative (sums, counts, merges of sorted runs).
#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "planner/reduction.h"
#include "server/job_state.h"

namespace hnow::daemon {

namespace {
constexpr double kUnknownRate = 1e9;
constexpr int kMaxOptimalReduction = 8;
}  // namespace

void JobService::startReduction(Job& job) {
  job.phase = "reducing";
  // One partial per agent; an agent holding several (reissues) combines them first.
  for (const JobShare& share : job.run->shares()) {
    const JobAttempt& a = job.run->attempts()[static_cast<std::size_t>(*share.accepted)];
    const auto& data = job.attempts[*share.accepted];
    auto [it, fresh] = job.partials.try_emplace(a.agent);
    if (fresh) {
      it->second.token = data.resultToken;
      it->second.sha = data.result.sha256;
      it->second.size = data.result.size;
    } else {
      it->second.arrived.push_back(data.resultToken);
      ++it->second.pendingChildren;
      it->second.size += data.result.size;
    }
  }
  std::vector<std::string> nodes;
  std::vector<double> sendTime;
  std::map<std::string, planner::NodeRates> rates;
  for (const AgentView& a : coordinator_.status()) rates[a.record.name] = a.record.rates;
  int sink = 0;
  for (const auto& [agent, partial] : job.partials) {
    const planner::NodeRates& r = rates[agent];
    const double up = r.uplinkBytesPerSecond > 0 ? r.uplinkBytesPerSecond : kUnknownRate;
    if (!nodes.empty() && up > rates[nodes[static_cast<std::size_t>(sink)]].uplinkBytesPerSecond) sink = static_cast<int>(nodes.size());
    nodes.push_back(agent);
    sendTime.push_back(r.sendOverheadSeconds + static_cast<double>(partial.size) / up);
  }
  job.sink = nodes[static_cast<std::size_t>(sink)];
  planner::Schedule schedule;
  if (nodes.size() > 1) {
    if (static_cast<int>(nodes.size()) <= kMaxOptimalReduction) {
      planner::SearchLimits limits;
      limits.maxSearchNodes = 200'000;
      auto best = planner::optimalReduction(sendTime, sink, limits);
      if (best) {
        schedule = best->schedule;
        job.reductionName = best->provenOptimal ? "optimal" : "best found";
      }
    }
    if (job.reductionName.empty()) {
      auto snf = planner::slowestNodeFirst(sendTime, sink);
      if (!snf) return finish(job, "cannot plan the reduction: " + snf.error().message);
      schedule = snf.value();
      job.reductionName = "snf";
    }
  } else {
    job.reductionName = "none (one partial)";
  }
  double end = 0;
  for (const auto& t : schedule) {
    Job::Partial& child = job.partials[nodes[static_cast<std::size_t>(t.from)]];
    child.parent = nodes[static_cast<std::size_t>(t.to)];
    ++job.partials[child.parent].pendingChildren;
    end = std::max(end, t.end);
  }
  job.reductionPredictedS = end + sendTime[static_cast<std::size_t>(sink)];
  job.reductionStarted = clock_.now();
  spdlog::info("run {}: reducing {} partials along {} to {} (predicted {:.2f} s)", job.id, nodes.size(),
               job.reductionName, job.sink, job.reductionPredictedS);
  reduceStep(job);
}

// Moves every partial that can move: combine what arrived, send up what is complete.
void JobService::reduceStep(Job& job) {
  for (auto& [agent, p] : job.partials) {
    if (job.finished) return;
    if (p.busy || p.sent) continue;
    const std::string name = agent;
    if (!p.arrived.empty()) {
      p.busy = true;
      const std::string other = p.arrived.front(), resultToken = freshJobToken();
      job.agentTokens[name].push_back(resultToken);
      AgentLink* link = coordinator_.link(name);
      if (!link) return finish(job, "agent " + name + " was lost during the reduction; run the job again");
      const double begun = seconds(clock_.now() - job.started);
      link->runJobTask({{p.token, other}, job.request.reduceArgv, resultToken},
                       [this, &job, name, other, resultToken, begun](const std::string& error,
                                                                     const AgentLink::JobTaskResult& r) {
                         if (job.finished) return;
                         if (!error.empty()) return finish(job, "the reduce command failed on " + name + ": " + error);
                         Job::Partial& p = job.partials[name];
                         if (AgentLink* l = coordinator_.link(name)) l->dropJobFiles({p.token, other});
                         p.token = resultToken;
                         p.size = r.size;
                         p.sha = r.sha256;
                         p.arrived.erase(p.arrived.begin());
                         --p.pendingChildren;
                         p.busy = false;
                         job.bars.push_back({name, "reduce", begun, seconds(clock_.now() - job.started)});
                         reduceStep(job);
                       });
      continue;
    }
    if (p.pendingChildren > 0) continue;
    p.sent = true;
    if (p.parent.empty()) return collectFinal(job, name, p.token, p.size, p.sha);
    const std::string parent = p.parent;
    AgentLink* link = coordinator_.link(parent);
    if (!link) return finish(job, "agent " + parent + " was lost during the reduction; run the job again");
    job.agentTokens[parent].push_back(p.token);
    const double begun = seconds(clock_.now() - job.started);
    link->fetchJobFile({p.token, p.size, p.sha, addressOf(name)},
                       [this, &job, name, parent, token = p.token, begun](const std::string& error) {
                         if (job.finished) return;
                         if (!error.empty())
                           return finish(job, "moving a partial result from " + name + " to " + parent + ": " + error);
                         job.partials[parent].arrived.push_back(token);
                         job.bars.push_back({name, "return", begun, seconds(clock_.now() - job.started)});
                         reduceStep(job);
                       });
  }
}

void JobService::collectFinal(Job& job, const std::string& agent, const std::string& token, std::uint64_t size,
                              const std::string& sha) {
  const double begun = seconds(clock_.now() - job.started);
  receiveFile(job, token, size, sha, addressOf(agent), "final",
              [this, &job, agent, begun](const std::string& error, const std::string& path) {
                if (job.finished) return;
                if (!error.empty()) return finish(job, "collecting the reduced result from " + agent + ": " + error);
                job.bars.push_back({agent, "return", begun, seconds(clock_.now() - job.started)});
                const std::string final = job.request.output.empty()
                                              ? workDir_ + "/run-" + std::to_string(job.id) + ".out"
                                              : job.request.output;
                std::error_code e;
                // Same file system: one rename. Else a copy beside the output, then a rename.
                if (::rename(path.c_str(), final.c_str()) != 0) {
                  const std::string temp = final + ".hnow-" + std::to_string(job.id) + ".part";
                  std::filesystem::copy_file(path, temp, std::filesystem::copy_options::overwrite_existing, e);
                  if (!e) std::filesystem::rename(temp, final, e);
                  if (e) {
                    std::filesystem::remove(temp);
                    return finish(job, "cannot write " + final + ": " + e.message());
                  }
                }
                job.outputPath = final;
                job.outputSize = std::filesystem::file_size(final, e);
                finish(job, "");
                forgetOldOutputs(job.id);
              });
}

}  // namespace hnow::daemon
