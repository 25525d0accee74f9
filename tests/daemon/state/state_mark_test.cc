// hnowd's mark that it keeps state (daemon/state/state_mark.h): a state.db
// deleted, emptied or swapped for another between two starts is refused,
// saying how to go on, until --new-state accepts it.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "cli/run_process.h"
#include "state/state_mark.h"

using namespace hnow;
using namespace hnow::daemon;
using hnow::testing::readWhole;
using hnow::testing::TempDir;
namespace fs = std::filesystem;

namespace {

// hnowd's start and stop: the state opened, a revocation kept, closed.
std::string startAndRevoke(const fs::path& dir, bool newState = false) {
  auto opened = openMarkedState(dir.string(), newState);
  REQUIRE_MESSAGE(opened.ok(), (opened.ok() ? "" : opened.error().message));
  REQUIRE(opened->store->saveRevocation({"ed25519:stolen", "pc-07", WallTime{}}).ok());
  return opened->warning + opened->note;
}

std::string refusalOf(const fs::path& dir) {
  auto opened = openMarkedState(dir.string(), false);
  return opened ? "" : opened.error().message;
}

std::size_t revocations(const fs::path& dir) {
  auto opened = openMarkedState(dir.string(), false);
  REQUIRE(opened.ok());
  return opened->store->loadTrust().value().revocations.size();
}

}  // namespace

TEST_CASE("a fresh data directory starts and is marked, and the same state.db opens again quietly") {
  TempDir dir;
  CHECK(startAndRevoke(dir.path).find("marked " + (dir.path / "state.db").string() + " as hnowd's state") == 0);
  CHECK(fs::exists(dir.path / "state.mark"));
  CHECK(revocations(dir.path) == 1);
  auto again = openMarkedState(dir.path.string(), false);
  REQUIRE(again.ok());
  CHECK(again->warning.empty());
  CHECK(again->note.empty());
}

TEST_CASE("a state.db deleted, emptied or swapped for another is refused while the mark is there, saying how to go on") {
  TempDir dir, other;
  startAndRevoke(dir.path);
  startAndRevoke(other.path);  // another hnowd's state, with an identity of its own
  const fs::path db = dir.path / "state.db";
  const std::string tail = "Without it hnowd would start with no revoked agent keys, enrollment tokens, approvals or "
                           "operation records: a revoked agent could log in again. Restore " + db.string() +
                           " from a backup (hnowd stopped), or, to start afresh on purpose, start hnowd once with "
                           "--new-state";
  const std::string backup = readWhole(db);

  fs::remove(db);
  std::string refusal = refusalOf(dir.path);
  CHECK(refusal.find(db.string() + " does not exist, but " + (dir.path / "state.mark").string() +
                     " says hnowd kept its state there (database ") == 0);
  CHECK(refusal.find(tail) != std::string::npos);
  CHECK_FALSE(fs::exists(db));  // not made anew by the refused start

  std::ofstream(db, std::ios::trunc).close();
  CHECK(refusalOf(dir.path).find(db.string() + " is empty (0 bytes), but ") == 0);

  fs::copy_file(other.path / "state.db", db, fs::copy_options::overwrite_existing);
  refusal = refusalOf(dir.path);
  CHECK(refusal.find(db.string() + " is not the database hnowd kept there: its identity is ") == 0);
  CHECK(refusal.find(tail) != std::string::npos);

  // Restored from its backup, it opens with what it kept.
  std::ofstream(db, std::ios::binary | std::ios::trunc) << backup;
  CHECK(refusalOf(dir.path) == "");
  CHECK(revocations(dir.path) == 1);
}

TEST_CASE("--new-state accepts starting afresh, logs what is gone, and marks the new state.db") {
  TempDir dir;
  startAndRevoke(dir.path);
  const std::string before = readWhole(dir.path / "state.mark");
  fs::remove(dir.path / "state.db");
  const std::string warning = startAndRevoke(dir.path, true);
  CHECK(warning.find("--new-state: started with " + (dir.path / "state.db").string()) == 0);
  CHECK(warning.find("revoked agent keys, enrollment tokens, approvals and operation records of before are gone") !=
        std::string::npos);
  CHECK(readWhole(dir.path / "state.mark") != before);
  CHECK(refusalOf(dir.path) == "");  // the new one is the marked one now
  CHECK(revocations(dir.path) == 1);  // only what was kept since
  // Given again on a state.db that is the marked one, it changes nothing.
  auto again = openMarkedState(dir.path.string(), true);
  REQUIRE(again.ok());
  CHECK(again->warning.empty());
  CHECK(again->note.find("--new-state: nothing to accept") == 0);
}

TEST_CASE("a state.db kept before marks existed is marked as it is, and a garbled mark is refused") {
  TempDir dir;
  {
    auto store = SqliteStateStore::open(dir.path.string());  // an earlier hnowd's state: no identity
    REQUIRE(store.ok());
    REQUIRE(store.value()->saveRevocation({"ed25519:earlier", "pc-03", WallTime{}}).ok());
  }
  CHECK(startAndRevoke(dir.path).find("marked ") == 0);
  CHECK(revocations(dir.path) == 2);  // both kept
  std::ofstream(dir.path / "state.mark", std::ios::trunc) << "not an identity\n";
  CHECK(refusalOf(dir.path) == (dir.path / "state.mark").string() +
                                   " does not name a state.db (one line of 32 hex digits): restore it from a backup "
                                   "with state.db, or remove it to have hnowd mark the state.db there anew");
}
