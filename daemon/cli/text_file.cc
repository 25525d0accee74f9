#include "cli/text_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include <unistd.h>

namespace hnow::cli {

Result<void> writeFileAtomically(const std::string& path, const std::string& contents) {
  const std::string temp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) return Error{"cannot write " + path + ": " + std::strerror(errno)};
    out << contents;
    out.flush();
    if (!out) {
      std::remove(temp.c_str());
      return Error{"cannot write " + path + ": " + std::strerror(errno)};
    }
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    std::string why = std::strerror(errno);
    std::remove(temp.c_str());
    return Error{"cannot write " + path + ": " + why};
  }
  return {};
}

}  // namespace hnow::cli
