#include "transport/daemon_main.h"

namespace hnow::transport {

const char* hnowVersion() { return HNOW_VERSION; }

void describeDaemon(CLI::App& app, const char* program, std::string& configPath) {
  app.name(program);
  app.add_option("-c,--config", configPath, std::string("its settings file (") + program + ".toml)")
      ->required();
  app.set_version_flag("--version", std::string(program) + " " + hnowVersion());
}

std::optional<int> exitInsteadOfRunning(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
    return std::nullopt;
  } catch (const CLI::ParseError& e) {
    // --help and --version are "successes"; anything else is a usage error.
    return app.exit(e) == 0 ? 0 : 2;
  }
}

}  // namespace hnow::transport
