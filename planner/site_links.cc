#include "planner/site_links.h"

#include <algorithm>
#include <limits>
#include <map>

namespace hnow::planner {

Trunk SiteLinks::trunkOf(int site) const {
  if (site < 0 || site >= static_cast<int>(trunks.size())) return {};
  return trunks[site];
}

bool SiteLinks::hasTrunkLimits() const {
  return std::any_of(trunks.begin(), trunks.end(),
                     [](const Trunk& t) { return t.limitsIn() || t.limitsOut(); });
}

int SiteLinks::limitedCrossings(int from, int to) const {
  if (!crossesSites(from, to)) return 0;
  return planner::limitedCrossings(trunkOf(siteOf[from]), trunkOf(siteOf[to]));
}

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

TrunkLoad::TrunkLoad(const SiteLinks& sites) : sites_(sites) {
  int count = static_cast<int>(sites.trunks.size());
  for (int s : sites.siteOf) count = std::max(count, s + 1);
  out_.assign(count, 0);
  in_.assign(count, 0);
}

void TrunkLoad::count(int from, int to, int delta) {
  if (!sites_.crossesSites(from, to)) return;
  out_[sites_.siteOf[from]] += delta;
  in_[sites_.siteOf[to]] += delta;
}

void TrunkLoad::add(int from, int to) { count(from, to, 1); }
void TrunkLoad::remove(int from, int to) { count(from, to, -1); }

int TrunkLoad::outOf(int site) const { return site >= 0 && site < static_cast<int>(out_.size()) ? out_[site] : 0; }
int TrunkLoad::into(int site) const { return site >= 0 && site < static_cast<int>(in_.size()) ? in_[site] : 0; }

double TrunkLoad::shareOf(int from, int to) const {
  double share = std::numeric_limits<double>::infinity();
  if (!sites_.crossesSites(from, to)) return share;
  const Trunk out = sites_.trunkOf(sites_.siteOf[from]);
  const Trunk in = sites_.trunkOf(sites_.siteOf[to]);
  if (out.outBytesPerSecond > 0.0)
    share = std::min(share, out.outBytesPerSecond / std::max(1, outOf(sites_.siteOf[from])));
  if (in.inBytesPerSecond > 0.0) share = std::min(share, in.inBytesPerSecond / std::max(1, into(sites_.siteOf[to])));
  return share;
}

}  // namespace hnow::planner
