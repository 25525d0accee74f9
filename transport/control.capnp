@0xc0c118a634b51107;
# hnow's control plane: agents and the hnow CLI talk to hnowd with these
# interfaces (docs/architecture.md). Bulk data never travels here; the data
# plane (libuv, later issues) has its own sockets.
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

struct Rates {
  # A node's rates as plans take them (planner/node_rates.h); 0 = unknown.
  # An agent reports its overheads and compute rate; its links are measured
  # by hnowd's surveys (daemon/core/links/link_survey.h).
  uplinkBytesPerS @0 :Float64;
  downlinkBytesPerS @1 :Float64;
  sendOverheadS @2 :Float64;
  recvOverheadS @3 :Float64;
  computeSPerUnit @4 :Float64;
}

struct EmulatedLinks {
  # The rates an agent paces its data plane at (hnow local); 0: not paced,
  # a real link that hnowd measures.
  uplinkBytesPerS @0 :Float64;
  downlinkBytesPerS @1 :Float64;
}

struct LinkCounters {
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

struct LinkRate {
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

struct DirectionCaps {
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

struct LinkCaps {
  up @0 :DirectionCaps;
  down @1 :DirectionCaps;
}

struct CapInForce {
  # One direction's cap as `hnow status` shows it: what plans and pacing take.
  bytesPerS @0 :Float64;        # 0: none
  by @1 :Text;                  # "max_uplink_mbps", "max_downlink_mbps" or the schedule entry
}

struct Registration {
  name @0 :Text;
  site @1 :Text;
  capabilities @2 :List(Text);  # e.g. "relay", "jobs"
  dataAddress @3 :Text;         # host:port of the agent's data plane ("" until it has one)
  roots @4 :List(Text);         # directories files may be written under
  networks @5 :List(Text);      # its interface addresses, "10.1.2.3/26"; its data plane's first
  gateway @6 :Text;             # its default IPv4 gateway ("" when none); older agents send neither
  host @7 :Text;                # its machine and network namespace, hashed (base/host_key.h); "" from older agents
}

struct EmulatedRates {
  # Rates an agent paces its data sockets and probes at, so that one machine
  # can stand in for a lab of slower ones (docs/architecture.md "Testing").
  # 0 in a field means "leave it as it is"; the agent decides what unlimited is.
  uplinkMbps @0 :Float64;
  downlinkMbps @1 :Float64;
  computeFactor @2 :Float64;
}

interface Gate {
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

struct AgentCredential {
  key @0 :Data;          # the agent's Ed25519 public key
  signature @1 :Data;    # over the nonce, role "agent", the registration's name
  tokenId @2 :Data;      # enrolling with a token: its id (8 bytes)...
  tokenProof @3 :Data;   # ...and the HMAC with its secret (transport/identity.h: enrollProof)
  secretProof @4 :Data;  # enrolling through hnowd's shared secret (migration): role "agent"
}

struct AgentKeyEntry {
  # One agent identity as hnowd keeps it (`hnow agent keys`).
  name @0 :Text;
  key @1 :Text;          # ed25519:...
  state @2 :Text;        # enrolled | pending | revoked
  how @3 :Text;          # token | approved | secret | config (how it was enrolled)
  ageS @4 :Float64;      # since it was enrolled, asked, or revoked
  peer @5 :Text;         # pending: the address it asked from
}

interface AgentSession {
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

# Data plane. The token names one operation; data connections
# present it and unknown tokens are dropped (docs/architecture.md
# "Integrity and security defaults").
const tokenBytes :UInt32 = 32;

struct ReceiveOrder {
  token @0 :Data;
  dest @1 :Text;     # relative: under the agent's data root (its first root); absolute: inside a root
  size @2 :UInt64;
  sha256 @3 :Data;   # of the whole file, checked before the rename into place
  stripes @4 :List(Stripe);
  # Empty: the file comes whole under `token`. Else the file comes as these
  # byte ranges (in order, covering it), each pulled and relayed under its
  # own token and checked against its own digest before the rename; `token`
  # then names the file as a whole (release).
  stripeChunkBytes @5 :UInt32;
  # what each stripe is relayed in: 0 the data plane's own (128 KiB), else
  # 4 KiB to 128 KiB (a stripe's pipeline fills faster in smaller chunks)
  uplinkPaceBytesPerSecond @6 :Float64;
  # While this receive lives, pace the data plane's uplink at this (a little
  # under the capacity hnowd measured), so the pacing, not the link's
  # shallow queue, divides it among the children; 0: as it is. Emulated
  # rates (setEmulatedRates) take precedence.
  tree @7 :Bool;
  # The file is a directory tree's bundle (docs/tree-send.md): once it
  # matched, the agent unpacks it as `dest` (a directory) and reports done
  # only then, with what it published.
  copy @8 :CopyOptions;
  # How the agent lays down its copy: the options of `hnow send` it acts
  # on, copied whole from SendRequest.copy.
  compressed @9 :Bool;
  # The file is one zstd frame of the source's (docs/compression.md): it is
  # received, checked and relayed as it is, then expanded beside dest (a
  # tree: into its bundle) and checked against plainSize and plainSha256
  # before the rename (a tree: before the unpack); done only then.
  plainSize @10 :UInt64;
  plainSha256 @11 :Data;   # 32 bytes when compressed
  downlinkPaceBytesPerSecond @12 :Float64;
  # While this receive lives, pace the data plane's downlink at most at this
  # (a send's --max-rate, a cap of the agent's measured downlink); 0: as it is.
  digestChunkBytes @13 :UInt32;
  # The source's chunk digests (transport/data/chunk_digests.h): every node
  # serves the file (each stripe) in chunks of exactly this, and checks each
  # chunk it receives against its SHA-256 before it writes or relays it.
  # 0: none, only the whole digests are checked.
  pieceDigests @14 :Data;
  # The whole file's pieces' digests, 32 bytes each (none when striped:
  # each stripe carries its own).
  operation @15 :Text;
  # What hnowd calls the operation this receive is part of ("send record
  # 12", "manifest record 4, item at M.toml:3:1"): an agent that refuses
  # another receive into the same destination meanwhile names it (its first
  # 200 bytes); "" none.
  progressEveryMs @16 :UInt32;
  # Report progress at most this often (done, failed and parent news at
  # once); 0: as the data plane measures it (every 100 ms). hnowd spaces
  # the reports of a send to hundreds of agents, which would otherwise
  # outrun its control thread.
}

struct Stripe {
  token @0 :Data;
  offset @1 :UInt64;
  length @2 :UInt64;
  sha256 @3 :Data;
  pieceDigests @4 :Data;  # its pieces' (ReceiveOrder.digestChunkBytes), its chunks cut from its start
}

const maxStripes :UInt32 = 64;

enum TransferState {
  progress @0;
  done @1;
  failed @2;
  parentLost @3;     # the parent's connection ended; the agent retries until re-parented
  parentCorrupt @4;  # the parent sent a chunk the source's digests refute; dropped, waiting to be re-parented
  parentUnreachable @5;  # the connection to the parent could not be opened (refused or timed out); waiting to be re-parented
}

struct TransferReport {
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

# A path of a tree (relative to its top, bytes that are not printable
# UTF-8 escaped as \xNN) and what went wrong with it.
struct PathProblem {
  path @0 :Text;
  why @1 :Text;
}

const maxPathProblems :UInt32 = 100;  # listed per report; the rest only counted

struct TreeOutcome {
  files @0 :UInt64;          # files published
  bytes @1 :UInt64;
  replaced @2 :UInt64;       # of them, files that took another's place
  failedCount @3 :UInt64;
  failed @4 :List(PathProblem);  # at most maxPathProblems
  held @5 :UInt64;           # files kept as they were: the agent held them already
  deleted @6 :UInt64;        # entries removed (--delete)
  copied @7 :UInt64;         # files the agent held under another path of the tree, copied from there (not sent)
}

interface AgentControl {
  # Exported by every agent at login: hnowd's commands to it. Later issues
  # add "receive and relay this" and "run this share".
  setEmulatedRates @0 (rates :EmulatedRates);
  probeNow @1 ();
  # Measure now and report, instead of waiting for the probe interval.
  receive @2 (order :ReceiveOrder) -> (path :Text);
  # Prepare a receive: the destination is checked against the agent's roots
  # and a temp file created beside it; fails with the reason when refused.
  # Returns the absolute final path.
  pull @3 (token :Data, parentAddress :Text);
  # (Re)connect to this parent (host:port) and pull from the bytes held.
  release @4 (token :Data);
  # The operation is over: close its connections, remove an unfinished temp file.
  serveFile @5 (token :Data, file :Text, uplinkPaceBytesPerS :Float64)
      -> (size :UInt64, sha256 :Data, digestChunkBytes :UInt32, pieceDigests :Data);
  # manifests: be the source of one item. `file` is resolved like a
  # receive's dest (relative: under the data root; absolute: inside a root;
  # no '..', no symlink on the way); fails with the reason when refused.
  # Served to children presenting `token` until release(token), the
  # agent's uplink paced at most at `uplinkPaceBytesPerS` meanwhile (0: as
  # it is). The file is hashed off the agent's control thread.
  fetchJobFile @6 (input :JobInput);
  # Pull a file into this agent's job area; resolves once verified.
  runJobTask @7 (task :JobTask) -> (result :JobResult);
  # Run a command on held files; resolves when it ended.
  dropJobFiles @8 (tokens :List(Data));
  # Stop serving these files and delete them.
  probeLinks @9 (order :LinkProbeOrder) -> (result :LinkProbeResult);
  # This agent's part of one probe round of a link survey: serve probe
  # flows presenting the token, pull one from each address, and measure
  # over the window; answers when the window has closed.
  treeHeld @10 (dest :Text, index :Data) -> (missing :List(UInt32), sameSize :List(UInt32));
  # Only what changed (docs/tree-send.md): which files of a tree's index
  # (a part of it: the directories its files lie in, then the files, no
  # bytes) `dest` lacks, as ordinals into that index; the same size and
  # mtime, or the same SHA-256 where the index lists it, is held.
  # `sameSize`: files of the same size and another mtime whose entry lists
  # no SHA-256, which hnowd asks about again with it. Fails with the reason
  # for a bad index or a refused dest.
  fileHeld @11 (dest :Text, size :UInt64, sha256 :Data) -> (holding :DestHolding, heldAt :Text);
  # A single file's send (docs/send.md, "A file already there"): what
  # `dest` (resolved as a receive's) holds of a file of `size` bytes and,
  # when `sha256` is not empty (32 bytes), of that digest. Read off the
  # agent's control thread. Fails with the reason for a refused dest or a
  # directory there. A file of that size elsewhere under dest's root makes
  # the answer sameSize without a digest; with one, `heldAt` names the
  # file there with those bytes (absolute) when dest does not hold them.
  copyHeld @12 (dest :Text, from :Text, size :UInt64, sha256 :Data) -> (path :Text);
  # Writes `dest` (resolved as a receive's) from the agent's own file
  # `from` (as a served file's: inside a root, no symlink), its bytes
  # checked against `sha256` as they are copied; published as a received
  # file is. Returns the absolute final path; fails with the reason.
  offerFile @13 (token :Data, ticket :Data, address :Text);
  # hnowd cannot connect to this agent's data plane (docs/reachability.md):
  # dial the data plane at `address` (host:port; 0.0.0.0 means hnowd's
  # host), present `ticket` (32 bytes) and serve the job file held under
  # `token` over that connection, as to a child that connected. Resolves
  # when the other end said HELLO (it pulls from there); fails with the
  # reason when the connection could not be opened or the file is not held.
}

enum DestHolding {
  absent @0;    # nothing at dest
  other @1;     # another size, other bytes, or not a regular file
  sameSize @2;  # a regular file of that size; no digest was given
  same @3;      # a regular file of that size and digest
}

struct LinkProbeOrder {
  token @0 :Data;            # 32 bytes, new for every round
  serve @1 :Bool;            # this node sends in the round
  pullFrom @2 :List(Text);   # data addresses (host:port) to pull a flow from each; at most 64
  warmS @3 :Float64;         # flows run this long before the window opens
  windowS @4 :Float64;       # the measured window; warmS + windowS at most 10
}

struct LinkProbeResult {
  flowBytes @0 :List(UInt64);  # payload received from each pullFrom address within the window
  windowS @1 :Float64;
  before @2 :LinkCounters;     # this node's counters when the window opened
  after @3 :LinkCounters;      # and when it closed
  flowBytesPerS @4 :List(Float64);  # each flow's rate, fitted to its arrivals in the window; empty from an older agent
  sentBytesPerS @5 :Float64;      # what the node's data plane sent and received, fitted the same way;
  receivedBytesPerS @6 :Float64;  # 0: too little to fit (its counters stand)
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

struct CoordinatorStatus {
  # hnowd's own node: the source of every send.
  uplink @0 :LinkRate;
  downlink @1 :LinkRate;
  surveying @2 :Bool;          # a link survey is under way
  uplinkCap @3 :CapInForce;    # the bandwidth caps in force now ([limits] in hnowd.toml)
  downlinkCap @4 :CapInForce;
  rooms @5 :List(RoomStatus);  # none while every agent is in one room
  hosts @6 :List(HostStatus);  # machines that run two agents or more
}

struct HostStatus {
  # Agents on one machine share its CPU, memory and disk: what they take in
  # together as hnowd learnt it from sends (docs/host-intake.md).
  key @0 :Text;                # base/host_key.h
  agents @1 :UInt32;
  intake @2 :LinkRate;
}

struct RoomStatus {
  # A room of agents behind one trunk, and the trunk as hnowd knows it
  # (docs/rooms.md); a trunk not measured is planned at the room's fastest port.
  name @0 :Text;
  agents @1 :UInt32;
  foundBy @2 :Text;            # "site labels"
  trunkIn @3 :LinkRate;        # into the room
  trunkOut @4 :LinkRate;       # out of it
}

struct OperationRecord {
  # An operation hnowd carried out, as kept in its state database.
  id @0 :Int64;
  kind @1 :Text;               # "set-rate"; "send", "run" later
  startedUnixMs @2 :Int64;
  finishedUnixMs @3 :Int64;    # 0 while it runs
  status @4 :Text;             # "running", "done", "failed", "interrupted" (hnowd stopped first)
  summary @5 :Text;            # a JSON object
}

struct SendRequest {
  path @0 :Text;          # on hnowd's machine
  dest @1 :Text;
  to @2 :List(Text);      # empty or ["all"]: every alive agent; else site or agent names
  algo @3 :Text;          # auto|tree|striped|fnf|optimal|lcf|binomial|chain|flat
  noReplan @4 :Bool;      # keep the first tree on drift (losses still re-parent)
  copy @5 :CopyOptions;   # how each agent lays down its copy (--atomic, --delete), given to it whole
  upload @6 :UInt64;      # not 0: send this session's upload (ClientSession.upload), not `path`
  compress @7 :Text;      # auto|zstd|none; empty: auto (docs/compression.md)
  untilAll @8 :Bool;      # agents without a copy at the end stay owed it (docs/until-all.md)
  maxRateBytesPerS @9 :Float64;  # --max-rate: every link the send uses at most this; 0: none
  uploadIsTree @10 :Bool; # the upload is a tree's bundle (the client's directory): hnowd unpacks it and sends that tree
  force @11 :Bool;        # a file: replace a different file already at --dest (else the send is refused)
  uploadKey @12 :Text;    # with uploadIsTree: the bundle holds only what hnowd's kept copy of this tree lacked (keptHeld); "" the whole tree
                          # a file's: the upload becomes hnowd's kept copy under this key; with no upload, send that copy (sees said kept)
  uploadStamp @13 :FileStamp;  # with a file's uploadKey: the client's stamp of the file
}

struct FileStamp {
  # A client's file as its machine stamps it: what hnowd's kept copy of
  # its upload is matched against (docs/tree-send.md, "Kept files"). The
  # ctime and inode catch a file rewritten with its mtime set back.
  size @0 :UInt64;
  mtimeNs @1 :Int64;
  ctimeNs @2 :Int64;
  inode @3 :UInt64;
}

struct CopyOptions {
  # How each agent lays down its copy of a send: the options of `hnow send`
  # the agent itself acts on (transport/orders/copy_options.h), held whole
  # by SendRequest and ReceiveOrder so hnowd copies it without naming them.
  atomic @0 :Bool;        # a tree: publish it at once (staged beside dest, then one rename), not file by file
  deleteOthers @1 :Bool;  # a tree, not atomic: then remove what dest holds that it does not name
}

enum CopyState {
  waiting @0;
  receiving @1;
  done @2;
  failed @3;
}

struct CopyStatus {
  node @0 :Text;
  parent @1 :Text;        # "hnowd" for the source
  state @2 :CopyState;
  bytes @3 :UInt64;
  finishedS @4 :Float64;  # since the start; done only
  plannedS @5 :Float64;   # predicted finish
  path @6 :Text;
  sha256 @7 :Text;
  message @8 :Text;       # failed: why
  corruptChunks @9 :UInt64;
  stripeParents @10 :List(Text);  # a striped send: the parent in each stripe
  heldS @11 :Float64;             # since the start, every byte in (before the digest); 0 until then
  stripeHeldS @12 :List(Float64); # a striped send: heldS per stripe
  tree @13 :TreeOutcome;          # a tree's copy, done: what the agent published
}

struct SendReport {
  finished @0 :Bool;
  algo @1 :Text;
  size @2 :UInt64;
  predictedS @3 :Float64;
  elapsedS @4 :Float64;
  copies @5 :List(CopyStatus);
  considered @6 :List(PlanOption);
  # what `auto` weighed (or the one algorithm's two predictions)
  fluidBoundS @7 :Float64;
  # replanning mid-transfer
  replanning @8 :Bool;             # false: --no-replan
  replans @9 :UInt32;              # new trees adopted
  replannedPredictedS @10 :Float64;  # the latest replan's predicted end, since the start; 0: none
  parentChanges @11 :List(ParentChange);
  rateBounds @12 :List(Text);
  # links the plan took at a lower bound, e.g. "agent-3 downlink >= 192.0 Mbit/s"
  boundS @13 :Float64;             # Kumar & Ross's minimum distribution time; 0: not computed
  why @14 :Text;                   # auto: why the plan won
  stripeOffsets @15 :List(UInt64); # a striped send: stripe k is bytes [k, k + 1) of these
  skipped @16 :List(SkippedAgent); # agents the send was for (all, a site) that could not receive
  tree @17 :TreeSummary;           # a directory's send; absent for a file
  compression @18 :Compression;    # what --compress decided; absent from an older hnowd
  maxRateBytesPerS @19 :Float64;   # the send's --max-rate; 0: none
  held @20 :List(Text);            # a file: agents that held it at --dest already (same SHA-256): nothing moved to them
  replaced @21 :List(Text);        # a file, --force: agents whose different file at --dest it replaces
  source @22 :Text;                # the agent that served the file, holding it already; "" hnowd
  copiedHere @23 :List(HeldCopy);  # a file: agents among `held` that wrote --dest from the same bytes under another path
  groups @24 :List(BundleGroup);   # a tree sent as a bundle per group of agents by what they lack; empty: one bundle
}

struct BundleGroup {
  agents @0 :List(Text);
  sentFiles @1 :UInt64;            # files its bundle carries, and their bytes
  sentBytes @2 :UInt64;
  size @3 :UInt64;                 # the bundle as it moved (compressed or not)
  algo @4 :Text;
  predictedS @5 :Float64;
  elapsedS @6 :Float64;
  finished @7 :Bool;
  error @8 :Text;                  # it could not start: why (its agents' copies failed)
}

struct HeldCopy {
  agent @0 :Text;
  from @1 :Text;                   # absolute, on the agent
}

struct Compression {
  algo @0 :Text;                   # "zstd" or "none"
  plainBytes @1 :UInt64;           # the file's (a tree: its bundle's) own size
  sentBytes @2 :UInt64;            # what moved: the compressed file, or plainBytes
  why @3 :Text;                    # e.g. "zstd: 12.1 s predicted against 25.3 s plain (ratio 0.31)"
  compressS @4 :Float64;           # hnowd's compression before the first byte moved
}

struct TreeSummary {
  entries @0 :UInt64;              # directories, files and symlinks packed
  files @1 :UInt64;
  fileBytes @2 :UInt64;            # the bundle (`size`) adds the index
  atomic @3 :Bool;
  refusedCount @4 :UInt64;         # left out at hnowd
  refused @5 :List(PathProblem);   # at most maxPathProblems
  sentFiles @6 :UInt64;            # files whose bytes the bundle carries: some agent lacked them
  sentBytes @7 :UInt64;
  deleteOthers @8 :Bool;
  queryBytes @9 :UInt64;           # the indexes hnowd sent asking what agents hold, all agents summed
}

struct SkippedAgent {
  node @0 :Text;
  why @1 :Text;                    # e.g. "lost 42 s ago"
}

struct ParentChange {
  node @0 :Text;
  oldParent @1 :Text;
  newParent @2 :Text;
  atS @3 :Float64;        # since the start
  reason @4 :Text;
}

struct PlanOption {
  algo @0 :Text;
  mode @1 :Text;
  predictedS @2 :Float64;
}

struct OwedSend {
  # A send hnowd still owes to agents that were off (hnow send --until-all).
  record @0 :Int64;        # the record of the send that left them owed
  path @1 :Text;
  dest @2 :Text;
  agents @3 :List(Text);   # still owed
  sinceUnixMs @4 :Int64;
  sending @5 :Bool;        # a send to those connected again is under way
}

interface ClientSession {
  # What the hnow command line may do once authenticated.
  status @0 () -> (agents :List(AgentStatus), coordinator :CoordinatorStatus, owed :List(OwedSend));
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
  run @7 (request :RunRequest) -> (operation :UInt64);
  # Checks the request and starts the job; fails with the reason.
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
  approveAgent @18 (name :Text) -> (key :Text);
  # Binds the key a pending agent asked with to its name.
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
}

interface ProgressListener {
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

# Several files from several source agents at once.
struct ManifestItem {
  source @0 :Text;        # agent name; the file lives under its data root
  file @1 :Text;
  dest @2 :Text;
  to @3 :List(Text);      # empty or ["all"]: every other alive agent; else site or agent names
  where @4 :Text;         # "M.toml:3:1", for messages
}

struct ManifestRequest {
  items @0 :List(ManifestItem);
  algo @1 :Text;          # auto|fef|ecf|wr|eaf|rr|rrs|ecfp|wrp|eafp|rrp|rrsp|independent|residual
  noReplan @2 :Bool;      # as SendRequest.noReplan, for every item
  maxRateBytesPerS @3 :Float64;  # --max-rate: every link the manifest uses at most this; 0: none
}

struct ManifestItemReport {
  source @0 :Text;
  file @1 :Text;
  dest @2 :Text;
  report @3 :SendReport;
}

struct ManifestReport {
  finished @0 :Bool;
  algo @1 :Text;
  predictedS @2 :Float64;
  elapsedS @3 :Float64;
  replans @4 :UInt32;
  sequentialS @5 :Float64;   # predicted: the items one after another, each alone
  lowerBoundS @6 :Float64;   # seed 004 §3.2 on the store-and-forward instance
  items @7 :List(ManifestItemReport);
  considered @8 :List(PlanOption);
}

# ---- Jobs: `hnow run`. Shares and results travel on the data
# plane under per-file tokens; these calls only say what to fetch and run.

struct JobInput {
  token @0 :Data;       # 32 bytes: names the file on the data plane
  size @1 :UInt64;
  sha256 @2 :Data;      # 32 bytes, checked before the file is used
  source @3 :Text;      # host:port of the data plane serving it (hnowd or another agent)
}

struct JobTask {
  inputs @0 :List(Data);  # tokens of files this agent holds (fetched, or its earlier results),
                          # concatenated in this order on the command's stdin
  argv @1 :List(Text);    # run without a shell (argv[0] looked up in PATH)
  resultToken @2 :Data;   # stdout is kept and served under this token
  shell @3 :Bool;         # argv is /bin/sh -c COMMAND (hnow run --shell): the agent's [jobs] shell decides
  run @4 :UInt64;         # the run it belongs to, for the agent's log
}

struct JobResult {
  exitCode @0 :Int32;     # -1: the command could not start
  error @1 :Text;         # "" on success; else why, with the end of its stderr
  size @2 :UInt64;        # of the result
  sha256 @3 :Data;
  computeS @4 :Float64;   # wall time including the emulated slow-down (compute factor)
  runS @5 :Float64;       # the command's own wall time
  refused @6 :Bool;       # the agent's [jobs] does not allow the command (error says why): it ran nothing
  limited @7 :Bool;       # a limit of the agent's [jobs] ended it (error says which): another agent may run it
}

struct RunRequest {
  input @0 :Text;               # on hnowd's machine
  split @1 :Text;               # lines | bytes:N | records:SEP
  argv @2 :List(Text);
  command @3 :Text;             # as typed, for reports and the calibration cache
  to @4 :List(Text);            # empty or ["all"]: every alive agent; else sites or names
  order @5 :Text;               # fifo | lifo | auto
  reduceArgv @6 :List(Text);    # empty: --concat
  output @7 :Text;              # on hnowd's machine; "": kept at hnowd for the client (ClientSession.grantOutput)
  slack @8 :Float64;            # deadline = slack x predicted (+ grace); 0: default
  strategy @9 :Text;            # plan (default) | equal | self: the bench's baselines
  blockBytes @10 :UInt64;       # self: the block size; 0: 1 MiB
  replicas @11 :UInt8;          # each share on this many agents, results compared; 0: 1
  rounds @12 :UInt8;            # shares go out in rounds, each planned on ready times and what was measured; 0: auto
  maxRateBytesPerS @13 :Float64; # --max-rate: hnowd's uplink (shares) and downlink (results) at most this; 0: none
  shell @14 :Bool;              # argv and reduceArgv are /bin/sh -c COMMAND (--shell)
  adaptiveReplicas @15 :Bool;   # --replicas adaptive: a second agent checks shares of agents not yet trusted
}

struct RunAgentReport {
  name @0 :Text;
  units @1 :UInt64;        # of accepted results
  computeS @2 :Float64;
  idleS @3 :Float64;       # the job's time not spent receiving, computing or returning
  plannedUnits @4 :UInt64;
  secondsPerUnit @5 :Float64;  # calibrated
  shareUnits @6 :List(UInt64); # units planned for it in each round (0: none that round)
  failures @7 :List(Text);     # why its attempts failed or it was left out (a refusal, a limit, an exit status)
}

struct RunBar {
  row @0 :Text;
  kind @1 :Text;           # serve | compute | return | reduce | planned
  start @2 :Float64;
  end @3 :Float64;
}

struct RunReport {
  finished @0 :Bool;
  error @1 :Text;           # "" unless the job failed
  algorithm @2 :Text;       # the worksharing protocol used
  predictedS @3 :Float64;
  elapsedS @4 :Float64;
  agents @5 :List(RunAgentReport);
  reissued @6 :UInt32;
  units @7 :UInt64;
  outputSize @8 :UInt64;
  output @9 :Text;          # where the result is on hnowd's machine
  phase @10 :Text;          # calibrating | running | reducing | done | failed
  bars @11 :List(RunBar);
  reduction @12 :Text;      # the reduction schedule's name, "" for --concat
  rounds @13 :UInt32;       # how many rounds the work went out in (1: one-shot)
  maxRateBytesPerS @14 :Float64;  # the run's --max-rate; 0: none
  checked @15 :UInt32;      # --replicas adaptive: shares a second agent checked
}
