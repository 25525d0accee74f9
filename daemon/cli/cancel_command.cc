#include "cli/cancel_command.h"

#include <cstdio>

#include "cli/coordinator_client.h"

namespace hnow::cli {

int runCancelCommand(const std::string& configPath, std::uint64_t record) {
  int exitCode = 0;
  auto client = connectOrReport(configPath, exitCode);
  if (!client) return exitCode;
  auto done = client->cancel(record);
  if (!done) {
    std::fprintf(stderr, "hnow: cancel: %s\n", done.error().message.c_str());
    return 1;
  }
  std::printf("%s\n", done->c_str());
  return 0;
}

}  // namespace hnow::cli
