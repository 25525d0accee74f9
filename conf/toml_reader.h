#pragma once
// Typed access to one TOML table that remembers which keys were read, so
// that a typo ("nmae = ...") is reported instead of silently ignored.
// Internal to conf/: the only headers that include toml++.
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <toml++/toml.h>

#include "base/result.h"

namespace hnow::conf {

// Thrown inside conf/ only and turned into a Error value at the loader's
// boundary; it never escapes a public function.
struct ConfFailure {
  Error error;
};

class TableReader {
 public:
  // `where` names the table in messages, e.g. "[[node]] #2" or "the request".
  TableReader(const toml::table& table, std::string file, std::string where);

  std::string requireString(std::string_view key, std::string_view hint);
  std::optional<std::string> optionalString(std::string_view key);
  // Integers and floats are both accepted; NaN and infinities are not.
  double requireNumber(std::string_view key, std::string_view hint);
  std::optional<double> optionalNumber(std::string_view key);
  std::optional<long long> optionalInteger(std::string_view key);
  std::optional<bool> optionalBool(std::string_view key);
  // An array whose elements are all strings, e.g. `destinations = ["a", "b"]`.
  std::optional<std::vector<std::string>> optionalStringList(std::string_view key);
  std::vector<std::string> requireStringArray(std::string_view key, std::string_view hint);
  // `[[key]]` entries; missing means empty.
  std::vector<TableReader> arrayOfTables(std::string_view key);
  std::optional<TableReader> subTable(std::string_view key);
  // A string that must be one of `choices`.
  std::string requireChoice(std::string_view key, const std::vector<std::string>& choices);
  std::optional<std::string> optionalChoice(std::string_view key,
                                            const std::vector<std::string>& choices);

  bool has(std::string_view key) const;
  // Fails on the first key that no accessor asked for.
  void rejectUnknownKeys() const;
  // Fails on the first key not in `known`, before any value is read: a
  // misspelled required key is then named as unknown, not as missing.
  void allowOnly(std::initializer_list<std::string_view> known);

  [[noreturn]] void failAt(std::string_view key, const std::string& message) const;
  [[noreturn]] void failHere(const std::string& message) const;
  [[noreturn]] void failAtNode(const toml::node& node, const std::string& message) const;
  // At element `index` of the array `key` (at the key when there is none).
  [[noreturn]] void failAtElement(std::string_view key, size_t index, const std::string& message) const;

  const std::string& where() const { return where_; }
  const std::string& file() const { return file_; }

 private:
  const toml::node* lookup(std::string_view key);

  const toml::table* table_;
  std::string file_;
  std::string where_;
  std::vector<std::string> used_;
};

// Parses `text` (from `file`, for messages) or throws ConfFailure.
toml::table parseToml(std::string_view text, const std::string& file);
// Reads and parses a file or throws ConfFailure.
toml::table parseTomlFile(const std::string& path);

}  // namespace hnow::conf
