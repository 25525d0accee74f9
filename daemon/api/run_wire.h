#pragma once
// The one codec of `hnow run` (transport/run.capnp RunRequest,
// RunReport): the CLI writes requests and reads reports, hnowd's sessions
// the other way round, both through these pairs.
#include "api/run.h"
#include "transport/run.capnp.h"

namespace hnow::api {

void toWire(const RunRequest& request, wire::RunRequest::Builder out);
// As sent: the defaults of fields left empty are hnowd's to apply.
RunRequest runRequestFromWire(wire::RunRequest::Reader in);

void toWire(const RunStatus& status, wire::RunReport::Builder out);
RunStatus runStatusFromWire(wire::RunReport::Reader in);

}  // namespace hnow::api
