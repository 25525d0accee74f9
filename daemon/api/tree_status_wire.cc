#include "api/tree_status_wire.h"

#include <algorithm>
#include <vector>

namespace hnow::api {

namespace {

void problemsToWire(const std::vector<PathProblem>& problems, capnp::List<wire::PathProblem>::Builder out) {
  for (unsigned i = 0; i < out.size(); ++i) {
    out[i].setPath(problems[i].path);
    out[i].setWhy(problems[i].why);
  }
}

std::vector<PathProblem> problemsFromWire(capnp::List<wire::PathProblem>::Reader in) {
  std::vector<PathProblem> out;
  for (auto p : in) {
    if (out.size() == kMaxPathProblems) break;
    out.push_back({p.getPath(), p.getWhy()});
  }
  return out;
}

unsigned listed(const std::vector<PathProblem>& problems) {
  return static_cast<unsigned>(std::min(problems.size(), kMaxPathProblems));
}

}  // namespace

void toWire(const TreeOutcome& o, wire::TreeOutcome::Builder out) {
  out.setFiles(o.files);
  out.setBytes(o.bytes);
  out.setReplaced(o.replaced);
  out.setFailedCount(o.failedCount);
  problemsToWire(o.failed, out.initFailed(listed(o.failed)));
  out.setHeld(o.held);
  out.setDeleted(o.deleted);
  out.setCopied(o.copied);
}

TreeOutcome treeOutcomeFromWire(wire::TreeOutcome::Reader in) {
  TreeOutcome o;
  o.files = in.getFiles();
  o.bytes = in.getBytes();
  o.replaced = in.getReplaced();
  o.failed = problemsFromWire(in.getFailed());
  o.failedCount = std::max<std::uint64_t>(in.getFailedCount(), o.failed.size());
  o.held = in.getHeld();
  o.deleted = in.getDeleted();
  o.copied = in.getCopied();
  return o;
}

void toWire(const TreeSummary& s, wire::TreeSummary::Builder out) {
  out.setEntries(s.entries);
  out.setFiles(s.files);
  out.setFileBytes(s.fileBytes);
  out.setAtomic(s.atomic);
  out.setRefusedCount(s.refusedCount);
  problemsToWire(s.refused, out.initRefused(listed(s.refused)));
  out.setSentFiles(s.sentFiles);
  out.setSentBytes(s.sentBytes);
  out.setDeleteOthers(s.deleteOthers);
  out.setQueryBytes(s.queryBytes);
}

TreeSummary treeSummaryFromWire(wire::TreeSummary::Reader in) {
  TreeSummary s;
  s.entries = in.getEntries();
  s.files = in.getFiles();
  s.fileBytes = in.getFileBytes();
  s.atomic = in.getAtomic();
  s.refused = problemsFromWire(in.getRefused());
  s.refusedCount = std::max<std::uint64_t>(in.getRefusedCount(), s.refused.size());
  s.sentFiles = in.getSentFiles();
  s.sentBytes = in.getSentBytes();
  s.deleteOthers = in.getDeleteOthers();
  s.queryBytes = in.getQueryBytes();
  return s;
}

}  // namespace hnow::api
