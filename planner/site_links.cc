#include "planner/site_links.h"

#include <map>

namespace hnow::planner {

std::vector<int> siteIndices(std::span<const std::string> labels) {
  std::map<std::string, int> index;
  std::vector<int> out;
  out.reserve(labels.size());
  for (const std::string& label : labels) {
    auto [it, added] = index.emplace(label, static_cast<int>(index.size()));
    out.push_back(it->second);
  }
  return out;
}

}  // namespace hnow::planner
