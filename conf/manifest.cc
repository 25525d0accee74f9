#include "conf/manifest.h"

#include <set>

#include "conf/toml_reader.h"

namespace hnow::conf {

namespace {

std::string positionOf(const toml::node& node, const std::string& file) {
  const auto& begin = node.source().begin;
  return file + ":" + std::to_string(begin.line) + ":" + std::to_string(begin.column);
}

// `to` is one string ("all", a site or an agent) or a list of them.
std::vector<std::string> readTo(TableReader& item, const toml::table& raw) {
  const toml::node* node = raw.get("to");
  if (!node) item.failHere("missing key 'to' in " + item.where() + " (\"all\", a site, or a list of agent names)");
  std::vector<std::string> to;
  if (node->is_string()) {
    to.push_back(item.requireString("to", ""));
    if (to[0].empty()) item.failAt("to", "'to' in " + item.where() + " cannot be empty");
    return to;
  }
  if (!node->is_array())
    item.failAt("to", "'to' in " + item.where() + " must be a string or a list of strings");
  to = item.requireStringArray("to", "");
  if (to.empty()) item.failAt("to", "'to' in " + item.where() + " is empty; name at least one agent or site, or \"all\"");
  std::set<std::string> seen;
  for (std::size_t i = 0; i < to.size(); ++i) {
    if (to[i].empty()) item.failAtElement("to", i, "an empty name in 'to'");
    if (!seen.insert(to[i]).second) item.failAtElement("to", i, "'" + to[i] + "' is listed twice in 'to'");
    if (to[i] == "all" && to.size() > 1) item.failAtElement("to", i, "\"all\" cannot be combined with other names");
  }
  return to;
}

std::string readNonEmpty(TableReader& item, std::string_view key, std::string_view hint) {
  std::string value = item.requireString(key, hint);
  if (value.empty()) item.failAt(key, "'" + std::string(key) + "' in " + item.where() + " cannot be empty");
  return value;
}

Manifest readManifest(const toml::table& root, const std::string& file) {
  TableReader top(root, file, "the manifest");
  top.allowOnly({"item"});
  std::vector<TableReader> tables = top.arrayOfTables("item");
  if (tables.empty()) top.failHere("the manifest has no [[item]] tables; add at least one");
  const toml::array& raw = *root.get("item")->as_array();
  Manifest out;
  for (std::size_t i = 0; i < tables.size(); ++i) {
    TableReader& item = tables[i];
    const toml::table& table = *raw.get(i)->as_table();
    item.allowOnly({"source", "file", "dest", "to"});
    ManifestItem m;
    m.source = readNonEmpty(item, "source", "the agent whose data root holds the file");
    m.file = readNonEmpty(item, "file", "the file's path under the source agent's data root");
    m.dest = readNonEmpty(item, "dest", "where each destination puts it; relative: under its data root");
    m.to = readTo(item, table);
    m.where = positionOf(table, file);
    item.rejectUnknownKeys();
    out.items.push_back(std::move(m));
  }
  return out;
}

}  // namespace

Result<Manifest> parseManifest(std::string_view text, const std::string& sourceName) {
  try {
    toml::table root = parseToml(text, sourceName);
    return readManifest(root, sourceName);
  } catch (const ConfFailure& failure) {
    return failure.error;
  }
}

Result<Manifest> loadManifest(const std::string& path) {
  try {
    toml::table root = parseTomlFile(path);
    return readManifest(root, path);
  } catch (const ConfFailure& failure) {
    return failure.error;
  }
}

}  // namespace hnow::conf
