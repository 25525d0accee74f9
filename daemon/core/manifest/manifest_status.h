#pragma once
// `hnow send --manifest`'s request and report (api/manifest.h), in core's
// words: ManifestService takes the one and fills the other in.
#include "api/manifest.h"

namespace hnow::daemon {

using api::ManifestItemRequest;
using api::ManifestItemStatus;
using api::ManifestRequest;
using api::ManifestStatus;

}  // namespace hnow::daemon
