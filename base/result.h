#pragma once
// Values in, values out: an infeasible or malformed request is a value
// (PlanError), never an exception (STYLE.md, "planner/").
#include <string>
#include <utility>
#include <variant>

namespace hnow::planner {

struct PlanError {
  std::string message;
};

template <class T, class E = PlanError>
class Outcome {
 public:
  Outcome(T value) : v_(std::move(value)) {}          // NOLINT: implicit by design
  Outcome(E error) : v_(std::move(error)) {}  // NOLINT
  static Outcome failure(std::string message) { return Outcome(E{std::move(message)}); }

  bool ok() const { return std::holds_alternative<T>(v_); }
  explicit operator bool() const { return ok(); }
  const T& value() const& { return std::get<T>(v_); }
  T& value() & { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  const T& operator*() const& { return value(); }
  const T* operator->() const { return &value(); }
  const E& error() const { return std::get<E>(v_); }

 private:
  std::variant<T, E> v_;
};

}  // namespace hnow::planner
