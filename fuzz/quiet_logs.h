#pragma once
// hnowd logs every refused peer (a warning per connection): right for a
// daemon, noise at thousands of inputs a second. Errors still show.
#include <spdlog/spdlog.h>

namespace hnow::fuzz {

inline void quietLogs() { spdlog::set_level(spdlog::level::err); }

}  // namespace hnow::fuzz
