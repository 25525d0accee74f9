@0xa1366c58c26c1828;
# agent -> hnowd: the session a logged-in agent holds (Gate.loginAgentKey in
# control.capnp) and what it reports on it: liveness and its data plane's
# counters, its rates and caps, and the progress of the receives hnowd
# ordered (AgentControl.receive in agent_control.capnp).
#
# Every declaration's id is written out rather than derived from the file's:
# an interface's id travels in every call, so a peer of another build must
# agree on it whichever file declares it (tests/transport/wire_ids_test.cc);
# structs and enums keep theirs too, so moving one changes no schema.

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("hnow::wire");

using import "copies.capnp".TreeOutcome;
using import "rates.capnp".EmulatedLinks;
using import "rates.capnp".LinkCaps;
using import "rates.capnp".LinkCounters;
using import "rates.capnp".Rates;

interface AgentSession @0xb1df143f2b98c4de {
  # Held by a registered agent; dropping it (or the connection) detaches it.
  heartbeat @0 (counters :LinkCounters);
  reportRates @1 (rates :Rates, emulated :EmulatedLinks);
  # Overheads and compute; links only when emulated.
  ping @2 ();
  # Small-message round trip for the overhead probe.
  reportTransfer @3 (report :TransferReport) -> (forget :Bool);
  # Progress of a receive: throttled progress, then done or failed.
  # forget: no operation of hnowd's holds this token any more (it ended
  # while the agent was away): the agent releases it.
  reportCaps @4 (caps :LinkCaps);
  # The bandwidth caps in force on the agent's links: after every login and
  # whenever its schedule changes them.
}

enum TransferState @0xd9b1be2169e5d06d {
  progress @0;
  done @1;
  failed @2;
  parentLost @3;     # the parent's connection ended; the agent retries until re-parented
  parentCorrupt @4;  # the parent sent a chunk the source's digests refute; dropped, waiting to be re-parented
  parentUnreachable @5;  # the connection to the parent could not be opened (refused or timed out); waiting to be re-parented
}

struct TransferReport @0xda379a78db5e051d {
  token @0 :Data;
  state @1 :TransferState;
  bytes @2 :UInt64;          # written in order (the resume offset)
  corruptChunks @3 :UInt64;  # caught by XXH3 and sent again
  message @4 :Text;
  path @5 :Text;             # done: the absolute path on the agent
  sha256 @6 :Text;           # done: hex
  tree @7 :TreeOutcome;      # done, a tree's: what the unpack published
  parentAddress @8 :Text;    # parentCorrupt, parentUnreachable: the parent (as hnowd named it) in question
}
