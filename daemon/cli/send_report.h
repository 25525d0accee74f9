#pragma once
// Lines `hnow send` prints while a send runs and in its report
// (send_report.cc); the table and chart are declared in send_command.h.
#include <string>

#include "api/send_status.h"

namespace hnow::cli {

// The send's tree, or each stripe's, a line each ("tree hnowd>agent-1 ..."),
// printed on stderr as the send starts.
std::string treeLine(const api::SendStatus& s);
// One parent change as the progress shows it.
std::string changeLine(const api::ParentChange& c);

}  // namespace hnow::cli
