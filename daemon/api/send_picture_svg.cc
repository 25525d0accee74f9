#include "api/send_picture_svg.h"

#include <algorithm>
#include <map>
#include <sstream>

#include "api/picture_layout.h"
#include "api/picture_text.h"

namespace hnow::api {

namespace {

// Sizes of one tree's drawing: a tree gets room for its labels, a stripe's
// tree (one of many side by side) is drawn smaller.
struct Scale {
  double slot, row, boxWidth, boxHeight, font;
};
constexpr Scale kTree{170, 120, 150, 40, 12};
constexpr Scale kStripe{120, 100, 108, 34, 10};
constexpr double kMargin = 20, kStripeColumns = 4;
constexpr const char* kBottleneck = "#d03030";

std::string n(double x) {
  std::ostringstream s;
  s << static_cast<long long>(x * 10) / 10.0;
  return s.str();
}

// Against `planned`, what the plan expects the edge to carry: green from
// 90% of it, amber from 60%, red below; grey not known.
const char* edgeColour(const PictureEdge& e, double planned) {
  if (!e.achievedBytesPerS || planned <= 0) return "#8a94a6";
  const double share = *e.achievedBytesPerS / planned;
  return share >= 0.9 ? "#2e8b57" : share >= 0.6 ? "#d08a00" : "#c03a2b";
}

bool isBottleneck(const std::optional<PictureBottleneck>& b, const PictureEdge& e) {
  return b && b->parent == e.parent && b->child == e.child && !b->child.empty();
}

class Drawing {
 public:
  explicit Drawing(const SendPicture& p) : p_(p) {
    for (std::size_t i = 0; i < p.nodes.size(); ++i) index_[p.nodes[i].name] = static_cast<int>(i);
  }

  // One tree (stripe `stripe` of `version`) with its top left at (x, y); its size.
  std::pair<double, double> tree(const PictureVersion& version, int stripe, double x, double y, const Scale& s) {
    std::vector<int> parent(p_.nodes.size(), -1);
    std::vector<const PictureEdge*> into(p_.nodes.size(), nullptr);
    for (const PictureEdge& e : version.edges) {
      auto c = index_.find(e.child), q = index_.find(e.parent);
      if (e.stripe != stripe || c == index_.end() || q == index_.end()) continue;
      parent[static_cast<std::size_t>(c->second)] = q->second;
      into[static_cast<std::size_t>(c->second)] = &e;
    }
    const TreeLayout layout = layOutTree(parent, 0);
    const auto at = [&](std::size_t i) {
      return std::pair{x + s.slot * (layout.slot[i] + 0.5), y + s.row * layout.depth[i] + s.boxHeight / 2};
    };
    const std::vector<double> fed = fedRates(parent, into, layout);
    for (std::size_t i = 0; i < into.size(); ++i)
      if (into[i] && layout.depth[i] > 0)
        edge(*into[i], fed[i], at(static_cast<std::size_t>(parent[i])), at(i), version, s);
    for (std::size_t i = 0; i < p_.nodes.size(); ++i)
      if (layout.depth[i] >= 0) node(p_.nodes[i], at(i), version, s);
    return {s.slot * std::max(layout.slots, 1), s.row * std::max(layout.depths - 1, 0) + s.boxHeight + 34};
  }

  void text(double x, double y, const std::string& what, const std::string& attributes = "") {
    out_ << "<text x=\"" << n(x) << "\" y=\"" << n(y) << "\"" << attributes << ">" << xmlText(what) << "</text>\n";
  }
  std::ostringstream& out() { return out_; }

 private:
  // What the plan expects each edge to carry. hnow's data plane relays
  // every tree pipelined (a relay forwards bytes as they arrive, whatever
  // model planned the tree), so a child cannot receive faster than its
  // parent does: an edge carries the least planned rate on the path from
  // the source to it, and an edge under a slower one is not drawn as
  // falling short.
  std::vector<double> fedRates(const std::vector<int>& parent, const std::vector<const PictureEdge*>& into,
                               const TreeLayout& layout) const {
    std::vector<double> fed(into.size(), 0.0);
    for (std::size_t i = 0; i < into.size(); ++i)
      if (into[i]) fed[i] = into[i]->plannedBytesPerS;
    for (int depth = 2; depth < layout.depths; ++depth)  // parents (one row up) are settled first
      for (std::size_t i = 0; i < into.size(); ++i)
        if (into[i] && layout.depth[i] == depth) {
          const double above = fed[static_cast<std::size_t>(parent[i])];
          if (above > 0 && (fed[i] <= 0 || above < fed[i])) fed[i] = above;
        }
    return fed;
  }

