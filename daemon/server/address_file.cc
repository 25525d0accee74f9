#include "server/address_file.h"

#include <fstream>

namespace hnow::daemon {

bool writeAddressFile(const std::filesystem::path& path, const std::string& address) {
  auto temporary = path;
  temporary += ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << address << "\n";
    if (!out.flush()) return false;
  }
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  return !error;
}

}  // namespace hnow::daemon
