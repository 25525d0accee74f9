#include "cli/cancel_command.h"

#include <cstdio>

#include "cli/coordinator_client.h"

namespace hnow::cli {

int runCancelCommand(const std::string& configPath, std::uint64_t record) {
  int exitCode = 0;
  auto client = connectOrReport(configPath, exitCode);
  if (!client) return exitCode;
  if (auto done = client->cancel(record); !done) {
    std::fprintf(stderr, "hnow: cancel: %s\n", done.error().message.c_str());
    return 1;
  }
  std::printf("operation %llu cancelled: its agents stopped and removed their partial copies\n",
              static_cast<unsigned long long>(record));
  return 0;
}

}  // namespace hnow::cli
