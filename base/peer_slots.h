#pragma once
// Slots for connections that have proven nothing yet (hnowd's logins, a data
// port's hellos), counted by the peer's address: a flood from one address,
// or from a few, must not lock out everyone else. Pure accounting: the
// caller closes the connections it is told to, and releases a slot once its
// connection logs in (or says hello) or ends.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>

namespace hnow {

struct PeerSlotLimits {
  std::size_t total = 64;   // slots of every peer together
  std::size_t perPeer = 8;  // an address's share of them once they are all taken
};

class PeerSlots {
 public:
  using Ticket = std::uint64_t;  // in arrival order: a smaller ticket waited longer

  enum class Verdict {
    kAdmitted,
    kPeerFull,  // every slot taken, and the address holds its share already: refused
    kPoolFull,  // every slot taken by addresses holding no more than this one: refused
  };
  struct Admission {
    Verdict verdict = Verdict::kAdmitted;
    Ticket ticket = 0;               // kAdmitted: the new connection's
    std::optional<Ticket> evicted;   // kAdmitted into a full pool: the connection to close now
    std::string evictedPeer;         // ...and its address
  };

  explicit PeerSlots(PeerSlotLimits limits) : limits_(limits) {}

  // A new connection from `peer` (an address, without its port). A free
  // slot is taken by whoever comes: many honest connections from one
  // address at once (20 `hnow` commands in parallel, a send's pulls, agents
  // behind one NAT) must not be refused while nobody else needs the slots.
  // With the pool full, an address below its share (perPeer) takes the
  // oldest slot of the address holding the most, whose connection is closed
  // to make room; an address at its share is refused. Evicting, not
  // reserving slots per address: a fixed reserve for each address would
  // need as many slots as addresses that may ever come, and would idle
  // while a burst from one address is refused; evicting keeps the whole
  // pool usable and only ever takes from the address holding the most, so
  // a flood of one address (or of a few) pays for itself and a newcomer
  // with nothing held always gets in.
  Admission admit(const std::string& peer);
  // The connection logged in, said hello or ended; an evicted or unknown
  // ticket is ignored.
  void release(Ticket ticket);

  std::size_t held() const { return peerOf_.size(); }
  std::size_t heldBy(const std::string& peer) const;
  const PeerSlotLimits& limits() const { return limits_; }

 private:
  PeerSlotLimits limits_;
  Ticket next_ = 1;
  std::map<Ticket, std::string> peerOf_;
  std::map<std::string, std::set<Ticket>> byPeer_;
};

// "10.0.0.3" of "10.0.0.3:41234" ("::1" of "::1:41234", as the daemons
// name IPv6 peers): the peer a connection is counted against, whatever
// port it came from.
std::string addressOf(const std::string& hostPort);

}  // namespace hnow
