#include "agent/agent_control.h"

#include "agent/job_runner.h"
#include "transport/agent_wire.h"
#include "transport/rpc_errors.h"

namespace hnow::agent {

Result<JobRunner*> AgentControlServer::jobs() {
  if (JobRunner* jobs = runtime_.jobs()) return jobs;
  return Error{"this agent has no data root, so it cannot run jobs"};
}

kj::Promise<void> AgentControlServer::fetchJobFile(FetchJobFileContext context) {
  auto file = transport::valueOrRefuse(transport::jobFileFromWire(context.getParams().getInput()));
  return transport::valueOrRefuse(jobs())
      ->fetch(file.token, file.size, digestOf(file.sha256), file.source)
      .then([](kj::Own<Result<void>> fetched) { transport::okOrRefuse(*fetched); });
}

kj::Promise<void> AgentControlServer::runJobTask(RunJobTaskContext context) {
  auto task = transport::valueOrRefuse(transport::jobTaskFromWire(context.getParams().getTask()));
  return transport::valueOrRefuse(jobs())
      ->run(std::move(task.inputs), std::move(task.argv), task.resultToken, runtime_.emulation().computeFactor,
            task.shell, task.run)
      .then([context](kj::Own<Result<TaskOutcome>> ran) mutable {
        const TaskOutcome outcome = transport::valueOrRefuse(std::move(*ran));
        transport::toWire(transport::orders::JobTaskAnswer{outcome.exitCode, outcome.ended, outcome.size,
                                                           outcome.sha256, outcome.computeS, outcome.runS,
                                                           outcome.refused, outcome.limited},
                          context.getResults().initResult());
      });
}

kj::Promise<void> AgentControlServer::offerFile(OfferFileContext context) {
  auto params = context.getParams();
  const std::string token = tokenOf(params.getToken()), ticket = tokenOf(params.getTicket());
  if (token.size() != 32 || ticket.size() != 32) transport::refuse("offerFile: token and ticket are 32 bytes each");
  return transport::valueOrRefuse(jobs())->offer(token, ticket, params.getAddress()).then([](kj::Own<Result<void>> offered) {
    transport::okOrRefuse(*offered);
  });
}

kj::Promise<void> AgentControlServer::dropJobFiles(DropJobFilesContext context) {
  std::vector<std::string> tokens;
  for (auto t : context.getParams().getTokens()) tokens.push_back(tokenOf(t));
  transport::valueOrRefuse(jobs())->drop(tokens);
  return kj::READY_NOW;
}

}  // namespace hnow::agent
