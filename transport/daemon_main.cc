#include "transport/daemon_main.h"

#include <cstdio>
#include <string_view>

namespace hnow::transport {

std::optional<std::string> configPathFromArgs(int argc, char** argv, const char* program, const char* options) {
  if (argc == 3 && (std::string_view(argv[1]) == "--config" || std::string_view(argv[1]) == "-c"))
    return std::string(argv[2]);
  std::fprintf(stderr, "usage: %s --config FILE%s\n", program, options);
  return std::nullopt;
}

}  // namespace hnow::transport
