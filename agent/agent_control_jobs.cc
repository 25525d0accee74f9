#include "agent/agent_control.h"

#include "agent/job_runner.h"
#include "transport/agent_wire.h"
#include "transport/rpc_errors.h"
#include "transport/wire_bytes.h"

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

namespace {

// The task's outcome as the call's answer; its Error as the failed call.
template <typename Context>
kj::Promise<void> answerTask(LaterResult<TaskOutcome> later, Context context) {
  return later.then([context](kj::Own<Result<TaskOutcome>> ran) mutable {
    const TaskOutcome outcome = transport::valueOrRefuse(std::move(*ran));
    transport::toWire(transport::orders::JobTaskAnswer{outcome.exitCode, outcome.ended, outcome.size, outcome.sha256,
                                                       outcome.computeS, outcome.runS, outcome.refused,
                                                       outcome.limited},
                      context.getResults().initResult());
  });
}

}  // namespace

kj::Promise<void> AgentControlServer::runJobTask(RunJobTaskContext context) {
  auto task = transport::valueOrRefuse(transport::jobTaskFromWire(context.getParams().getTask()));
  return answerTask(transport::valueOrRefuse(jobs())->run(std::move(task.inputs), std::move(task.argv),
                                                          task.resultToken, runtime_.emulation().computeFactor,
                                                          task.shell, task.run),
                    context);
}

kj::Promise<void> AgentControlServer::awaitJobTask(AwaitJobTaskContext context) {
  const std::string token = tokenOf(context.getParams().getResultToken());
  if (token.size() != 32) transport::refuse("awaitJobTask: the result token is 32 bytes");
  return answerTask(transport::valueOrRefuse(jobs())->outcome(token), context);
}

kj::Promise<void> AgentControlServer::heldJobTasks(HeldJobTasksContext context) {
  runtime_.jobsClaimed();
  JobRunner* runner = runtime_.jobs();
  const auto held = runner ? runner->endedTasks() : std::vector<JobRunner::HeldFile>{};
  auto list = context.getResults().initHeld(static_cast<unsigned>(held.size()));
  for (unsigned i = 0; i < list.size(); ++i) {
    list[i].setToken(transport::dataOf(held[i].token));
    list[i].setTask(true);
    list[i].setEnded(true);
  }
  return kj::READY_NOW;
}

kj::Promise<void> AgentControlServer::keepJobFiles(KeepJobFilesContext context) {
  std::vector<std::string> tokens;
  for (auto t : context.getParams().getTokens()) tokens.push_back(tokenOf(t));
  runtime_.jobsClaimed();
  JobRunner* runner = runtime_.jobs();
  if (!runner) return kj::READY_NOW;  // no data root: it holds nothing
  const auto kept = runner->keepOnly(tokens);
  auto list = context.getResults().initHeld(static_cast<unsigned>(kept.size()));
  for (unsigned i = 0; i < list.size(); ++i) {
    list[i].setToken(transport::dataOf(kept[i].token));
    list[i].setTask(kept[i].task);
    list[i].setEnded(kept[i].ended);
  }
  return kj::READY_NOW;
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
