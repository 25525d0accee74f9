#pragma once
// The one codec of a send's and a manifest's reports (transport/control.capnp
// SendReport, ManifestReport): hnowd's sessions write them, the CLI reads
// them, both through these pairs, so a field cannot be added on one side only.
#include <capnp/list.h>

#include <vector>

#include "core/manifest_status.h"
#include "core/send_operation.h"
#include "transport/control.capnp.h"

namespace hnow::daemon {

void toWire(const std::vector<PlanOption>& options, capnp::List<wire::PlanOption>::Builder out);
std::vector<PlanOption> planOptionsFromWire(capnp::List<wire::PlanOption>::Reader in);

void toWire(const SendStatus& status, wire::SendReport::Builder out);
SendStatus sendStatusFromWire(wire::SendReport::Reader in);

void toWire(const ManifestStatus& status, wire::ManifestReport::Builder out);
ManifestStatus manifestStatusFromWire(wire::ManifestReport::Reader in);

}  // namespace hnow::daemon
