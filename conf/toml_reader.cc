#include "conf/toml_reader.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "base/joined.h"

namespace hnow::conf {

namespace {

std::string typeName(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a float";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::array: return "an array";
    case toml::node_type::table: return "a table";
    default: return "a date or time";
  }
}

}  // namespace

TableReader::TableReader(const toml::table& table, std::string file, std::string where)
    : table_(&table), file_(std::move(file)), where_(std::move(where)) {}

bool TableReader::has(std::string_view key) const { return table_->contains(key); }

const toml::node* TableReader::lookup(std::string_view key) {
  used_.emplace_back(key);
  return table_->get(key);
}

void TableReader::failAtNode(const toml::node& node, const std::string& message) const {
  const auto& begin = node.source().begin;
  throw ConfFailure{{message, file_, static_cast<int>(begin.line), static_cast<int>(begin.column)}};
}

void TableReader::failHere(const std::string& message) const { failAtNode(*table_, message); }

void TableReader::failAt(std::string_view key, const std::string& message) const {
  if (const toml::node* node = table_->get(key)) failAtNode(*node, message);
  failHere(message);
}

std::optional<std::string> TableReader::optionalString(std::string_view key) {
  const toml::node* node = lookup(key);
  if (!node) return std::nullopt;
  if (auto s = node->value<std::string>(); s && node->is_string()) return *s;
  failAtNode(*node, "'" + std::string(key) + "' in " + where_ + " must be a string, not " +
                        typeName(*node));
}

std::string TableReader::requireString(std::string_view key, std::string_view hint) {
  if (auto s = optionalString(key)) return *s;
  failHere("missing key '" + std::string(key) + "' in " + where_ + " (" + std::string(hint) + ")");
}

std::optional<double> TableReader::optionalNumber(std::string_view key) {
  const toml::node* node = lookup(key);
  if (!node) return std::nullopt;
  double value = 0.0;
  if (node->is_integer()) {
    value = static_cast<double>(*node->value<int64_t>());
  } else if (node->is_floating_point()) {
    value = *node->value<double>();
  } else {
    failAtNode(*node, "'" + std::string(key) + "' in " + where_ + " must be a number, not " +
                          typeName(*node));
  }
  if (!std::isfinite(value))
    failAtNode(*node, "'" + std::string(key) + "' in " + where_ + " must be a finite number");
  return value;
}

double TableReader::requireNumber(std::string_view key, std::string_view hint) {
  if (auto v = optionalNumber(key)) return *v;
  failHere("missing key '" + std::string(key) + "' in " + where_ + " (" + std::string(hint) + ")");
}

std::optional<long long> TableReader::optionalInteger(std::string_view key) {
  const toml::node* node = lookup(key);
  if (!node) return std::nullopt;
  if (!node->is_integer())
    failAtNode(*node, "'" + std::string(key) + "' in " + where_ + " must be an integer, not " +
                          typeName(*node));
  return *node->value<int64_t>();
}

std::optional<bool> TableReader::optionalBool(std::string_view key) {
  const toml::node* node = lookup(key);
  if (!node) return std::nullopt;
  if (!node->is_boolean())
    failAtNode(*node, "'" + std::string(key) + "' in " + where_ + " must be true or false, not " +
                          typeName(*node));
  return *node->value<bool>();
}

std::optional<std::vector<std::string>> TableReader::optionalStringList(std::string_view key) {
  const toml::node* node = lookup(key);
  if (!node) return std::nullopt;
  const toml::array* array = node->as_array();
  if (!array)
    failAtNode(*node, "'" + std::string(key) + "' in " + where_ + " must be an array of strings, not " +
                          typeName(*node));
  std::vector<std::string> out;
  for (const toml::node& element : *array) {
    if (!element.is_string())
      failAtNode(element, "'" + std::string(key) + "' in " + where_ +
                              " must contain only strings, not " + typeName(element));
    out.push_back(*element.value<std::string>());
  }
  return out;
}

std::vector<std::string> TableReader::requireStringArray(std::string_view key, std::string_view hint) {
  if (auto list = optionalStringList(key)) return *list;
  failHere("missing key '" + std::string(key) + "' in " + where_ + " (" + std::string(hint) + ")");
}

void TableReader::failAtElement(std::string_view key, size_t index, const std::string& message) const {
  if (const toml::array* array = table_->get_as<toml::array>(key); array && index < array->size())
    failAtNode(*array->get(index), message);
  failAt(key, message);
}

std::vector<TableReader> TableReader::arrayOfTables(std::string_view key) {
  const toml::node* node = lookup(key);
  std::vector<TableReader> out;
  if (!node) return out;
  const toml::array* array = node->as_array();
  if (!array || !array->is_array_of_tables())
    failAtNode(*node, "'" + std::string(key) + "' must be written as [[" + std::string(key) +
                          "]] tables");
  int index = 0;
  for (const toml::node& element : *array) {
    ++index;
    out.emplace_back(*element.as_table(), file_,
                     "[[" + std::string(key) + "]] #" + std::to_string(index));
  }
  return out;
}

std::optional<TableReader> TableReader::subTable(std::string_view key) {
  const toml::node* node = lookup(key);
  if (!node) return std::nullopt;
  if (!node->is_table())
    failAtNode(*node, "'" + std::string(key) + "' must be a table ([" + std::string(key) + "])");
  return TableReader(*node->as_table(), file_, "[" + std::string(key) + "]");
}

std::optional<std::string> TableReader::optionalChoice(std::string_view key,
                                                       const std::vector<std::string>& choices) {
  auto value = optionalString(key);
  if (value && std::find(choices.begin(), choices.end(), *value) == choices.end())
    failAt(key, "unknown " + std::string(key) + " '" + *value + "' in " + where_ +
                    " (expected one of: " + joined(choices) + ")");
  return value;
}

std::string TableReader::requireChoice(std::string_view key,
                                       const std::vector<std::string>& choices) {
  if (auto v = optionalChoice(key, choices)) return *v;
  failHere("missing key '" + std::string(key) + "' in " + where_ + " (one of: " + joined(choices) +
           ")");
}

void TableReader::rejectUnknownKeys() const {
  for (const auto& [key, node] : *table_) {
    if (std::find(used_.begin(), used_.end(), key.str()) != used_.end()) continue;
    std::vector<std::string> known(used_.begin(), used_.end());
    std::sort(known.begin(), known.end());
    known.erase(std::unique(known.begin(), known.end()), known.end());
    failAtNode(node, "unknown key '" + std::string(key.str()) + "' in " + where_ +
                         " (expected one of: " + joined(known) + ")");
  }
}

void TableReader::allowOnly(std::initializer_list<std::string_view> known) {
  for (std::string_view key : known) used_.emplace_back(key);
  rejectUnknownKeys();
}

toml::table parseToml(std::string_view text, const std::string& file) {
  try {
    return toml::parse(text, std::string_view(file));
  } catch (const toml::parse_error& e) {
    const auto& begin = e.source().begin;
    throw ConfFailure{{std::string(e.description()), file, static_cast<int>(begin.line),
                       static_cast<int>(begin.column)}};
  }
}

toml::table parseTomlFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfFailure{{"cannot open the file for reading", path, 0, 0}};
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return parseToml(buffer.str(), path);
}

}  // namespace hnow::conf
