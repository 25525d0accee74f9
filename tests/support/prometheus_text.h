#pragma once
// A strict reader of the Prometheus text exposition format 0.0.4
// (prometheus.io/docs/instrumenting/exposition_formats): what a scraper
// would refuse, it refuses, naming the line. For the tests of /metrics.
#include <cctype>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace hnow::testing {

struct PromSample {
  std::string name;
  std::map<std::string, std::string> labels;
  double value = 0.0;
};

struct PromText {
  std::vector<PromSample> samples;
  std::map<std::string, std::string> types;  // family -> counter | gauge | summary | histogram | untyped
  std::string error;                         // "" when the text is valid
  // The value of the sample `name` with exactly `labels`; NaN-free tests ask `has` first.
  bool has(const std::string& name, const std::map<std::string, std::string>& labels = {}) const {
    for (const auto& s : samples)
      if (s.name == name && s.labels == labels) return true;
    return false;
  }
  double value(const std::string& name, const std::map<std::string, std::string>& labels = {}) const {
    for (const auto& s : samples)
      if (s.name == name && s.labels == labels) return s.value;
    return -1;
  }
};

namespace prom_detail {

inline bool metricName(const std::string& n) {
  if (n.empty() || !(std::isalpha(static_cast<unsigned char>(n[0])) || n[0] == '_' || n[0] == ':')) return false;
  for (char c : n)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ':')) return false;
  return true;
}

inline bool labelName(const std::string& n) {
  if (n.empty() || !(std::isalpha(static_cast<unsigned char>(n[0])) || n[0] == '_')) return false;
  for (char c : n)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

inline bool number(const std::string& text, double& out) {
  if (text == "+Inf" || text == "-Inf" || text == "NaN") return true;
  if (text.empty()) return false;
  char* end = nullptr;
  out = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size();
}

// The family a sample belongs to: its name less a summary's or histogram's suffix.
inline std::string familyOf(const std::string& name, const std::map<std::string, std::string>& types) {
  for (const char* suffix : {"_sum", "_count", "_bucket"}) {
    const std::string s = suffix;
    if (name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0) {
      auto it = types.find(name.substr(0, name.size() - s.size()));
      if (it != types.end() && (it->second == "summary" || it->second == "histogram")) return it->first;
    }
  }
  return name;
}

}  // namespace prom_detail

inline PromText parsePromText(const std::string& text) {
  using namespace prom_detail;
  PromText out;
  if (!text.empty() && text.back() != '\n') return out.error = "the last line does not end with a line feed", out;
  std::set<std::string> seenFamilies, series;
  std::string current;  // the family of the previous sample
  std::size_t lineNo = 0;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = text.find('\n', at);
    const std::string line = text.substr(at, end - at);
    at = end + 1;
    ++lineNo;
    auto fail = [&](const std::string& why) { return out.error = "line " + std::to_string(lineNo) + ": " + why + ": " + line, out; };
    if (line.empty()) continue;
    if (line[0] == '#') {
      if (line.rfind("# TYPE ", 0) == 0) {
        const std::string rest = line.substr(7);
        const auto space = rest.find(' ');
        const std::string name = rest.substr(0, space), type = space == std::string::npos ? "" : rest.substr(space + 1);
        if (!metricName(name)) return fail("a TYPE of a bad metric name");
        if (!std::set<std::string>{"counter", "gauge", "summary", "histogram", "untyped"}.count(type)) return fail("an unknown type");
        if (out.types.count(name)) return fail("a second TYPE line for one metric");
        if (seenFamilies.count(name)) return fail("a TYPE line after the metric's samples");
        out.types[name] = type;
      } else if (line.rfind("# HELP ", 0) == 0) {
        if (!metricName(line.substr(7, line.find(' ', 7) - 7))) return fail("a HELP of a bad metric name");
      }
      continue;
    }
    PromSample s;
    std::size_t i = 0;
    while (i < line.size() && line[i] != '{' && line[i] != ' ') ++i;
    s.name = line.substr(0, i);
    if (!metricName(s.name)) return fail("a bad metric name");
    std::string key = s.name;
    if (i < line.size() && line[i] == '{') {
      ++i;
      while (i < line.size() && line[i] != '}') {
        const auto eq = line.find('=', i);
        if (eq == std::string::npos) return fail("a label without '='");
        const std::string label = line.substr(i, eq - i);
        if (!labelName(label) || s.labels.count(label)) return fail("a bad or repeated label name");
        if (eq + 1 >= line.size() || line[eq + 1] != '"') return fail("a label value without quotes");
        std::string value;
        for (i = eq + 2; i < line.size() && line[i] != '"'; ++i) {
          if (line[i] != '\\') { value += line[i]; continue; }
          if (++i >= line.size()) return fail("an escape at the end of the line");
          if (line[i] == '\\' || line[i] == '"') value += line[i];
          else if (line[i] == 'n') value += '\n';
          else return fail("an unknown escape in a label value");
        }
        if (i >= line.size()) return fail("an unterminated label value");
        s.labels[label] = value;
        ++i;
        if (i < line.size() && line[i] == ',') ++i;
        else if (i < line.size() && line[i] != '}') return fail("labels not separated by ','");
      }
      if (i >= line.size()) return fail("labels without '}'");
      ++i;
    }
    for (const auto& [k, v] : s.labels) key += "\n" + k + "=" + v;
    if (i >= line.size() || line[i] != ' ') return fail("no space before the value");
    const std::string rest = line.substr(i + 1);
    const auto space = rest.find(' ');
    if (!number(rest.substr(0, space), s.value)) return fail("a value that is not a number");
    if (space != std::string::npos) {
      const std::string stamp = rest.substr(space + 1);
      if (stamp.empty() || stamp.find_first_not_of("-0123456789") != std::string::npos) return fail("a bad timestamp");
    }
    const std::string family = familyOf(s.name, out.types);
    if (family != current && seenFamilies.count(family)) return fail("a metric's samples not together");
    current = family;
    seenFamilies.insert(family);
    if (!series.insert(key).second) return fail("the same series twice");
    const auto type = out.types.find(family);
    if (type != out.types.end() && type->second == "counter" && s.value < 0) return fail("a negative counter");
    out.samples.push_back(std::move(s));
  }
  return out;
}

}  // namespace hnow::testing
