#include "agent/path_parts.h"

#include <climits>
#include <cstdlib>

namespace hnow::agent {

std::vector<std::string> componentsOf(const std::string& path) {
  std::vector<std::string> parts;
  std::string part;
  for (char c : path + "/") {
    if (c != '/') {
      part += c;
      continue;
    }
    if (!part.empty() && part != ".") parts.push_back(part);
    part.clear();
  }
  return parts;
}

std::string realRoot(const std::string& root) {
  char buffer[PATH_MAX];
  return ::realpath(root.c_str(), buffer) ? std::string(buffer) : "";
}

}  // namespace hnow::agent
