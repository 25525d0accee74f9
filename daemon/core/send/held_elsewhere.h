#pragma once
// A single file an agent holds under another path of its destination's
// root (docs/send.md, "Under another path"): its --dest is written from
// that copy on the agent's own disk, checked against the file's SHA-256,
// instead of sent.
#include <string>
#include <vector>

#include "api/send_status.h"
#include "core/operation_log.h"

namespace hnow::daemon {

using api::HeldElsewhere;  // the report's (api/send_status.h)

// The send record's field: `,"copied_here":[{"agent":A,"from":PATH},...]`, "" for none.
inline std::string copiedHereField(const std::vector<HeldElsewhere>& copies) {
  if (copies.empty()) return "";
  std::string out = ",\"copied_here\":[";
  for (std::size_t i = 0; i < copies.size(); ++i)
    out += std::string(i ? "," : "") + "{\"agent\":" + jsonString(copies[i].agent) + ",\"from\":" +
           jsonString(copies[i].path) + "}";
  return out + "]";
}

}  // namespace hnow::daemon
