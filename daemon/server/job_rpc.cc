// `hnow run` on the wire: ClientSession's run calls, and the
// job's status as the CLI sees it (per agent units, compute and idle time;
// bars for the Gantt chart).
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>

#include "server/job_state.h"
#include "server/sessions.h"
#include "transport/rpc_errors.h"
#include "wire/run_wire.h"

namespace hnow::daemon {

namespace {
double since(TimePoint start, std::optional<TimePoint> t) { return t ? seconds(*t - start) : 0.0; }
}  // namespace

std::optional<RunStatus> JobService::status(std::uint64_t id) const {
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return std::nullopt;
  const Job& job = *it->second;
  RunStatus s;
  s.finished = job.finished;
  s.error = job.error;
  s.phase = job.phase;
  s.reduction = job.reductionName;
  s.units = job.offsets.empty() ? 0 : job.offsets.size() - 1;
  s.output = job.outputPath;
  s.outputSize = job.outputSize;
  if (job.plan) {
    s.algorithm = job.plan->algorithm;
    s.predictedS = job.plan->predictedSeconds + job.reductionPredictedS;
  }
  s.rounds = job.rounds;
  s.elapsedS = job.finished ? job.elapsedS : job.started == TimePoint{} ? 0.0 : seconds(clock_.now() - job.started);
  if (job.run) s.reissued = job.run->reissued();
  for (const auto& agent : job.agents) {
    RunAgentStatus a;
    a.name = agent;
    if (auto c = job.calibrated.find(agent); c != job.calibrated.end()) a.secondsPerUnit = c->second.secondsPerUnit;
    double busy = 0;
    if (job.plan)
      for (const auto& p : job.plan->shares)
        if (p.worker >= 0 && job.agents[static_cast<std::size_t>(p.worker)] == agent) {
          a.plannedUnits += p.units;
          a.shareUnits.resize(std::max<std::size_t>({a.shareUnits.size(), static_cast<std::size_t>(job.rounds),
                                                     static_cast<std::size_t>(p.round) + 1}), 0);
          a.shareUnits[static_cast<std::size_t>(p.round)] += p.units;
        }
    if (job.run) {
      const auto& attempts = job.run->attempts();
      for (std::size_t id = 0; id < attempts.size(); ++id) {
        const JobAttempt& t = attempts[id];
        if (t.agent != agent) continue;
        a.computeS += t.computeS;
        if (t.serveStart) busy += since(*t.serveStart, t.serveEnd.value_or(clock_.now()));
        busy += t.computeS;
        if (t.collectStart) busy += since(*t.collectStart, t.collectEnd.value_or(clock_.now()));
        const JobShare& share = job.run->shares()[static_cast<std::size_t>(t.share)];
        if (share.accepted == static_cast<int>(id)) a.units += share.units;
      }
    }
    for (const auto& b : job.bars)
      if (b.row == agent) busy += b.end - b.start;
    a.idleS = std::max(0.0, s.elapsedS - busy);
    s.agents.push_back(a);
  }
  if (job.plan)
    for (const auto& p : job.plan->shares)
      if (p.worker >= 0)
        s.bars.push_back({job.agents[static_cast<std::size_t>(p.worker)], "planned", p.serveStart,
                        job.reduce ? p.computeEnd : p.returnEnd});
  if (job.run)
    for (const JobAttempt& t : job.run->attempts()) {
      if (t.serveStart && t.serveEnd) s.bars.push_back({t.agent, "serve", since(job.started, t.serveStart), since(job.started, t.serveEnd)});
      if (t.serveEnd && t.computeEnd) s.bars.push_back({t.agent, "compute", since(job.started, t.serveEnd), since(job.started, t.computeEnd)});
      if (t.collectStart && t.collectEnd) s.bars.push_back({t.agent, "return", since(job.started, t.collectStart), since(job.started, t.collectEnd)});
    }
  s.bars.insert(s.bars.end(), job.bars.begin(), job.bars.end());
  return s;
}

Result<std::string> JobService::output(std::uint64_t id, std::uint64_t offset, std::size_t limit) const {
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return Error{"no such run"};
  const Job& job = *it->second;
  if (!job.finished || !job.error.empty() || job.outputPath.empty()) return Error{"this run has no output (yet)"};
  int fd = ::open(job.outputPath.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Error{"the output " + job.outputPath + " is gone"};
  std::string bytes(limit, '\0');
  ssize_t n = ::pread(fd, bytes.data(), limit, static_cast<off_t>(offset));
  ::close(fd);
  bytes.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  return bytes;
}

kj::Promise<void> ClientSessionServer::run(RunContext context) {
  if (!jobs_) transport::refuse("this hnowd cannot run jobs");
  RunRequest request = runRequestFromWire(context.getParams().getRequest());
  // What the client left empty takes hnowd's default.
  if (request.order.empty()) request.order = "auto";
  request.replicas = std::max<int>(1, request.replicas);
  if (request.blockBytes == 0) request.blockBytes = RunRequest{}.blockBytes;
  auto started = jobs_->start(std::move(request), peer_);
  if (!started) transport::refuse(started.error().message);
  context.getResults().setOperation(*started);
  return kj::READY_NOW;
}

kj::Promise<void> ClientSessionServer::runProgress(RunProgressContext context) {
  if (!jobs_) transport::refuse("this hnowd cannot run jobs");
  auto s = jobs_->status(context.getParams().getOperation());
  if (!s) transport::refuse("no such run");
  toWire(*s, context.getResults().initReport());
  return kj::READY_NOW;
}

kj::Promise<void> ClientSessionServer::runOutput(RunOutputContext context) {
  if (!jobs_) transport::refuse("this hnowd cannot run jobs");
  auto params = context.getParams();
  auto output = jobs_->output(params.getOperation(), params.getOffset(), 1 << 20);
  if (!output) transport::refuse(output.error().message);
  const std::string& bytes = *output;
  context.getResults().setData(capnp::Data::Reader(reinterpret_cast<const kj::byte*>(bytes.data()), bytes.size()));
  return kj::READY_NOW;
}

}  // namespace hnow::daemon
