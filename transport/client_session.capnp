@0xe3faff33db6c4b64;
# hnow CLI -> hnowd: the session an operator's login opens
# (Gate.loginOperator in control.capnp), and the listener the CLI exports
# to follow an operation (hnowd -> CLI). The values it carries are in
# status.capnp, send.capnp and run.capnp.
#
# Every declaration's id is written out rather than derived from the file's:
# an interface's id travels in every call, so a peer of another build must
# agree on it whichever file declares it (tests/transport/wire_ids_test.cc);
# structs and enums keep theirs too, so moving one changes no schema.

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("hnow::wire");

using import "rates.capnp".EmulatedRates;
using import "run.capnp".RunReport;
using import "run.capnp".RunRequest;
using import "send.capnp".FileStamp;
using import "send.capnp".ManifestReport;
using import "send.capnp".ManifestRequest;
using import "send.capnp".SendReport;
using import "send.capnp".SendRequest;
using import "status.capnp".AgentKeyEntry;
using import "status.capnp".AgentStatus;
using import "status.capnp".CoordinatorStatus;
using import "status.capnp".OperationRecord;
using import "status.capnp".OwedSend;
using import "status.capnp".WaitingSend;

interface ClientSession @0x86761ec34b694686 {
  # What the hnow command line may do once authenticated.
  status @0 () -> (agents :List(AgentStatus), coordinator :CoordinatorStatus, owed :List(OwedSend),
             waiting :List(WaitingSend));
  setEmulatedRates @1 (name :Text, rates :EmulatedRates);
  # Fails with a message when the agent is unknown or not connected.
  operations @2 (limit :UInt32) -> (records :List(OperationRecord));
  # The newest `limit` (at most 1000) operation records, newest first.
  send @3 (request :SendRequest) -> (operation :UInt64, report :SendReport);
  # Plans and starts a send; fails with the reason when any destination is refused.
  followSend @4 (operation :UInt64, listener :ProgressListener) -> (report :SendReport);
  # Pushes the send's reports to `listener` (ProgressListener) until it
  # ends, then answers its final report. Refused for an unknown operation.
  sendManifest @5 (request :ManifestRequest) -> (operation :UInt64, report :ManifestReport);
  # Plans the items jointly and starts them; fails before any byte
  # moves when a source file or a destination is refused, naming the item.
  followManifest @6 (operation :UInt64, listener :ProgressListener) -> (report :ManifestReport);
  # As followSend, for a manifest.
  run @7 (request :RunRequest) -> (operation :UInt64, record :UInt64);
  # Checks the request and queues the job (it starts at once when its
  # agents are free); fails with the reason. `record`: its operation
  # record (`hnow ops`, `hnow cancel`); 0 when state.db could not keep it.
  followRun @8 (operation :UInt64, listener :ProgressListener) -> (report :RunReport);
  # As followSend, for a run.
  grantOutput @9 (operation :UInt64) -> (token :Data, size :UInt64, sha256 :Data, digestChunkBytes :UInt32,
                                         pieceDigests :Data, dataPort :UInt16);
  # A finished run's result kept at hnowd (run without --output), served on
  # hnowd's data plane: the client dials hnowd's data port (at the host it
  # reached hnowd at) and pulls `token`, handed over this authenticated
  # session alone, checking each chunk against `pieceDigests` (as
  # ReceiveOrder's) and the whole against `sha256`. Served until the
  # session ends. Only the grant travels here, never the bytes.
  measure @10 (nodes :List(Text));
  # Surveys the links of these nodes ("hnowd" for hnowd's own; every node
  # when empty) and answers once they are measured, even while data moves;
  # fails with the reason.
  forgetAgent @11 (name :Text);
  # A machine gone for good: its record, rates and links removed. Fails
  # for an unknown agent and for one that is connected.
  sees @12 (path :Text, size :UInt64, mtimeNs :Int64, key :Text, stamp :FileStamp) -> (same :Bool, why :Text, kept :Bool);
  # Does hnowd read, at `path`, a regular file of this size and mtime (the
  # client's own machine, or a shared filesystem)? If not, `kept`: hnowd
  # holds the client's last upload under `key` (the client's host and the
  # file's path) with this `stamp`, and the client sends it as
  # SendRequest.uploadKey with no upload; else the client uploads its file.
  upload @13 (size :UInt64) -> (id :UInt64, token :Data, ticket :Data, dataPort :UInt16);
  # A file of the client's (its standard input spooled first) of `size`
  # bytes, to be sent as SendRequest.upload. Only the grant travels here:
  # the bytes go over the data plane (docs/tree-send.md, "From the
  # client's machine"). The client dials hnowd's data port (at the host it
  # reached hnowd at), presents `ticket` (an OFFER) and serves `token` over
  # that connection; hnowd pulls, checks each chunk, hashes the file as it
  # lands and renames it into its data directory. Refused when hnowd's disk
  # would keep less than 1 GiB free.
  seesTree @14 (path :Text, listing :Data) -> (same :Bool, why :Text);
  # Does hnowd list, at `path`, the directory whose listing digest
  # (transport/data/tree_walk.h: treeListingDigest) the client took? If
  # not, the client packs its directory and uploads the bundle.
  keptHeld @15 (key :Text, index :Data) -> (missing :List(UInt32), sameSize :List(UInt32));
  # A client's directory uploaded before (docs/tree-send.md, "From the
  # client's machine"): which files of a part of its index (as
  # AgentControl.treeHeld's) the copy hnowd kept under `key` (the client's
  # host and the directory's path) lacks, and which it has with the same
  # size and another mtime. The client then uploads only those. Refused
  # while a send from that copy runs.
  agentToken @16 (name :Text, ttlS :Float64) -> (token :Text, expiresInS :Float64);
  # A single-use enrollment token for a new agent (`hnow agent token`);
  # `name` "" lets it enroll under any free name.
  revokeAgent @17 (name :Text) -> (closed :UInt32);
  # The agent's key refused from now on and its sessions closed.
  approveAgent @18 (name :Text, expectedKey :Text) -> (key :Text);
  # Binds the key a pending agent asked with to its name. `expectedKey`,
  # when not "", is the key the operator was shown (`hnow agent approve`
  # shows each fingerprint first): refused if the agent now asks with
  # another, so a key swapped in between is never the one approved.
  agentKeys @19 () -> (keys :List(AgentKeyEntry));
  acknowledgeAgent @20 (name :Text) -> (hosts :List(Text));
  # `hnow agent ack`: the flag of the agent's key taking turns between two
  # hosts (AgentStatus.keyHosts) is known to an operator: no longer shown.
  # Every operation but status, operations and the progress of operations
  # is refused to a read-only operator.
  uploaded @21 (id :UInt64, sha256 :Data) -> (size :UInt64);
  # Answers once this session's upload `id` (upload) is whole and the
  # SHA-256 hnowd took as it landed is `sha256`, the client's of its file
  # (hashed while it served it); fails with the reason when it cannot be
  # (the connection carrying it ended, or its bytes differ).
  cancel @22 (operation :UInt64) -> (note :Text);
  # `hnow cancel ID`, and Ctrl-C on a client that follows what it started:
  # ends operation record `operation` (`hnow ops`) now, its record
  # "cancelled" with this session's operator as who cancelled it; for the
  # record of an --until-all send, drops what it still owes. `note` says
  # what was stopped or dropped. Refused to a read-only operator, and for
  # an operation neither under way nor owing copies.
  locate @23 (record :UInt64) -> (kind :Text, operation :UInt64, entry :OperationRecord);
  # The operation record `record` (`hnow ops`) names, as followSend,
  # followManifest, followRun and grantOutput take it: `kind` "send",
  # "manifest" or "run". `operation` 0: hnowd holds no such operation now
  # (it ended long ago, or before hnowd last started): `entry`, the record
  # itself, tells how it ended (its id 0: there is no such record). Allowed
  # to a read-only operator.
}

interface ProgressListener @0xf377927a6b80395e {
  # An operation's progress, pushed by hnowd to the client following it
  # (ClientSession.followSend, followManifest, followRun): when its report
  # changed, at most every 100 ms, and at least every second while it runs
  # (the client tells a quiet operation from a lost hnowd). Streaming calls:
  # hnowd sends the next only once the client's flow window has room, so a
  # slow client holds no pile of reports at hnowd. A call that fails (the
  # client is gone) ends the follow and hnowd drops the listener.
  send @0 (report :SendReport) -> stream;
  manifest @1 (report :ManifestReport) -> stream;
  run @2 (report :RunReport) -> stream;
}
