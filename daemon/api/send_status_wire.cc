#include "api/send_status_wire.h"

#include "api/send_picture_json.h"
#include "api/tree_status_wire.h"

namespace hnow::api {

namespace {

wire::CopyState copyStateToWire(CopyStatus::State state) {
  switch (state) {
    case CopyStatus::State::kWaiting: return wire::CopyState::WAITING;
    case CopyStatus::State::kReceiving: return wire::CopyState::RECEIVING;
    case CopyStatus::State::kDone: return wire::CopyState::DONE;
    case CopyStatus::State::kFailed: return wire::CopyState::FAILED;
  }
  return wire::CopyState::WAITING;
}

CopyStatus::State copyStateFromWire(wire::CopyState state) {
  switch (state) {
    case wire::CopyState::WAITING: return CopyStatus::State::kWaiting;
    case wire::CopyState::RECEIVING: return CopyStatus::State::kReceiving;
    case wire::CopyState::DONE: return CopyStatus::State::kDone;
    case wire::CopyState::FAILED: return CopyStatus::State::kFailed;
  }
  return CopyStatus::State::kWaiting;
}

void copiesToWire(const std::vector<CopyStatus>& copies, capnp::List<wire::CopyStatus>::Builder out) {
  for (std::size_t i = 0; i < copies.size(); ++i) {
    const CopyStatus& c = copies[i];
    auto w = out[static_cast<unsigned>(i)];
    w.setNode(c.node);
    w.setParent(c.parent);
    w.setState(copyStateToWire(c.state));
    w.setBytes(c.bytes);
    w.setFinishedS(c.finishedS);
    w.setPlannedS(c.plannedS);
    w.setPath(c.path);
    w.setSha256(c.sha256);
    w.setMessage(c.message);
    w.setCorruptChunks(c.corruptChunks);
    auto parents = w.initStripeParents(static_cast<unsigned>(c.stripeParents.size()));
    for (unsigned k = 0; k < parents.size(); ++k) parents.set(k, c.stripeParents[k]);
    w.setHeldS(c.heldS);
    auto held = w.initStripeHeldS(static_cast<unsigned>(c.stripeHeldS.size()));
    for (unsigned k = 0; k < held.size(); ++k) held.set(k, c.stripeHeldS[k]);
    if (c.tree) toWire(*c.tree, w.initTree());
  }
}

void parentChangesToWire(const std::vector<ParentChange>& changes, capnp::List<wire::ParentChange>::Builder out) {
  for (std::size_t i = 0; i < changes.size(); ++i) {
    const ParentChange& c = changes[i];
    auto w = out[static_cast<unsigned>(i)];
    w.setNode(c.node);
    w.setOldParent(c.oldParent);
    w.setNewParent(c.newParent);
    w.setAtS(c.atS);
    w.setReason(c.reason);
  }
}

}  // namespace

void toWire(const std::vector<PlanOption>& options, capnp::List<wire::PlanOption>::Builder out) {
  for (std::size_t i = 0; i < options.size(); ++i) {
    auto w = out[static_cast<unsigned>(i)];
    w.setAlgo(options[i].algo);
    w.setMode(options[i].mode);
    w.setPredictedS(options[i].predictedSeconds);
  }
}

std::vector<PlanOption> planOptionsFromWire(capnp::List<wire::PlanOption>::Reader in) {
  std::vector<PlanOption> out;
  for (auto o : in) out.push_back({o.getAlgo(), o.getMode(), o.getPredictedS()});
  return out;
}

void toWire(const SendStatus& s, wire::SendReport::Builder out) {
  out.setFinished(s.finished);
  out.setAlgo(s.algo);
  out.setSize(s.size);
  out.setPredictedS(s.predictedS);
  out.setElapsedS(s.elapsedS);
  copiesToWire(s.copies, out.initCopies(static_cast<unsigned>(s.copies.size())));
  toWire(s.considered, out.initConsidered(static_cast<unsigned>(s.considered.size())));
  out.setFluidBoundS(s.fluidBoundS);
  out.setReplanning(s.replanning);
  out.setReplans(static_cast<std::uint32_t>(s.replans));
  out.setReplannedPredictedS(s.replannedPredictedS);
  auto bounds = out.initRateBounds(static_cast<unsigned>(s.rateBounds.size()));
  for (unsigned i = 0; i < bounds.size(); ++i) bounds.set(i, s.rateBounds[i]);
  parentChangesToWire(s.parentChanges, out.initParentChanges(static_cast<unsigned>(s.parentChanges.size())));
  out.setBoundS(s.boundS);
  out.setWhy(s.why);
  auto offsets = out.initStripeOffsets(static_cast<unsigned>(s.stripeOffsets.size()));
  for (unsigned k = 0; k < offsets.size(); ++k) offsets.set(k, s.stripeOffsets[k]);
  auto skipped = out.initSkipped(static_cast<unsigned>(s.skipped.size()));
  for (unsigned i = 0; i < skipped.size(); ++i) {
    skipped[i].setNode(s.skipped[i].node);
    skipped[i].setWhy(s.skipped[i].why);
  }
  if (s.tree) toWire(*s.tree, out.initTree());
  if (!s.compression.algo.empty()) {
    auto c = out.initCompression();
    c.setAlgo(s.compression.algo);
    c.setPlainBytes(s.compression.plainBytes);
    c.setSentBytes(s.compression.sentBytes);
    c.setWhy(s.compression.why);
    c.setCompressS(s.compression.compressS);
  }
  out.setMaxRateBytesPerS(s.maxRateBytesPerSecond);
  for (auto [names, list] : {std::pair{&s.held, out.initHeld(static_cast<unsigned>(s.held.size()))},
                             std::pair{&s.replaced, out.initReplaced(static_cast<unsigned>(s.replaced.size()))}})
    for (unsigned i = 0; i < list.size(); ++i) list.set(i, (*names)[i]);
  out.setSource(s.source);
  out.setRecord(s.record);
  out.setCancelledBy(s.cancelledBy);
  if (s.picture) out.setPicture(sendPictureJson(*s.picture));
  auto copied = out.initCopiedHere(static_cast<unsigned>(s.copiedHere.size()));
  for (unsigned i = 0; i < copied.size(); ++i) {
    copied[i].setAgent(s.copiedHere[i].agent);
    copied[i].setFrom(s.copiedHere[i].path);
  }
  auto groups = out.initGroups(static_cast<unsigned>(s.groups.size()));
  for (unsigned i = 0; i < groups.size(); ++i) {
    const BundleGroupStatus& g = s.groups[i];
    auto agents = groups[i].initAgents(static_cast<unsigned>(g.agents.size()));
    for (unsigned a = 0; a < agents.size(); ++a) agents.set(a, g.agents[a]);
    groups[i].setSentFiles(g.sentFiles);
    groups[i].setSentBytes(g.sentBytes);
    groups[i].setSize(g.size);
    groups[i].setAlgo(g.algo);
    groups[i].setPredictedS(g.predictedS);
    groups[i].setElapsedS(g.elapsedS);
    groups[i].setFinished(g.finished);
    groups[i].setError(g.error);
  }
}

SendStatus sendStatusFromWire(wire::SendReport::Reader in) {
  SendStatus s;
  s.finished = in.getFinished();
  s.algo = in.getAlgo();
  s.size = in.getSize();
  s.predictedS = in.getPredictedS();
  s.elapsedS = in.getElapsedS();
  s.fluidBoundS = in.getFluidBoundS();
  s.considered = planOptionsFromWire(in.getConsidered());
  for (auto c : in.getCopies()) {
    CopyStatus copy;
    copy.node = c.getNode();
    copy.parent = c.getParent();
    copy.state = copyStateFromWire(c.getState());
    copy.bytes = c.getBytes();
    copy.finishedS = c.getFinishedS();
    copy.plannedS = c.getPlannedS();
    copy.path = c.getPath();
    copy.sha256 = c.getSha256();
    copy.message = c.getMessage();
    copy.corruptChunks = c.getCorruptChunks();
    for (auto p : c.getStripeParents()) copy.stripeParents.emplace_back(p);
    copy.heldS = c.getHeldS();
    for (double t : c.getStripeHeldS()) copy.stripeHeldS.push_back(t);
    if (c.hasTree()) copy.tree = treeOutcomeFromWire(c.getTree());
    s.copies.push_back(std::move(copy));
  }
  s.replanning = in.getReplanning();
  s.replans = static_cast<int>(in.getReplans());
  s.replannedPredictedS = in.getReplannedPredictedS();
  for (auto c : in.getParentChanges())
    s.parentChanges.push_back({c.getNode(), c.getOldParent(), c.getNewParent(), c.getAtS(), c.getReason()});
  for (auto b : in.getRateBounds()) s.rateBounds.emplace_back(b);
  s.boundS = in.getBoundS();
  s.why = in.getWhy();
  for (auto o : in.getStripeOffsets()) s.stripeOffsets.push_back(o);
  for (auto k : in.getSkipped()) s.skipped.push_back({k.getNode(), k.getWhy()});
  if (in.hasTree()) s.tree = treeSummaryFromWire(in.getTree());
  if (in.hasCompression()) {
    auto c = in.getCompression();
    s.compression = {c.getAlgo(), c.getPlainBytes(), c.getSentBytes(), c.getWhy(), c.getCompressS()};
  }
  s.maxRateBytesPerSecond = in.getMaxRateBytesPerS();
  for (auto n : in.getHeld()) s.held.emplace_back(n);
  for (auto n : in.getReplaced()) s.replaced.emplace_back(n);
  s.source = in.getSource();
  s.record = in.getRecord();
  s.cancelledBy = in.getCancelledBy();
  // A picture that cannot be read is left out: the report stands without it.
  if (in.hasPicture())
    if (auto picture = sendPictureFromJson(in.getPicture().cStr())) s.picture = std::move(*picture);
  for (auto c : in.getCopiedHere()) s.copiedHere.push_back({c.getAgent(), c.getFrom()});
  for (auto g : in.getGroups()) {
    BundleGroupStatus group;
    for (auto a : g.getAgents()) group.agents.emplace_back(a);
    group.sentFiles = g.getSentFiles();
    group.sentBytes = g.getSentBytes();
    group.size = g.getSize();
    group.algo = g.getAlgo();
    group.predictedS = g.getPredictedS();
    group.elapsedS = g.getElapsedS();
    group.finished = g.getFinished();
    group.error = g.getError();
    s.groups.push_back(std::move(group));
  }
  return s;
}

}  // namespace hnow::api
