@0xd06ad030b5dda13c;
# hnowd -> hnow CLI: what `hnow status`, `hnow ops` and `hnow agent keys`
# show (ClientSession.status, operations, agentKeys in client_session.capnp):
# the agents, hnowd's own node, its rooms and hosts, the sends still owed
# and those waiting to run again after a restart,
# the operation records and the agents' identities.
#
# Every declaration's id is written out rather than derived from the file's:
# an interface's id travels in every call, so a peer of another build must
# agree on it whichever file declares it (tests/transport/wire_ids_test.cc);
# structs and enums keep theirs too, so moving one changes no schema.

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("hnow::wire");

using import "rates.capnp".CapInForce;
using import "rates.capnp".LinkRate;
using import "rates.capnp".Rates;

enum AgentState @0xffa505eb0c16b936 {
  alive @0;
  lost @1;
}

struct AgentStatus @0xbf1034dc1d0cae09 {
  name @0 :Text;
  site @1 :Text;
  state @2 :AgentState;
  hasRates @3 :Bool;
  ageS @4 :Float64;            # seconds since the rates last changed
  rates @5 :Rates;
  roots @6 :List(Text);
  dataAddress @7 :Text;
  capabilities @8 :List(Text);
  uplink @9 :LinkRate;
  downlink @10 :LinkRate;
  uplinkCap @11 :CapInForce;    # the bandwidth caps in force now
  downlinkCap @12 :CapInForce;
  relayFaults @13 :UInt32;      # sends in which a child caught it relaying altered bytes (2: planned as a leaf)
  networks @14 :List(Text);     # as it registered them (Registration)
  gateway @15 :Text;
  unreachable @16 :Text;        # why others cannot connect to its data plane ("" they can): planned as a leaf
  keyHosts @17 :List(Text);     # two addresses its key logged in from by turns lately (a copied key?); empty: none
  keyHostsChanges @18 :UInt32;  # logins that changed host between them
  keyHostsAgeS @19 :Float64;    # seconds since the latest
}

struct CoordinatorStatus @0xb061155f0edc69fd {
  # hnowd's own node: the source of every send.
  uplink @0 :LinkRate;
  downlink @1 :LinkRate;
  surveying @2 :Bool;          # a link survey is under way
  uplinkCap @3 :CapInForce;    # the bandwidth caps in force now ([limits] in hnowd.toml)
  downlinkCap @4 :CapInForce;
  rooms @5 :List(RoomStatus);  # none while every agent is in one room
  hosts @6 :List(HostStatus);  # machines that run two agents or more
}

struct HostStatus @0xe10002db7f76b96d {
  # Agents on one machine share its CPU, memory and disk: what they take in
  # together as hnowd learnt it from sends (docs/host-intake.md).
  key @0 :Text;                # base/host_key.h
  agents @1 :UInt32;
  intake @2 :LinkRate;
}

struct RoomStatus @0xcc086cfe3a9ce81d {
  # A room of agents behind one trunk, and the trunk as hnowd knows it
  # (docs/rooms.md); a trunk not measured is planned at the room's fastest port.
  name @0 :Text;
  agents @1 :UInt32;
  foundBy @2 :Text;            # "site labels"
  trunkIn @3 :LinkRate;        # into the room
  trunkOut @4 :LinkRate;       # out of it
}

struct OperationRecord @0xfc553a66fabdbca3 {
  # An operation hnowd carried out, as kept in its state database.
  id @0 :Int64;
  kind @1 :Text;               # "set-rate"; "send", "run" later
  startedUnixMs @2 :Int64;
  finishedUnixMs @3 :Int64;    # 0 while it runs
  status @4 :Text;             # "queued", "running", "done", "failed", "cancelled", "interrupted" (hnowd stopped first)
  summary @5 :Text;            # a JSON object
  progress @6 :Text;           # under way: how far it is, or why a queued job waits; "" else
}

struct OwedSend @0xcb1f145905a3c868 {
  # A send hnowd still owes to agents that were off (hnow send --until-all).
  record @0 :Int64;        # the record of the send that left them owed
  path @1 :Text;
  dest @2 :Text;
  agents @3 :List(Text);   # still owed
  sinceUnixMs @4 :Int64;
  sending @5 :Bool;        # a send to those connected again is under way
}

struct WaitingSend @0xa766ff3fad7ac015 {
  # A send the last hnowd left under way, waiting for its agents before it
  # runs again under its record (docs/send.md, "A send outlives hnowd").
  record @0 :Int64;
  path @1 :Text;
  dest @2 :Text;
  agents @3 :List(Text);    # it was for
  away @4 :List(Text);      # not back yet
  secondsLeft @5 :Float64;  # it waits for them at most this long more
}

struct AgentKeyEntry @0x926104cb6ee76d73 {
  # One agent identity as hnowd keeps it (`hnow agent keys`).
  name @0 :Text;
  key @1 :Text;          # ed25519:...
  state @2 :Text;        # enrolled | pending | revoked | unused-token (name: what it is for, "" any; key: "token ID")
  how @3 :Text;          # token | approved | secret | config (how it was enrolled)
  ageS @4 :Float64;      # since it was enrolled, asked, or revoked
  peer @5 :Text;         # pending: the address it asked from
  expiresInS @6 :Float64 = -1;  # unused-token: seconds until it no longer enrolls (-1: not a token)
}
