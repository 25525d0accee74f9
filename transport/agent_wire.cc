#include "transport/agent_wire.h"

#include <cmath>

#include "transport/data/chunk_digests.h"
#include "transport/wire_bytes.h"

namespace hnow::transport {

using orders::JobFileOrder;
using orders::JobTaskAnswer;
using orders::JobTaskOrder;
using orders::ReceiveOrder;
using orders::StripeOrder;

namespace {


Result<void> checkToken(capnp::Data::Reader token) {
  if (token.size() != wire::TOKEN_BYTES) return Error{"an operation token is 32 bytes"};
  return {};
}
Result<void> checkDigest(capnp::Data::Reader sha256) {
  if (sha256.size() != 32) return Error{"a SHA-256 is 32 bytes"};
  return {};
}

// As many piece digests as the chunks cut the file (or each stripe) into.
Result<void> checkPieces(const ReceiveOrder& order) {
  using namespace transport::data;
  const std::uint32_t chunk = order.digestChunkBytes;
  bool stripePieces = false;
  for (const StripeOrder& s : order.stripes) stripePieces = stripePieces || !s.pieceDigests.empty();
  if (chunk == 0) {
    if (order.pieceDigests.empty() && !stripePieces) return {};
    return Error{"piece digests without the chunk they cut"};
  }
  if (!digestChunkOk(chunk)) return Error{"a digest chunk is 4 KiB to 128 KiB, a multiple of 32 bytes"};
  auto fits = [chunk](std::uint64_t bytes, const std::string& pieces) {
    return pieces.size() == pieceCount(bytes, chunk) * kDigestBytes;
  };
  if (!order.stripes.empty()) {
    if (!order.pieceDigests.empty()) return Error{"a striped file's pieces come with its stripes"};
    for (const StripeOrder& s : order.stripes)
      if (!fits(s.length, s.pieceDigests))
        return Error{"the stripe at byte " + std::to_string(s.offset) + " lists " +
                     std::to_string(s.pieceDigests.size() / kDigestBytes) + " piece digests, not " +
                     std::to_string(pieceCount(s.length, chunk))};
    return {};
  }
  if (!fits(order.size, order.pieceDigests))
    return Error{"the file lists " + std::to_string(order.pieceDigests.size() / kDigestBytes) +
                 " piece digests, not " + std::to_string(pieceCount(order.size, chunk))};
  return {};
}

}  // namespace

void toWire(const orders::CopyOptions& copy, wire::CopyOptions::Builder out) {
  out.setAtomic(copy.atomic);
  out.setDeleteOthers(copy.deleteOthers);
}

orders::CopyOptions copyOptionsFromWire(wire::CopyOptions::Reader in) {
  orders::CopyOptions copy;
  copy.atomic = in.getAtomic();
  copy.deleteOthers = in.getDeleteOthers();
  return copy;
}

void toWire(const ReceiveOrder& order, wire::ReceiveOrder::Builder out) {
  out.setToken(dataOf(order.token));
  out.setDest(order.dest);
  out.setSize(order.size);
  out.setSha256(dataOf(order.sha256));
  out.setStripeChunkBytes(order.stripeChunkBytes);
  out.setUplinkPaceBytesPerSecond(order.uplinkPaceBytesPerSecond);
  out.setDownlinkPaceBytesPerSecond(order.downlinkPaceBytesPerSecond);
  out.setTree(order.tree);
  toWire(order.copy, out.initCopy());
  out.setCompressed(order.compressed);
  out.setPlainSize(order.plainSize);
  out.setPlainSha256(dataOf(order.plainSha256));
  out.setDigestChunkBytes(order.digestChunkBytes);
  out.setPieceDigests(dataOf(order.pieceDigests));
  out.setOperation(order.operation);
  out.setProgressEveryMs(order.progressEveryMs);
  auto stripes = out.initStripes(static_cast<unsigned>(order.stripes.size()));
  for (unsigned i = 0; i < stripes.size(); ++i) {
    const StripeOrder& s = order.stripes[i];
    stripes[i].setToken(dataOf(s.token));
    stripes[i].setOffset(s.offset);
    stripes[i].setLength(s.length);
    stripes[i].setSha256(dataOf(s.sha256));
    stripes[i].setPieceDigests(dataOf(s.pieceDigests));
  }
}

Result<ReceiveOrder> receiveOrderFromWire(wire::ReceiveOrder::Reader in) {
  if (auto ok = checkToken(in.getToken()); !ok) return ok.error();
  if (auto ok = checkDigest(in.getSha256()); !ok) return ok.error();
  ReceiveOrder order{stringOf(in.getToken()), in.getDest(), in.getSize(), stringOf(in.getSha256()), {},
                     in.getStripeChunkBytes()};
  if (order.stripeChunkBytes != 0 && (order.stripeChunkBytes < 4096 || order.stripeChunkBytes > 128 * 1024))
    return Error{"a stripe's chunk is 4 KiB to 128 KiB"};
  order.uplinkPaceBytesPerSecond = in.getUplinkPaceBytesPerSecond();
  if (!std::isfinite(order.uplinkPaceBytesPerSecond) || order.uplinkPaceBytesPerSecond < 0)
    return Error{"an uplink pace is a finite rate, 0 or more"};
  order.downlinkPaceBytesPerSecond = in.getDownlinkPaceBytesPerSecond();
  if (!std::isfinite(order.downlinkPaceBytesPerSecond) || order.downlinkPaceBytesPerSecond < 0)
    return Error{"a downlink pace is a finite rate, 0 or more"};
  order.tree = in.getTree();
  order.copy = copyOptionsFromWire(in.getCopy());
  if (order.copy.atomic && !order.tree) return Error{"only a tree is published atomically"};
  if (order.copy.deleteOthers && (!order.tree || order.copy.atomic))
    return Error{"only a tree published file by file removes what it does not name"};
  order.compressed = in.getCompressed();
  if (order.compressed) {
    if (in.getPlainSha256().size() != 32) return Error{"a compressed file's plain SHA-256 is 32 bytes"};
    order.plainSize = in.getPlainSize();
    order.plainSha256 = stringOf(in.getPlainSha256());
  }
  if (in.getStripes().size() > wire::MAX_STRIPES)
    return Error{"a file comes in at most " + std::to_string(wire::MAX_STRIPES) + " stripes"};
  std::uint64_t next = 0;
  for (auto s : in.getStripes()) {
    if (auto ok = checkToken(s.getToken()); !ok) return ok.error();
    if (auto ok = checkDigest(s.getSha256()); !ok) return ok.error();
    if (stringOf(s.getToken()) == order.token) return Error{"a stripe's token is the file's"};
    for (const StripeOrder& earlier : order.stripes)
      if (earlier.token == stringOf(s.getToken())) return Error{"two stripes share a token"};
    // In order, end to end: every byte of the file is in exactly one stripe.
    if (s.getOffset() != next || s.getLength() == 0 || s.getLength() > order.size - next)
      return Error{"the stripes must cover the file in order, end to end (stripe at byte " +
                   std::to_string(s.getOffset()) + ")"};
    next += s.getLength();
    order.stripes.push_back(
        {stringOf(s.getToken()), s.getOffset(), s.getLength(), stringOf(s.getSha256()), stringOf(s.getPieceDigests())});
  }
  if (!order.stripes.empty() && next != order.size) return Error{"the stripes end before the file does"};
  order.digestChunkBytes = in.getDigestChunkBytes();
  order.pieceDigests = stringOf(in.getPieceDigests());
  if (auto ok = checkPieces(order); !ok) return ok.error();
  // A name for messages only: a longer one is cut, never a reason to refuse.
  order.operation = std::string(in.getOperation()).substr(0, 200);
  order.progressEveryMs = in.getProgressEveryMs();
  return order;
}

void toWire(const JobFileOrder& order, wire::JobInput::Builder out) {
  out.setToken(dataOf(order.token));
  out.setSize(order.size);
  out.setSha256(dataOf(order.sha256));
  out.setSource(order.source);
}

Result<JobFileOrder> jobFileFromWire(wire::JobInput::Reader in) {
  if (auto ok = checkToken(in.getToken()); !ok) return ok.error();
  if (auto ok = checkDigest(in.getSha256()); !ok) return ok.error();
  return JobFileOrder{stringOf(in.getToken()), in.getSize(), stringOf(in.getSha256()), in.getSource()};
}

void toWire(const JobTaskOrder& order, wire::JobTask::Builder out) {
  auto inputs = out.initInputs(static_cast<unsigned>(order.inputs.size()));
  for (unsigned i = 0; i < inputs.size(); ++i) inputs.set(i, dataOf(order.inputs[i]));
  auto argv = out.initArgv(static_cast<unsigned>(order.argv.size()));
  for (unsigned i = 0; i < argv.size(); ++i) argv.set(i, order.argv[i]);
  out.setResultToken(dataOf(order.resultToken));
  out.setShell(order.shell);
  out.setRun(order.run);
}

Result<JobTaskOrder> jobTaskFromWire(wire::JobTask::Reader in) {
  if (auto ok = checkToken(in.getResultToken()); !ok) return ok.error();
  JobTaskOrder order;
  for (auto t : in.getInputs()) order.inputs.push_back(stringOf(t));
  for (auto a : in.getArgv()) order.argv.emplace_back(a);
  if (order.argv.empty()) return Error{"the command is empty"};
  order.resultToken = stringOf(in.getResultToken());
  order.shell = in.getShell();
  order.run = in.getRun();
  return order;
}

void toWire(const JobTaskAnswer& answer, wire::JobResult::Builder out) {
  out.setExitCode(answer.exitCode);
  // The wire's text field: empty when the command succeeded.
  out.setError(answer.ended ? std::string() : answer.ended.error().message);
  out.setSize(answer.size);
  out.setSha256(dataOf(answer.sha256));
  out.setComputeS(answer.computeS);
  out.setRunS(answer.runS);
  out.setRefused(answer.refused);
  out.setLimited(answer.limited);
}

JobTaskAnswer jobTaskAnswerFromWire(wire::JobResult::Reader in) {
  JobTaskAnswer a;
  a.exitCode = in.getExitCode();
  if (in.getError().size() > 0) a.ended = Error{in.getError()};
  a.size = in.getSize();
  a.sha256 = stringOf(in.getSha256());
  a.computeS = in.getComputeS();
  a.runS = in.getRunS();
  a.refused = in.getRefused();
  a.limited = in.getLimited();
  return a;
}

}  // namespace hnow::transport
