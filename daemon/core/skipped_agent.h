#pragma once
#include <string>

namespace hnow::daemon {

// An agent a send was for that could not take part (lost, disconnected),
// and why: it is listed, not passed over in silence.
struct SkippedAgent {
  std::string node;
  std::string why;
};

}  // namespace hnow::daemon
