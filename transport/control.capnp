@0xc0c118a634b51107;
# hnow's control plane: agents and the hnow CLI talk to hnowd with these
# interfaces (DESIGN.md "Pieces"). Bulk data never travels here; the data
# plane (libuv, later issues) has its own sockets.
#
# Authentication (DESIGN.md "Integrity and security defaults"): the only
# capability a fresh connection gets is the Gate. A peer asks it for a
# single-use nonce, proves it knows the shared secret with
#   HMAC-SHA256(secret, "hnow/1 " ++ role ++ "\0" ++ name ++ "\0" ++ nonce)
# and only then receives a session capability. The secret never crosses the
# wire. The coordinator proves itself the same way over the peer's nonce
# (role "coordinator"), so an agent obeys commands only from the real hnowd.

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("hnow::wire");

# Every nonce and proof is exactly this many bytes; other sizes are refused.
const nonceBytes :UInt32 = 32;
const proofBytes :UInt32 = 32;

struct Rates {
  # What an agent measured about itself (planner/node_rates.h); 0 = unknown.
  uplinkBytesPerS @0 :Float64;
  downlinkBytesPerS @1 :Float64;
  sendOverheadS @2 :Float64;
  recvOverheadS @3 :Float64;
  computeSPerUnit @4 :Float64;
}

struct Registration {
  name @0 :Text;
  site @1 :Text;
  capabilities @2 :List(Text);  # e.g. "relay", "jobs"
  dataAddress @3 :Text;         # host:port of the agent's data plane ("" until it has one)
  roots @4 :List(Text);         # directories files may be written under
}

struct EmulatedRates {
  # Rates an agent paces its data sockets and probes at (DESIGN.md "Testing").
  # 0 in a field means "leave it as it is"; the agent decides what unlimited is.
  uplinkMbps @0 :Float64;
  downlinkMbps @1 :Float64;
  computeFactor @2 :Float64;
}

interface Gate {
  # The bootstrap capability of hnowd.
  challenge @0 (peerNonce :Data) -> (nonce :Data, coordinatorProof :Data);
  # `nonce` is valid for one login on this connection; `coordinatorProof`
  # is the coordinator's HMAC over `peerNonce` (role "coordinator", name "").
  loginAgent @1 (proof :Data, registration :Registration, control :AgentControl)
             -> (session :AgentSession);
  # The proof's name is the registration's name.
  loginClient @2 (proof :Data) -> (session :ClientSession);
  # The proof's role is "client" and its name is "".
}

interface AgentSession {
  # Held by a registered agent; dropping it (or the connection) detaches it.
  heartbeat @0 ();
  reportRates @1 (rates :Rates);
  ping @2 ();
  # Small-message round trip for the overhead probe.
  probeUpload @3 (data :Data);
  # A timed bulk transfer agent → hnowd; hnowd refuses more than 1 MiB per call.
  probeDownload @4 (bytes :UInt32) -> (data :Data);
  # A timed bulk transfer hnowd → agent; at most 1 MiB per call.
}

interface AgentControl {
  # Exported by every agent at login: hnowd's commands to it. Later issues
  # add "receive and relay this" and "run this share".
  setEmulatedRates @0 (rates :EmulatedRates);
  probeNow @1 ();
  # Measure now and report, instead of waiting for the probe interval.
}

enum AgentState {
  alive @0;
  lost @1;
}

struct AgentStatus {
  name @0 :Text;
  site @1 :Text;
  state @2 :AgentState;
  hasRates @3 :Bool;
  ageS @4 :Float64;            # seconds since the rates last changed
  rates @5 :Rates;
  roots @6 :List(Text);
  dataAddress @7 :Text;
  capabilities @8 :List(Text);
}

struct OperationRecord {
  # An operation hnowd carried out, as kept in its state database.
  id @0 :Int64;
  kind @1 :Text;               # "set-rate"; "send", "run" later
  startedUnixMs @2 :Int64;
  finishedUnixMs @3 :Int64;    # 0 while it runs
  status @4 :Text;             # "running", "done", "failed"
  summary @5 :Text;            # a JSON object
}

interface ClientSession {
  # What the hnow command line may do once authenticated.
  status @0 () -> (agents :List(AgentStatus));
  setEmulatedRates @1 (name :Text, rates :EmulatedRates);
  # Fails with a message when the agent is unknown or not connected.
  operations @2 (limit :UInt32) -> (records :List(OperationRecord));
  # The newest `limit` (at most 1000) operation records, newest first.
}
