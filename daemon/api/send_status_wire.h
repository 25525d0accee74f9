#pragma once
// The one codec of a send's report (transport/send.capnp SendReport):
// hnowd's sessions write it, the CLI reads it, both through these pairs, so
// a field cannot be added on one side only. A manifest's report holds one
// per item (manifest_wire.h).
#include <capnp/list.h>

#include <vector>

#include "api/send_status.h"
#include "transport/send.capnp.h"

namespace hnow::api {

void toWire(const std::vector<PlanOption>& options, capnp::List<wire::PlanOption>::Builder out);
std::vector<PlanOption> planOptionsFromWire(capnp::List<wire::PlanOption>::Reader in);

void toWire(const SendStatus& status, wire::SendReport::Builder out);
SendStatus sendStatusFromWire(wire::SendReport::Reader in);

}  // namespace hnow::api
