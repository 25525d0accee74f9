#pragma once
// Where nodes sit and what the links between their rooms allow.
//
// Seed 001 §2 (Khuller, Kim and Wan, "Broadcasting on networks of
// workstations", 2003): a transfer inside a cluster costs the local time,
// across clusters C; its §5.1 bounded-degree model restricts how many of a
// cluster's nodes may talk outside it at once, because the network between
// clusters cannot carry everything. A room's trunk is that restriction in
// bytes: the link between the room's switch and the rest of the network (a
// building switch, a router, a WAN) has a capacity per direction, and every
// flow that crosses it shares it. Rooms hang off one core, so a flow from
// room a to room b crosses a's trunk outwards and b's inwards; a line of
// rooms A - B - C is the core at B with B's trunk unlimited.
#include <limits>
#include <span>
#include <string>
#include <vector>

namespace hnow::planner {

struct Trunk {
  double inBytesPerSecond = 0.0;   // into the room; 0 = not limited (or not known)
  double outBytesPerSecond = 0.0;  // out of the room; 0 = not limited
  // A limit: positive and finite (+infinity says "not limited" too).
  bool limitsIn() const { return inBytesPerSecond > 0.0 && inBytesPerSecond < kNoLimit; }
  bool limitsOut() const { return outBytesPerSecond > 0.0 && outBytesPerSecond < kNoLimit; }
  static constexpr double kNoLimit = std::numeric_limits<double>::infinity();
};

// The limits a flow out of a room behind `from` into a room behind `to`
// crosses: 0, 1 or 2 copies of its bytes on links that flows share.
inline int limitedCrossings(const Trunk& from, const Trunk& to) {
  return (from.limitsOut() ? 1 : 0) + (to.limitsIn() ? 1 : 0);
}

struct SiteLinks {
  std::vector<int> siteOf;                // per node; empty = every node in one site
  double crossSiteBytesPerSecond = 0.0;   // cap on one cross-site edge; 0 = no cap
  double crossSiteLatencySeconds = 0.0;   // added once per cross-site hop
  std::vector<Trunk> trunks;              // per site index; a site past its end has none

  bool crossesSites(int from, int to) const {
    return !siteOf.empty() && siteOf[from] != siteOf[to];
  }
  int siteOfNode(int node) const { return siteOf.empty() ? 0 : siteOf[node]; }
  // The site's trunk, limits 0 when it has none.
  Trunk trunkOf(int site) const;
  // Any trunk with a limit, in either direction.
  bool hasTrunkLimits() const;
  // The trunks with a limit that the edge from -> to crosses: 0, 1 (out of
  // from's room or into to's) or 2. Each is one copy of the bytes on a link
  // that flows share, the cost a plan keeps low once its time is met.
  int limitedCrossings(int from, int to) const;
};

// Site indices from labels: equal labels get equal indices, numbered in order
// of first appearance.
std::vector<int> siteIndices(std::span<const std::string> labels);

// The flows (edges p -> c moving at once) that cross each trunk, and the
// share each gets: a trunk's capacity split equally among its flows, as
// TCP splits a bottleneck among long flows.
class TrunkLoad {
 public:
  explicit TrunkLoad(const SiteLinks& sites);
  void add(int from, int to);
  void remove(int from, int to);
  // The least share of the trunks the edge crosses, counting it among the
  // flows (added or not); +infinity when it crosses none with a limit.
  double shareOf(int from, int to) const;
  // Flows counted out of / into a site.
  int outOf(int site) const;
  int into(int site) const;

 private:
  void count(int from, int to, int delta);
  const SiteLinks& sites_;
  std::vector<int> out_, in_;
};

}  // namespace hnow::planner
