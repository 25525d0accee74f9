@0xc0c118a634b51107;
# hnow's control plane: agents and the hnow CLI talk to hnowd over Cap'n
# Proto RPC (docs/architecture.md). Bulk data never travels here; the data
# plane (transport/data/) has its own sockets. This file holds the Gate, the
# one capability a connection starts with; the sessions it opens and the
# values they carry are declared in files by who talks to whom:
#   agent_session.capnp   agent -> hnowd: liveness, rates, caps, transfer reports
#   agent_control.capnp   hnowd -> agent: receive, serve, probe and job orders
#   client_session.capnp  hnow CLI -> hnowd, and hnowd -> CLI progress
#     status.capnp, send.capnp, run.capnp: what the CLI asks and is told
#   rates.capnp, copies.capnp: values both sides name
# The files import downwards only (this one imports the sessions', never the
# reverse): capnp accepts an import cycle, but the C++ headers it generates
# then include each other and do not compile.
#
# Authentication (docs/security.md): the only capability a fresh connection
# gets is the Gate. A peer asks it for a single-use nonce and checks hnowd's
# Ed25519 signature over the peer's own nonce against the key it trusts (from
# its enrollment token, its config or its first enrollment), so an agent obeys
# commands only from the real hnowd. It then signs
#   "hnow/2 " ++ role ++ "\0" ++ name ++ "\0" ++ nonce
# with its own key (transport/identity.h). Operators' keys are listed in
# hnowd's config with their rights; agents' keys are bound to their names at
# enrollment. No private key or token secret ever crosses the wire.

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("hnow::wire");

# Every nonce and proof is exactly this many bytes; other sizes are refused.
const nonceBytes :UInt32 = 32;
const proofBytes :UInt32 = 32;

using import "agent_control.capnp".AgentControl;
using import "agent_session.capnp".AgentSession;
using import "client_session.capnp".ClientSession;
using import "rates.capnp".Registration;

# Ids written out, as in the other files: an interface's id travels in
# every call (tests/transport/wire_ids_test.cc).

interface Gate @0xbeb661f6704be875 {
  # The bootstrap capability of hnowd.
  challenge @0 (peerNonce :Data)
            -> (nonce :Data, coordinatorProof :Data, coordinatorKey :Data, coordinatorSignature :Data);
  # `nonce` is valid for one login on this connection. `coordinatorSignature`
  # is hnowd's signature over `peerNonce` (role "coordinator", name ""), made
  # with the key `coordinatorKey`. `coordinatorProof` is set only while hnowd
  # keeps a shared secret for agents not yet enrolled: the HMAC of
  # transport/auth.h over `peerNonce`, role "coordinator", with hnowd's key
  # text as the name, so an agent that learns the key from it knows the key
  # is the secret holder's.
  loginAgent @1 (proof :Data, registration :Registration, control :AgentControl)
             -> (session :AgentSession);
  # Obsolete (the shared-secret login of hnow-agent before keys): refused,
  # saying to upgrade the agent.
  loginClient @2 (proof :Data) -> (session :ClientSession);
  # Obsolete: the shared secret no longer opens a client session; refused,
  # saying how to make an operator key.
  loginOperator @3 (name :Text, signature :Data) -> (session :ClientSession, readOnly :Bool);
  # An operator listed in hnowd's config ([[operators]]) signs the nonce as
  # role "operator" under its name.
  loginAgentKey @4 (credential :AgentCredential, registration :Registration, control :AgentControl)
                -> (session :AgentSession, instance :UInt64);
  # instance: drawn at random when hnowd starts. An agent logging back in
  # to the same instance keeps its transfers (hnowd still runs them), to
  # another one it drops them.
  # The signature's name is the registration's name, which must be bound to
  # the key; the credential may enroll the key under that name first.
}

struct AgentCredential @0xad380052fdf9ca22 {
  key @0 :Data;          # the agent's Ed25519 public key
  signature @1 :Data;    # over the nonce, role "agent", the registration's name
  tokenId @2 :Data;      # enrolling with a token: its id (8 bytes)...
  tokenProof @3 :Data;   # ...and the HMAC with its secret (transport/identity.h: enrollProof)
  secretProof @4 :Data;  # enrolling through hnowd's shared secret (migration): role "agent"
}
