#pragma once
// The codec of a tree send's parts of the reports (transport/copies.capnp
// TreeOutcome, send.capnp TreeSummary): what an agent published, what hnowd packed.
#include "api/tree_status.h"
#include "transport/copies.capnp.h"
#include "transport/send.capnp.h"

namespace hnow::api {

void toWire(const TreeOutcome& outcome, wire::TreeOutcome::Builder out);
// At most kMaxPathProblems problems are kept, whatever a peer sent.
TreeOutcome treeOutcomeFromWire(wire::TreeOutcome::Reader in);
void toWire(const TreeSummary& summary, wire::TreeSummary::Builder out);
TreeSummary treeSummaryFromWire(wire::TreeSummary::Reader in);

}  // namespace hnow::api