  void edge(const PictureEdge& e, double fed, std::pair<double, double> from, std::pair<double, double> to,
            const PictureVersion& version, const Scale& s) {
    const bool bottleneck = isBottleneck(version.bottleneck, e);
    const double y1 = from.second + s.boxHeight / 2, y2 = to.second - s.boxHeight / 2;
    std::string title = e.parent + " → " + e.child + (p_.stripes > 0 ? ", stripe " + std::to_string(e.stripe + 1) : "") +
                        ": " + sizeText(static_cast<double>(e.bytes)) + " from " + secondsText(e.fromS) +
                        (e.toS > 0 ? " to " + secondsText(e.toS) : " on");
    if (fed < e.plannedBytesPerS)
      title += "; planned " + rateText(e.plannedBytesPerS) + " for this link, fed at " + rateText(fed) + " from above";
    out_ << "<g class=\"edge" << (bottleneck ? " bottleneck" : "") << (e.achievedBytesPerS ? "" : " unknown")
         << "\"><title>" << xmlText(title)
         << "</title><line x1=\"" << n(from.first) << "\" y1=\"" << n(y1) << "\" x2=\"" << n(to.first) << "\" y2=\""
         << n(y2) << "\" stroke=\"" << (bottleneck ? kBottleneck : edgeColour(e, fed)) << "\" stroke-width=\""
         << (bottleneck ? 4 : 2) << "\"" << (e.achievedBytesPerS ? "" : " stroke-dasharray=\"4,3\"") << "/>\n";
    const double mx = (from.first + to.first) / 2 + 4, my = (y1 + y2) / 2;
    const std::string planned = fed > 0 ? rateText(fed) : "?";
    const std::string achieved = e.achievedBytesPerS ? rateText(*e.achievedBytesPerS) : "?";
    text(mx, my - 2, "plan " + planned, " font-size=\"" + n(s.font - 2) + "\" fill=\"#555\"");
    text(mx, my + s.font - 2, "got " + achieved,
         " font-size=\"" + n(s.font - 2) + "\" fill=\"" + (bottleneck ? kBottleneck : edgeColour(e, fed)) + "\"");
    out_ << "</g>\n";
  }

  void node(const PictureNode& v, std::pair<double, double> at, const PictureVersion& version, const Scale& s) {
    const bool bottleneck = version.bottleneck && version.bottleneck->node == v.name;
    const double left = at.first - s.boxWidth / 2, top = at.second - s.boxHeight / 2;
    std::string rates = v.source ? "source" : "";
    if (v.uplinkBytesPerS > 0 || v.downlinkBytesPerS > 0)
      rates = (v.source ? "" : "↓" + rateText(v.downlinkBytesPerS) + " ") + "↑" + rateText(v.uplinkBytesPerS);
    out_ << "<g class=\"node" << (bottleneck ? " bottleneck" : "") << "\"><title>" << xmlText(v.name) << "</title>"
         << "<rect x=\"" << n(left) << "\" y=\"" << n(top) << "\" width=\"" << n(s.boxWidth) << "\" height=\""
         << n(s.boxHeight) << "\" rx=\"5\" fill=\"" << (v.source ? "#e8eefb" : "#f7f7f7") << "\" stroke=\""
         << (bottleneck ? kBottleneck : "#5a6475") << "\" stroke-width=\"" << (bottleneck ? 3 : 1) << "\"/>\n";
    text(at.first, top + s.font + 3, shortened(v.name, static_cast<std::size_t>(s.boxWidth / (s.font * 0.62))),
         " text-anchor=\"middle\" font-size=\"" + n(s.font) + "\" font-weight=\"bold\"");
    text(at.first, top + 2 * s.font + 7, rates, " text-anchor=\"middle\" font-size=\"" + n(s.font - 2) + "\" fill=\"#333\"");
    out_ << "</g>\n";
  }

