#include "cli/gantt_svg.h"

#include "cli/number_format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

namespace hnow::cli {

namespace {

std::string escapeXml(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string colourOf(const std::string& kind) {
  static const std::map<std::string, std::string> colours{
      {"send", "#3b7dd8"}, {"receive", "#5fb760"}, {"compute", "#e0a030"},
      {"return", "#a05fd0"}, {"planned", "#b0b8c8"}, {"actual", "#3b7dd8"},
      {"global send", "#1f4e9a"}, {"global receive", "#2e7d32"}, {"stripe", "#7fa8e0"}};
  auto it = colours.find(kind);
  return it == colours.end() ? "#888888" : it->second;
}

// A tick step of 1, 2 or 5 times a power of ten giving about eight ticks.
double tickStep(double span) {
  double raw = span / 8.0;
  double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * power >= raw) return m * power;
  return 10.0 * power;
}

}  // namespace

GanttChart ganttOf(const PlanReport& report) {
  if (report.chart) return *report.chart;
  GanttChart chart;
  chart.title = report.op + " (" + report.algo + "): makespan " + shortNumber(report.makespan) + " s";
  chart.rows = report.nodeNames;
  chart.makespan = report.makespan;
  for (const auto& x : report.transfers) {
    std::string label = report.nodeNames[x.from] + " → " + report.nodeNames[x.to] + "  " +
                        shortNumber(x.start) + "–" + shortNumber(x.end) + " s";
    chart.bars.push_back({x.from, x.start, x.end, "send", label});
    chart.bars.push_back({x.to, x.start, x.end, "receive", label});
  }
  return chart;
}

std::string renderGanttSvg(const GanttChart& chart) {
  const double rowHeight = 22, labelWidth = 140, plotWidth = 860, top = 48, rightPad = 30;
  size_t longest = 0;
  for (const auto& r : chart.rows) longest = std::max(longest, r.size());
  const double left = std::max(labelWidth, 16.0 + 7.0 * static_cast<double>(longest));
  double horizon = chart.makespan;
  for (const auto& b : chart.bars) horizon = std::max(horizon, b.end);
  if (horizon <= 0) horizon = 1;
  const double scale = plotWidth / horizon;
  const double plotHeight = rowHeight * static_cast<double>(chart.rows.size());
  const double width = left + plotWidth + rightPad, height = top + plotHeight + 60;

  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << shortNumber(width) << "\" height=\""
      << shortNumber(height) << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  svg << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  svg << "<text x=\"10\" y=\"22\" font-size=\"15\">" << escapeXml(chart.title) << "</text>\n";
  for (size_t i = 0; i < chart.rows.size(); ++i) {
    double y = top + rowHeight * static_cast<double>(i);
    if (i % 2 == 0)
      svg << "<rect x=\"" << shortNumber(left) << "\" y=\"" << shortNumber(y) << "\" width=\"" << shortNumber(plotWidth)
          << "\" height=\"" << shortNumber(rowHeight) << "\" fill=\"#f3f4f7\"/>\n";
    svg << "<text x=\"" << shortNumber(left - 8) << "\" y=\"" << shortNumber(y + rowHeight * 0.7)
        << "\" text-anchor=\"end\">" << escapeXml(chart.rows[i]) << "</text>\n";
  }
  const double step = tickStep(horizon);
  for (double tick = 0; tick <= horizon + step * 1e-9; tick += step) {
    double x = left + tick * scale;
    svg << "<line x1=\"" << shortNumber(x) << "\" y1=\"" << shortNumber(top) << "\" x2=\"" << shortNumber(x) << "\" y2=\""
        << shortNumber(top + plotHeight) << "\" stroke=\"#dddddd\"/>\n";
    svg << "<text x=\"" << shortNumber(x) << "\" y=\"" << shortNumber(top + plotHeight + 16)
        << "\" text-anchor=\"middle\">" << shortNumber(tick) << "</text>\n";
  }
  std::map<std::string, bool> kinds;
  for (const auto& b : chart.bars) {
    // Two bars per row for a transfer endpoint never overlap (one-port model),
    // so one bar height is enough; the kind is told by colour.
    double y = top + rowHeight * b.row + 3;
    double x = left + b.start * scale;
    double w = std::max(1.0, (b.end - b.start) * scale);
    svg << "<rect x=\"" << shortNumber(x) << "\" y=\"" << shortNumber(y) << "\" width=\"" << shortNumber(w)
        << "\" height=\"" << shortNumber(rowHeight - 6) << "\" fill=\"" << colourOf(b.kind)
        << "\" stroke=\"white\" stroke-width=\"0.5\"><title>" << escapeXml(b.kind + ": " + b.label)
        << "</title></rect>\n";
    kinds[b.kind] = true;
  }
  for (const auto& m : chart.marks) {
    const double x = left + m.at * scale, y = top + rowHeight * m.row;
    svg << "<g class=\"mark\"><title>" << escapeXml(m.tooltip) << "</title><line x1=\"" << shortNumber(x) << "\" y1=\""
        << shortNumber(y) << "\" x2=\"" << shortNumber(x) << "\" y2=\"" << shortNumber(y + rowHeight)
        << "\" stroke=\"#e07000\" stroke-width=\"3\"/><rect x=\"" << shortNumber(x + 2) << "\" y=\"" << shortNumber(y + 5)
        << "\" width=\"" << shortNumber(6.0 * static_cast<double>(m.label.size()) + 4) << "\" height=\"" << shortNumber(rowHeight - 10)
        << "\" fill=\"white\" opacity=\"0.85\"/><text x=\"" << shortNumber(x + 4) << "\" y=\""
        << shortNumber(y + rowHeight * 0.7) << "\" font-size=\"10\" fill=\"#a04000\">" << escapeXml(m.label)
        << "</text></g>\n";
  }
  double mx = left + chart.makespan * scale;
  svg << "<line x1=\"" << shortNumber(mx) << "\" y1=\"" << shortNumber(top - 6) << "\" x2=\"" << shortNumber(mx)
      << "\" y2=\"" << shortNumber(top + plotHeight) << "\" stroke=\"#d03030\" stroke-width=\"2\" "
      << "stroke-dasharray=\"5,3\"/>\n";
  // Near the right edge the label ends at the line so it is not clipped.
  const char* anchor = chart.makespan * scale > plotWidth * 0.85 ? "end" : "middle";
  svg << "<text x=\"" << shortNumber(mx) << "\" y=\"" << shortNumber(top - 10) << "\" text-anchor=\"" << anchor
      << "\" fill=\"#d03030\">makespan " << shortNumber(chart.makespan) << " s</text>\n";
  double lx = left;
  const double ly = top + plotHeight + 36;
  for (const auto& [kind, _] : kinds) {
    svg << "<rect x=\"" << shortNumber(lx) << "\" y=\"" << shortNumber(ly - 10) << "\" width=\"12\" height=\"12\" fill=\""
        << colourOf(kind) << "\"/><text x=\"" << shortNumber(lx + 16) << "\" y=\"" << shortNumber(ly) << "\">"
        << escapeXml(kind) << "</text>\n";
    lx += std::max(90.0, 30.0 + 7.0 * static_cast<double>(kind.size()));
  }
  svg << "<text x=\"" << shortNumber(left + plotWidth) << "\" y=\"" << shortNumber(ly)
      << "\" text-anchor=\"end\">time (s)</text>\n";
  svg << "</svg>\n";
  return svg.str();
}

}  // namespace hnow::cli
