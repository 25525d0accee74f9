#include <doctest/doctest.h>

#include <memory>
#include <string>

#include "base/result.h"

using hnow::Error;
using hnow::Result;

namespace {

hnow::Result<int> half(int n) {
  if (n % 2 != 0) return Error{"cannot halve " + std::to_string(n) + ": it is odd"};
  return n / 2;
}

}  // namespace

TEST_CASE("a result holds either its value or the error that says why not") {
  const hnow::Result<int> ok = half(8);
  REQUIRE(ok.ok());
  CHECK(static_cast<bool>(ok));
  CHECK(*ok == 4);
  CHECK(ok.value() == 4);

  const hnow::Result<int> refused = half(7);
  CHECK_FALSE(refused.ok());
  CHECK_FALSE(static_cast<bool>(refused));
  CHECK(refused.error().message == "cannot halve 7: it is odd");
  CHECK(hnow::Result<int>::failure("no").error().message == "no");
}

TEST_CASE("a result gives up a value it owns") {
  hnow::Result<std::unique_ptr<int>> owned = std::make_unique<int>(3);
  std::unique_ptr<int> taken = std::move(owned).value();
  REQUIRE(taken);
  CHECK(*taken == 3);
}

TEST_CASE("a result of nothing is done, or the error that says why not") {
  const Result<void> done;
  CHECK(done.ok());
  CHECK(static_cast<bool>(done));
  const Result<void> refused = Error{"cannot write /x: Permission denied"};
  CHECK_FALSE(refused.ok());
  CHECK(refused.error().message == "cannot write /x: Permission denied");
}

TEST_CASE("an error in a user's file names the file, line and column like a compiler") {
  CHECK(Error{"expected a number", "lab.toml", 3, 14}.text() == "lab.toml:3:14: expected a number");
  CHECK(Error{"cannot open the file for reading", "lab.toml"}.text() == "lab.toml: cannot open the file for reading");
  CHECK(Error{"no file"}.text() == "no file");
}
