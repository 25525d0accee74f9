#pragma once
// The one codec of `hnow send --manifest` (transport/send.capnp
// ManifestRequest, ManifestReport): the CLI writes requests and reads
// reports, hnowd's sessions the other way round, both through these pairs.
#include "api/manifest.h"
#include "transport/send.capnp.h"

namespace hnow::api {

void toWire(const ManifestRequest& request, wire::ManifestRequest::Builder out);
// As sent, but an empty algo is "auto" and an item without a place in the
// manifest is named by its position ("#2"). Refuses (kj) a max rate that is
// not finite or negative.
ManifestRequest manifestRequestFromWire(wire::ManifestRequest::Reader in);

void toWire(const ManifestStatus& status, wire::ManifestReport::Builder out);
ManifestStatus manifestStatusFromWire(wire::ManifestReport::Reader in);

}  // namespace hnow::api
