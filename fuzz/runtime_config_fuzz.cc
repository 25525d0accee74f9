// The daemons' and the client's TOML configs (conf/runtime_config.h,
// dist/*.toml): any text gives a complete config or one error naming the
// file, never a crash, an exception or a half-read config.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "conf/runtime_config.h"
#include "fuzz/fuzz_check.h"

namespace {

template <class Loaded>
void checkOutcome(const Loaded& loaded, const std::string& file) {
  if (loaded.ok()) return;
  HNOW_FUZZ_CHECK(!loaded.error().message.empty(), "an error says what is wrong");
  HNOW_FUZZ_CHECK(loaded.error().file == file, "an error names the file");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // A relative base directory: paths in the file are joined to it, never opened.
  const std::string base = "etc/hnow";
  checkOutcome(hnow::conf::parseCoordinatorConfig(text, "hnowd.toml", base), "hnowd.toml");
  auto agent = hnow::conf::parseAgentConfig(text, "hnow-agent.toml", base);
  checkOutcome(agent, "hnow-agent.toml");
  if (agent.ok()) HNOW_FUZZ_CHECK(!agent->coordinator.empty(), "an agent knows where hnowd is");
  checkOutcome(hnow::conf::parseClientConfig(text, "client.toml", base), "client.toml");
  return 0;
}
