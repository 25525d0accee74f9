#include "state/state_mark.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>

namespace hnow::daemon {

namespace fs = std::filesystem;

namespace {

constexpr const char* kMarkHeader =
    "# hnowd keeps its state in state.db beside this file, and this is that database's identity.\n"
    "# While this file is here, hnowd refuses a state.db that is missing, empty or another one\n"
    "# (restore it from a backup, or start hnowd once with --new-state). docs/security.md.\n";

// 128 random bits as hex: what tells one state.db from another (not a secret).
std::string freshIdentity() {
  std::random_device random;
  std::string id;
  for (int i = 0; i < 4; ++i) {
    char hex[9];
    std::snprintf(hex, sizeof hex, "%08x", static_cast<unsigned>(random()));
    id += hex;
  }
  return id;
}

// The identity the mark names; none without a mark. A mark that cannot be
// read is an error: hnowd must not guess that no state existed.
Result<std::optional<std::string>> readMark(const fs::path& mark) {
  std::error_code error;
  if (!fs::exists(mark, error) && !error) return std::optional<std::string>();
  std::ifstream in(mark);
  if (!in) return Error{"cannot read " + mark.string() + " (hnowd's mark that it keeps state in state.db)"};
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.pop_back();
    if (line.size() == 32 && line.find_first_not_of("0123456789abcdef") == std::string::npos)
      return std::optional<std::string>(line);
    break;
  }
  return Error{mark.string() + " does not name a state.db (one line of 32 hex digits): restore it from a backup "
               "with state.db, or remove it to have hnowd mark the state.db there anew"};
}

// Written beside, then renamed over: a reader never sees half of it.
Result<void> writeMark(const fs::path& mark, const std::string& id) {
  fs::path temporary = mark;
  temporary += ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << kMarkHeader << id << "\n";
    if (!out.flush()) return Error{"cannot write " + temporary.string()};
  }
  std::error_code error;
  fs::rename(temporary, mark, error);
  if (error) return Error{"cannot write " + mark.string() + ": " + error.message()};
  return {};
}

// What the operator does next, in every refusal.
std::string howToGoOn(const fs::path& db) {
  return ". Without it hnowd would start with no revoked agent keys, enrollment tokens, approvals or operation "
         "records: a revoked agent could log in again. Restore " + db.string() +
         " from a backup (hnowd stopped), or, to start afresh on purpose, start hnowd once with --new-state (then "
         "revoke again any agent key that was revoked)";
}

}  // namespace

Result<MarkedState> openMarkedState(const std::string& dataDir, bool newState) {
  const fs::path db = fs::path(dataDir) / "state.db", mark = fs::path(dataDir) / "state.mark";
  auto marked = readMark(mark);
  if (!marked) return marked.error();
  std::error_code error;
  const bool present = fs::exists(db, error);
  const bool empty = present && fs::file_size(db, error) == 0;
  if (marked->has_value() && !newState && (!present || empty))
    return Error{db.string() + (present ? " is empty (0 bytes)" : " does not exist") + ", but " + mark.string() +
                 " says hnowd kept its state there (database " + **marked + ")" + howToGoOn(db)};
  if (!present) {
    // A journal of a deleted database must not be replayed into a new one.
    fs::remove(fs::path(dataDir) / "state.db-wal", error);
    fs::remove(fs::path(dataDir) / "state.db-shm", error);
  }
  auto opened = SqliteStateStore::open(dataDir);
  if (!opened) return opened.error();
  MarkedState out;
  out.store = std::move(opened).value();
  auto identity = out.store->identity();
  if (!identity) return identity.error();
  std::optional<std::string> id = *identity;
  const std::optional<std::string> markedId = *marked;
  if (markedId && !newState && id != markedId)
    return Error{db.string() + " is not the database hnowd kept there: " +
                 (id ? "its identity is " + *id : std::string("it has no identity (a new or emptied database)")) +
                 ", and " + mark.string() + " names " + *markedId + howToGoOn(db)};
  if (!id) {
    id = freshIdentity();
    if (auto saved = out.store->setIdentity(*id); !saved) return saved.error();
  }
  if (markedId == id) {
    if (newState) out.note = "--new-state: nothing to accept, " + db.string() + " is the database hnowd kept there";
    return out;
  }
  if (auto written = writeMark(mark, *id); !written) return written.error();
  if (markedId)
    out.warning = "--new-state: started with " + db.string() + " (database " + *id + ") in place of database " +
                  *markedId + " that " + mark.string() + " named: revoked agent keys, enrollment tokens, approvals "
                  "and operation records of before are gone; revoke again any agent key that was revoked";
  else
    out.note = "marked " + db.string() + " as hnowd's state (database " + *id + ") in " + mark.string() +
               ": from now on hnowd refuses to start if it goes missing, empty or replaced";
  return out;
}

}  // namespace hnow::daemon