  const SendPicture& p_;
  std::map<std::string, int> index_;
  std::ostringstream out_;
};

// About how wide a line of text is drawn in sans-serif: the picture is made
// wide enough for its longest title.
double textWidth(const std::string& text, double font) {
  double chars = 0;
  for (const char c : text) chars += (static_cast<unsigned char>(c) & 0xc0) != 0x80;
  return chars * font * 0.6;
}

std::string heading(const SendPicture& p) {
  std::string agents = std::to_string(p.nodes.empty() ? 0 : p.nodes.size() - 1);
  std::string out = "send of " + sizeText(static_cast<double>(p.size)) + " to " + agents + " agent(s), " + p.algo +
                    (p.stripes > 0 ? " in " + std::to_string(p.stripes) + " stripes" : " tree");
  out += p.finished ? ": took " + secondsText(p.elapsedS) : ": running, " + secondsText(p.elapsedS) + " so far";
  return out + " (predicted " + secondsText(p.predictedS) + ")";
}

std::string versionTitle(const SendPicture& p, std::size_t k) {
  const PictureVersion& v = p.versions[k];
  std::string what = p.stripes > 0 ? "stripes" : "tree";
  if (k == 0) return "the plan" + std::string(p.versions.size() > 1 ? " (" + what + " 1)" : "");
  return what + " " + std::to_string(k + 1) + " from " + secondsText(v.atS) + ": " + shortened(v.reason, 120);
}

}  // namespace

std::string renderSendPicture(const SendPicture& p) {
  Drawing d(p);
  double y = 58, width = std::max(640.0, 2 * kMargin + textWidth(heading(p), 16));
  d.text(kMargin, 26, heading(p), " font-size=\"16\" font-weight=\"bold\"");
  if (p.versions.empty()) d.text(kMargin, 48, "not started: no tree to draw yet", " fill=\"#555\"");
  for (std::size_t k = 0; k < p.versions.size(); ++k) {
    const PictureVersion& v = p.versions[k];
    d.out() << "<g class=\"version\">\n";
    d.text(kMargin, y, versionTitle(p, k), " font-size=\"14\" font-weight=\"bold\"");
    width = std::max(width, 2 * kMargin + textWidth(versionTitle(p, k), 14));
    y += 16;
    if (v.bottleneck) {
      const std::string line = std::string("bottleneck") + (v.bottleneck->achieved ? " (achieved)" : " (planned)") +
                               ": " + v.bottleneck->why;
      d.text(kMargin, y, line, " fill=\"" + std::string(kBottleneck) + "\"");
      width = std::max(width, 2 * kMargin + textWidth(line, 12));
      y += 16;
    }
    y += 10;
    if (p.stripes == 0) {
      auto [w, h] = d.tree(v, 0, kMargin, y, kTree);
      width = std::max(width, w + 2 * kMargin);
      y += h;
    } else {
      double x = kMargin, rowHeight = 0;
      for (int stripe = 0; stripe < p.stripes; ++stripe) {
        if (stripe > 0 && stripe % static_cast<int>(kStripeColumns) == 0) {
          x = kMargin;
          y += rowHeight;
          rowHeight = 0;
        }
        d.text(x, y + 2, "stripe " + std::to_string(stripe + 1), " font-size=\"11\" fill=\"#555\"");
        auto [w, h] = d.tree(v, stripe, x, y + 10, kStripe);
        x += w + kMargin;
        width = std::max(width, x + kMargin);
        rowHeight = std::max(rowHeight, h + 10);
      }
      y += rowHeight;
    }
    d.out() << "</g>\n";
    y += 10;
  }
  d.text(kMargin, y + 10,
         "edges: plan = the rate planned along it, at most what its parent receives (relays forward bytes as they come);",
         " font-size=\"11\" fill=\"#555\"");
  d.text(kMargin, y + 24, "got = the bytes received from that parent over the time received from it:",
         " font-size=\"11\" fill=\"#555\"");
  d.text(kMargin, y + 38, "green from 90% of the plan, amber from 60%, red below, dashed ? not known",
         " font-size=\"11\" fill=\"#555\"");
  y += 28;
  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << n(width) << "\" height=\"" << n(y + 30)
      << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      << d.out().str() << "</svg>\n";
  return svg.str();
}

}  // namespace hnow::api
