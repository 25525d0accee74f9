#include "api/run_wire.h"

#include <capnp/message.h>
#include <capnp/serialize-packed.h>
#include <kj/io.h>

#include "api/run_request_bytes.h"

#include <algorithm>

namespace hnow::api {

namespace {

void textsToWire(const std::vector<std::string>& values, capnp::List<capnp::Text>::Builder out) {
  for (std::size_t i = 0; i < values.size(); ++i) out.set(static_cast<unsigned>(i), values[i]);
}

std::vector<std::string> textsFromWire(capnp::List<capnp::Text>::Reader in) {
  std::vector<std::string> out;
  for (auto t : in) out.emplace_back(t);
  return out;
}

// The wire holds replicas and rounds in a byte each (at most 100 rounds are allowed).
std::uint8_t byteOf(int n) { return static_cast<std::uint8_t>(std::clamp(n, 0, 255)); }

}  // namespace

void toWire(const RunRequest& r, wire::RunRequest::Builder out) {
  out.setInput(r.input);
  out.setSplit(r.split);
  textsToWire(r.argv, out.initArgv(static_cast<unsigned>(r.argv.size())));
  out.setCommand(r.command);
  textsToWire(r.to, out.initTo(static_cast<unsigned>(r.to.size())));
  out.setOrder(r.order);
  textsToWire(r.reduceArgv, out.initReduceArgv(static_cast<unsigned>(r.reduceArgv.size())));
  out.setOutput(r.output);
  out.setSlack(r.slack);
  out.setStrategy(r.strategy);
  out.setBlockBytes(r.blockBytes);
  out.setReplicas(byteOf(r.replicas));
  out.setRounds(byteOf(r.rounds));
  out.setMaxRateBytesPerS(r.maxRateBytesPerSecond);
  out.setShell(r.shell);
  out.setPriority(r.priority);
  out.setAdaptiveReplicas(r.adaptiveReplicas);
}

RunRequest runRequestFromWire(wire::RunRequest::Reader in) {
  RunRequest r;
  r.input = in.getInput();
  r.split = in.getSplit();
  r.argv = textsFromWire(in.getArgv());
  r.command = in.getCommand();
  r.to = textsFromWire(in.getTo());
  r.order = in.getOrder();
  r.reduceArgv = textsFromWire(in.getReduceArgv());
  r.output = in.getOutput();
  r.slack = in.getSlack();
  r.strategy = in.getStrategy();
  r.blockBytes = in.getBlockBytes();
  r.replicas = in.getReplicas();
  r.rounds = in.getRounds();
  r.maxRateBytesPerSecond = in.getMaxRateBytesPerS();
  r.shell = in.getShell();
  r.priority = in.getPriority();
  r.adaptiveReplicas = in.getAdaptiveReplicas();
  return r;
}

void toWire(const RunStatus& s, wire::RunReport::Builder out) {
  out.setFinished(s.finished);
  out.setError(s.error);
  out.setAlgorithm(s.algorithm);
  out.setPredictedS(s.predictedS);
  out.setElapsedS(s.elapsedS);
  out.setReissued(static_cast<std::uint32_t>(s.reissued));
  out.setUnits(s.units);
  out.setOutputSize(s.outputSize);
  out.setOutput(s.output);
  out.setPhase(s.phase);
  out.setReduction(s.reduction);
  out.setRounds(static_cast<std::uint32_t>(s.rounds));
  out.setMaxRateBytesPerS(s.maxRateBytesPerSecond);
  out.setChecked(static_cast<std::uint32_t>(s.checked));
  out.setRecord(s.record);
  out.setCancelledBy(s.cancelledBy);
  out.setAgentsWorking(static_cast<std::uint32_t>(s.agentsWorking));
  out.setWaiting(s.waiting);
  out.setPriority(s.priority);
  out.setUnitsKept(s.unitsKept);
  auto agents = out.initAgents(static_cast<unsigned>(s.agents.size()));
  for (unsigned i = 0; i < agents.size(); ++i) {
    const RunAgentStatus& a = s.agents[i];
    agents[i].setName(a.name);
    agents[i].setUnits(a.units);
    agents[i].setPlannedUnits(a.plannedUnits);
    agents[i].setComputeS(a.computeS);
    agents[i].setIdleS(a.idleS);
    agents[i].setSecondsPerUnit(a.secondsPerUnit);
    auto units = agents[i].initShareUnits(static_cast<unsigned>(a.shareUnits.size()));
    for (unsigned k = 0; k < units.size(); ++k) units.set(k, a.shareUnits[k]);
    textsToWire(a.failures, agents[i].initFailures(static_cast<unsigned>(a.failures.size())));
  }
  auto bars = out.initBars(static_cast<unsigned>(s.bars.size()));
  for (unsigned i = 0; i < bars.size(); ++i) {
    bars[i].setRow(s.bars[i].row);
    bars[i].setKind(s.bars[i].kind);
    bars[i].setStart(s.bars[i].start);
    bars[i].setEnd(s.bars[i].end);
  }
}

RunStatus runStatusFromWire(wire::RunReport::Reader in) {
  RunStatus s;
  s.finished = in.getFinished();
  s.error = in.getError();
  s.algorithm = in.getAlgorithm();
  s.predictedS = in.getPredictedS();
  s.elapsedS = in.getElapsedS();
  s.reissued = static_cast<int>(in.getReissued());
  s.units = in.getUnits();
  s.outputSize = in.getOutputSize();
  s.output = in.getOutput();
  s.phase = in.getPhase();
  s.reduction = in.getReduction();
  s.rounds = static_cast<int>(in.getRounds());
  s.maxRateBytesPerSecond = in.getMaxRateBytesPerS();
  s.checked = static_cast<int>(in.getChecked());
  s.record = in.getRecord();
  s.cancelledBy = in.getCancelledBy();
  s.agentsWorking = static_cast<int>(in.getAgentsWorking());
  s.waiting = in.getWaiting();
  s.priority = in.getPriority();
  s.unitsKept = in.getUnitsKept();
  for (auto a : in.getAgents()) {
    RunAgentStatus agent;
    agent.name = a.getName();
    agent.units = a.getUnits();
    agent.plannedUnits = a.getPlannedUnits();
    agent.computeS = a.getComputeS();
    agent.idleS = a.getIdleS();
    agent.secondsPerUnit = a.getSecondsPerUnit();
    for (auto u : a.getShareUnits()) agent.shareUnits.push_back(u);
    agent.failures = textsFromWire(a.getFailures());
    s.agents.push_back(std::move(agent));
  }
  for (auto b : in.getBars()) s.bars.push_back({b.getRow(), b.getKind(), b.getStart(), b.getEnd()});
  return s;
}

// A queued or resumed job's request as state.db keeps it (api/run_request_bytes.h).
std::string encodeRunRequest(const RunRequest& request) {
  capnp::MallocMessageBuilder message;
  toWire(request, message.initRoot<wire::RunRequest>());
  kj::VectorOutputStream out;
  capnp::writePackedMessage(out, message);
  auto bytes = out.getArray();
  return std::string(reinterpret_cast<const char*>(bytes.begin()), bytes.size());
}

Result<RunRequest> decodeRunRequest(const std::string& bytes) {
  RunRequest request;
  auto failure = kj::runCatchingExceptions([&] {
    kj::ArrayInputStream in(kj::arrayPtr(reinterpret_cast<const kj::byte*>(bytes.data()), bytes.size()));
    capnp::PackedMessageReader message(in);
    request = runRequestFromWire(message.getRoot<wire::RunRequest>());
  });
  if (failure != nullptr) return Error{"a queued run's request in state.db cannot be read (" + std::to_string(bytes.size()) + " bytes)"};
  return request;
}

}  // namespace hnow::api
