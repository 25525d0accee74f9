#pragma once
// A Result's message for a test's checks and REQUIRE_MESSAGE: safe on a
// success too (then nothing, which no expected message equals).
#include <string>

#include "base/result.h"

namespace hnow::testing {

template <class T>
std::string why(const hnow::Result<T>& outcome) {
  return outcome.ok() ? std::string() : outcome.error().message;
}

}  // namespace hnow::testing
