#pragma once
// The JSON the web view's page polls (docs/web-view.md): hnowd's agents and
// operations, and one operation's copies or shares per agent, read through
// status_views.h. Strings from agents go out as JSON strings; the page puts
// them into the document as text, never as markup.
#include <optional>
#include <string>

#include "base/result.h"
#include "server/status_views.h"

namespace hnow::daemon {

// The agents (site, state, rates, trust flags), rooms and the newest
// `recent` operation records with their progress.
std::string webStatusJson(const StatusSources& from, std::size_t recent);

// Operation `record`: its record and, while hnowd still holds it, a send's
// copies per agent or a job's shares per agent. None: no such record.
std::optional<std::string> webOperationJson(const StatusSources& from, OperationId record);

// The picture of send `record` as SVG (api::renderSendPicture): the live
// one while hnowd holds the send, else the one kept in its record. An error
// says why there is none (no such record, not a send, none kept).
Result<std::string> webSendPictureSvg(const StatusSources& from, OperationId record);

}  // namespace hnow::daemon
