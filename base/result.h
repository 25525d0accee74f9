#pragma once
// The one result type of hnow: a value or an Error saying what went wrong,
// where and how to fix it. Expected failures (a malformed request, an
// infeasible plan, a file that cannot be read) are values, never exceptions
// (docs/architecture.md "Conventions the code follows"); only the RPC glue
// turns an Error into a kj exception for the peer.
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace hnow {

struct Error {
  std::string message;
  // Where, for a problem in a user's file, like a compiler says it: the
  // file, and the line and column when known (0: not known).
  std::string file{};
  int line = 0;
  int column = 0;

  // "file:line:column: message", "file: message", or the message alone.
  std::string text() const {
    if (file.empty()) return message;
    std::string out = file;
    if (line > 0) out += ":" + std::to_string(line) + ":" + std::to_string(column);
    return out + ": " + message;
  }
};

template <class T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}          // NOLINT: implicit by design
  Result(Error error) : v_(std::move(error)) {}      // NOLINT
  static Result failure(std::string message) { return Result(Error{std::move(message)}); }

  bool ok() const { return std::holds_alternative<T>(v_); }
  explicit operator bool() const { return ok(); }
  const T& value() const& { return std::get<T>(v_); }
  T& value() & { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  const T& operator*() const& { return value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const { return std::get<Error>(v_); }

 private:
  std::variant<T, Error> v_;
};

// What gives nothing back but may fail: done, or the Error that says why not.
template <>
class Result<void> {
 public:
  Result() = default;                                 // done
  Result(Error error) : error_(std::move(error)) {}  // NOLINT: implicit by design
  static Result failure(std::string message) { return Result(Error{std::move(message)}); }

  bool ok() const { return !error_.has_value(); }
  explicit operator bool() const { return ok(); }
  const Error& error() const { return *error_; }

 private:
  std::optional<Error> error_;
};

}  // namespace hnow
