#include "conf/run_request.h"

#include <charconv>

namespace hnow::conf {

namespace {

const char* const kSplitHelp = "use --split lines, --split bytes:N (N > 0) or --split records:SEP";

// \n \t \r \0 \\ in a separator typed on a command line.
Result<std::string> decodeEscapes(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\') {
      out += text[i];
      continue;
    }
    if (i + 1 == text.size()) return Error{"the separator ends with a lone backslash; write \\\\ for one"};
    switch (text[++i]) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case '0': out += '\0'; break;
      case '\\': out += '\\'; break;
      default:
        return Error{std::string("unknown escape \\") + text[i] +
                            " in the separator; known: \\n \\t \\r \\0 \\\\"};
    }
  }
  return out;
}

}  // namespace

Result<SplitSpec> parseSplitSpec(std::string_view text) {
  SplitSpec spec;
  if (text == "lines") return spec;
  if (text.substr(0, 6) == "bytes:") {
    std::string_view number = text.substr(6);
    std::uint64_t n = 0;
    auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), n);
    if (number.empty() || error != std::errc() || end != number.data() + number.size() || n == 0)
      return Error{"--split " + std::string(text) + ": '" + std::string(number) +
                          "' is not a positive byte count; " + kSplitHelp};
    spec.kind = SplitSpec::Kind::kBytes;
    spec.bytes = n;
    return spec;
  }
  if (text.substr(0, 8) == "records:") {
    auto separator = decodeEscapes(text.substr(8));
    if (!separator) return Error{"--split " + std::string(text) + ": " + separator.error().message};
    if (separator.value().empty())
      return Error{"--split " + std::string(text) + ": the record separator is empty; " + kSplitHelp};
    spec.kind = SplitSpec::Kind::kRecords;
    spec.separator = std::move(separator).value();
    return spec;
  }
  return Error{"unknown --split '" + std::string(text) + "'; " + kSplitHelp};
}

Result<std::vector<std::string>> splitCommandLine(std::string_view command) {
  std::vector<std::string> words;
  std::string word;
  bool inWord = false;
  const std::string_view special = "$`*?[|;<>&()";
  for (std::size_t i = 0; i < command.size(); ++i) {
    const char c = command[i];
    if (c == ' ' || c == '\t' || c == '\n') {
      if (inWord) words.push_back(std::move(word)), word.clear();
      inWord = false;
      continue;
    }
    inWord = true;
    if (c == '\\') {
      if (i + 1 == command.size()) return Error{"the command ends with a lone backslash"};
      word += command[++i];
    } else if (c == '\'') {
      auto end = command.find('\'', i + 1);
      if (end == std::string_view::npos) return Error{"unterminated ' in the command"};
      word += command.substr(i + 1, end - i - 1);
      i = end;
    } else if (c == '"') {
      std::size_t j = i + 1;
      for (; j < command.size() && command[j] != '"'; ++j) {
        if (command[j] == '\\' && j + 1 < command.size() &&
            std::string_view("\"\\$`").find(command[j + 1]) != std::string_view::npos) {
          word += command[++j];
        } else if (command[j] == '$' || command[j] == '`') {
          return Error{std::string("'") + command[j] +
                              "' inside \"...\" needs a shell to expand; pass --shell or quote it with '...'"};
        } else {
          word += command[j];
        }
      }
      if (j == command.size()) return Error{"unterminated \" in the command"};
      i = j;
    } else if (special.find(c) != std::string_view::npos) {
      return Error{std::string("'") + c + "' at column " + std::to_string(i + 1) +
                          " of the command needs a shell; pass --shell, or quote it with '...'"};
    } else {
      word += c;
    }
  }
  if (inWord) words.push_back(std::move(word));
  if (words.empty()) return Error{"the command is empty"};
  return words;
}

Result<std::vector<std::string>> commandArgv(std::string_view command, bool shell) {
  if (!shell) return splitCommandLine(command);
  if (command.find_first_not_of(" \t\n") == std::string_view::npos) return Error{"the command is empty"};
  return std::vector<std::string>{"/bin/sh", "-c", std::string(command)};
}

}  // namespace hnow::conf
