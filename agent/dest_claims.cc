#include "agent/dest_claims.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "base/hex.h"
#include "base/printable.h"

namespace hnow::agent {

namespace {

// A receive as a refusal names it: hnowd's operation and its token's first
// bytes (an operation token is 32 bytes; a copy here has none).
std::string named(const DestClaims::Holder& h) {
  const std::string what = h.operation.empty() ? "another receive" : printable(h.operation);
  if (h.token.size() != 32) return what;
  return what + " (token " + hexOf(reinterpret_cast<const unsigned char*>(h.token.data()), 4) + "..., " +
         std::to_string(h.size) + " bytes)";
}

}  // namespace

Result<void> DestClaims::claim(int dirFd, const std::string& name, Holder holder,
                               const std::vector<std::string>& transfers) {
  struct stat dir {};
  if (::fstat(dirFd, &dir) != 0)
    return Error{"cannot stat the directory of " + printable(holder.path) + ": " + std::strerror(errno)};
  Key key{dir.st_dev, dir.st_ino, name};
  if (auto held = holders_.find(key); held != holders_.end()) {
    if (held->second.token == holder.token) return {};
    return Error{printable(held->second.path) + " is being received already by " + named(held->second) +
                 ": two receives at once would leave only the one renamed last, while each reported its own copy "
                 "verified; wait for that one to end (hnow status, hnow ops) or choose another --dest"};
  }
  byToken_[holder.token] = key;
  for (const std::string& t : transfers) byToken_[t] = key;
  holders_.emplace(std::move(key), std::move(holder));
  return {};
}

void DestClaims::release(const std::string& token) {
  auto it = byToken_.find(token);
  if (it == byToken_.end()) return;
  const Key key = it->second;
  auto held = holders_.find(key);
  if (held != holders_.end()) holders_.erase(held);
  for (auto t = byToken_.begin(); t != byToken_.end();) t = t->second == key ? byToken_.erase(t) : std::next(t);
}

void DestClaims::clear() {
  holders_.clear();
  byToken_.clear();
}

}  // namespace hnow::agent
