// FinishedOperations: the bound on what hnowd keeps of finished sends,
// manifests and runs (soak).
#include <doctest/doctest.h>

#include <map>
#include <string>

#include "core/finished_operations.h"

using hnow::daemon::FinishedOperations;

TEST_CASE("finished operations past the newest kept are forgotten, oldest first, running ones never") {
  FinishedOperations finished(3);
  std::map<std::uint64_t, std::string> operations;
  for (std::uint64_t id = 1; id <= 6; ++id) operations[id] = "op";
  for (std::uint64_t id : {2, 1, 4, 5}) finished.add(id);  // in the order they finished; 3 and 6 still run
  finished.forgetOldest(operations);
  CHECK(operations.count(2) == 0);  // the first to finish goes first
  CHECK(operations.count(1) == 1);
  CHECK(operations.count(3) == 1);
  CHECK(operations.count(6) == 1);
  CHECK(operations.size() == 5);
  finished.forgetOldest(operations);  // nothing more to forget
  CHECK(operations.size() == 5);
  finished.add(3);
  finished.add(6);
  finished.forgetOldest(operations);
  CHECK(operations.size() == 3);
  CHECK(operations.count(1) == 0);
  CHECK(operations.count(4) == 0);
  CHECK(operations.count(5) == 1);
  CHECK(FinishedOperations::kKept == 32);
}
