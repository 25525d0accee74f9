#pragma once
// A list as messages and logs write it: "a, b, c".
#include <string>
#include <vector>

namespace hnow {

inline std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

}  // namespace hnow
