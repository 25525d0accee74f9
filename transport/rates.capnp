@0xf34e6faeb6933d98;
# Values both sides of the control plane name: a node's rates and links as
# plans take them, what an agent's data plane counted, the bandwidth caps in
# force, an agent's registration and the rates it is told to emulate. Agents
# report them (agent_session.capnp), hnowd orders with them
# (agent_control.capnp) and shows them to the hnow CLI (status.capnp).
#
# Every declaration's id is written out rather than derived from the file's:
# an interface's id travels in every call, so a peer of another build must
# agree on it whichever file declares it (tests/transport/wire_ids_test.cc);
# structs and enums keep theirs too, so moving one changes no schema.

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("hnow::wire");

struct Rates @0x9adb808175aa2676 {
  # A node's rates as plans take them (planner/node_rates.h); 0 = unknown.
  # An agent reports its overheads and compute rate; its links are measured
  # by hnowd's surveys (daemon/core/links/link_survey.h).
  uplinkBytesPerS @0 :Float64;
  downlinkBytesPerS @1 :Float64;
  sendOverheadS @2 :Float64;
  recvOverheadS @3 :Float64;
  computeSPerUnit @4 :Float64;
}

struct EmulatedLinks @0xdbaff14be9f25411 {
  # The rates an agent paces its data plane at (hnow local); 0: not paced,
  # a real link that hnowd measures.
  uplinkBytesPerS @0 :Float64;
  downlinkBytesPerS @1 :Float64;
}

struct LinkCounters @0xa64a62d2ef4e8890 {
  # What an agent's data plane and network interface carried since it
  # started (transport/data/link_counters.h); hnowd differences them.
  atS @0 :Float64;            # the agent's steady clock
  dataSent @1 :UInt64;        # hnow's payload handed to and taken from its sockets
  dataReceived @2 :UInt64;
  obsoleteWireSent @3 :UInt64;      # not set: the interface's packet counts
  obsoleteWireReceived @4 :UInt64;  # tell its headers (nicSentPackets)
  nicKnown @5 :Bool;
  nicSent @6 :UInt64;         # everything through the interface: bytes
  nicReceived @7 :UInt64;
  tcpSent @8 :UInt64;         # hnow's payload its peers acknowledged
  tcpReceived @9 :UInt64;     # hnow's payload received
  nicSentPackets @10 :UInt64; # and packets
  nicReceivedPackets @11 :UInt64;
}

struct LinkRate @0xabc56b1b07384a0a {
  # One link of a node as hnowd knows it (daemon/core/links/link_rate.h).
  bytesPerS @0 :Float64;           # the capacity; for method "bound", the least it is
  method @1 :Text;                 # probe | passive | bound | emulated | configured | unknown
  ageS @2 :Float64;                # since it was last measured or confirmed
  spread @3 :Float64;              # (max - min) / median of the samples behind it
  samples @4 :UInt32;
  foreignBytesPerS @5 :Float64;    # traffic that is not hnow's on the link now
  availableBytesPerS @6 :Float64;  # what a plan made now takes
  toldBytesPerS @7 :Float64;       # the agent says it paces the link so, but achieves bytesPerS: flagged
}

struct DirectionCaps @0xeb477e0200414247 {
  # The bandwidth caps in force on one direction of a node's link
  # (docs/bandwidth-limits.md, base/bandwidth_limits.h): the static cap, the
  # lowest absolute schedule window and the lowest percentage window in
  # force (0: none), and the schedule entries that set them.
  staticBytesPerS @0 :Float64;
  windowBytesPerS @1 :Float64;
  absoluteWindow @2 :Text;
  percent @3 :Float64;          # of the link's capacity
  percentWindow @4 :Text;
}

struct LinkCaps @0x8ae7a0b1617eab4f {
  up @0 :DirectionCaps;
  down @1 :DirectionCaps;
}

struct CapInForce @0x9321ed6ce027bec1 {
  # One direction's cap as `hnow status` shows it: what plans and pacing take.
  bytesPerS @0 :Float64;        # 0: none
  by @1 :Text;                  # "max_uplink_mbps", "max_downlink_mbps" or the schedule entry
}

struct Registration @0xd795ce1035896800 {
  name @0 :Text;
  site @1 :Text;
  capabilities @2 :List(Text);  # e.g. "relay", "jobs"
  dataAddress @3 :Text;         # host:port of the agent's data plane ("" until it has one)
  roots @4 :List(Text);         # directories files may be written under
  networks @5 :List(Text);      # its interface addresses, "10.1.2.3/26"; its data plane's first
  gateway @6 :Text;             # its default IPv4 gateway ("" when none); older agents send neither
  host @7 :Text;                # its machine and network namespace, hashed (base/host_key.h); "" from older agents
  keptInstance @8 :UInt64;      # the hnowd instance (Gate.loginAgentKey) whose transfers this process still runs;
                                # 0: none (a new process, or one that dropped them): hnowd orders them again
}

struct EmulatedRates @0x9b9dd12c886bddfd {
  # Rates an agent paces its data sockets and probes at, so that one machine
  # can stand in for a lab of slower ones (docs/architecture.md "Testing").
  # 0 in a field means "leave it as it is"; the agent decides what unlimited is.
  uplinkMbps @0 :Float64;
  downlinkMbps @1 :Float64;
  computeFactor @2 :Float64;
}
