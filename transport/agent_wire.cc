#include "transport/agent_wire.h"

namespace hnow::transport {

namespace {

capnp::Data::Reader bytesOf(const std::string& s) {
  return capnp::Data::Reader(reinterpret_cast<const kj::byte*>(s.data()), s.size());
}
std::string textOf(capnp::Data::Reader d) { return std::string(reinterpret_cast<const char*>(d.begin()), d.size()); }

Result<void> checkToken(capnp::Data::Reader token) {
  if (token.size() != wire::TOKEN_BYTES) return Error{"an operation token is 32 bytes"};
  return {};
}
Result<void> checkDigest(capnp::Data::Reader sha256) {
  if (sha256.size() != 32) return Error{"a SHA-256 is 32 bytes"};
  return {};
}

}  // namespace

void toWire(const ReceiveOrder& order, wire::ReceiveOrder::Builder out) {
  out.setToken(bytesOf(order.token));
  out.setDest(order.dest);
  out.setSize(order.size);
  out.setSha256(bytesOf(order.sha256));
}

Result<ReceiveOrder> receiveOrderFromWire(wire::ReceiveOrder::Reader in) {
  if (auto ok = checkToken(in.getToken()); !ok) return ok.error();
  if (auto ok = checkDigest(in.getSha256()); !ok) return ok.error();
  return ReceiveOrder{textOf(in.getToken()), in.getDest(), in.getSize(), textOf(in.getSha256())};
}

void toWire(const JobFileOrder& order, wire::JobInput::Builder out) {
  out.setToken(bytesOf(order.token));
  out.setSize(order.size);
  out.setSha256(bytesOf(order.sha256));
  out.setSource(order.source);
}

Result<JobFileOrder> jobFileFromWire(wire::JobInput::Reader in) {
  if (auto ok = checkToken(in.getToken()); !ok) return ok.error();
  if (auto ok = checkDigest(in.getSha256()); !ok) return ok.error();
  return JobFileOrder{textOf(in.getToken()), in.getSize(), textOf(in.getSha256()), in.getSource()};
}

void toWire(const JobTaskOrder& order, wire::JobTask::Builder out) {
  auto inputs = out.initInputs(static_cast<unsigned>(order.inputs.size()));
  for (unsigned i = 0; i < inputs.size(); ++i) inputs.set(i, bytesOf(order.inputs[i]));
  auto argv = out.initArgv(static_cast<unsigned>(order.argv.size()));
  for (unsigned i = 0; i < argv.size(); ++i) argv.set(i, order.argv[i]);
  out.setResultToken(bytesOf(order.resultToken));
}

Result<JobTaskOrder> jobTaskFromWire(wire::JobTask::Reader in) {
  if (auto ok = checkToken(in.getResultToken()); !ok) return ok.error();
  JobTaskOrder order;
  for (auto t : in.getInputs()) order.inputs.push_back(textOf(t));
  for (auto a : in.getArgv()) order.argv.emplace_back(a);
  if (order.argv.empty()) return Error{"the command is empty"};
  order.resultToken = textOf(in.getResultToken());
  return order;
}

void toWire(const JobTaskAnswer& answer, wire::JobResult::Builder out) {
  out.setExitCode(answer.exitCode);
  out.setError(answer.commandError);
  out.setSize(answer.size);
  out.setSha256(bytesOf(answer.sha256));
  out.setComputeS(answer.computeS);
  out.setRunS(answer.runS);
}

JobTaskAnswer jobTaskAnswerFromWire(wire::JobResult::Reader in) {
  JobTaskAnswer a;
  a.exitCode = in.getExitCode();
  a.commandError = in.getError();
  a.size = in.getSize();
  a.sha256 = textOf(in.getSha256());
  a.computeS = in.getComputeS();
  a.runS = in.getRunS();
  return a;
}

}  // namespace hnow::transport
