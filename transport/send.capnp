@0xa8d14da9ea9c8f96;
# hnow CLI <-> hnowd: what `hnow send` and `hnow send --manifest` ask for
# (ClientSession.send, sendManifest in client_session.capnp) and the
# reports hnowd answers and pushes while they run (ProgressListener).
#
# Every declaration's id is written out rather than derived from the file's:
# an interface's id travels in every call, so a peer of another build must
# agree on it whichever file declares it (tests/transport/wire_ids_test.cc);
# structs and enums keep theirs too, so moving one changes no schema.

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("hnow::wire");

using import "copies.capnp".CopyOptions;
using import "copies.capnp".PathProblem;
using import "copies.capnp".TreeOutcome;

struct SendRequest @0x8a49082671942998 {
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

struct FileStamp @0xf4883f4a72a50032 {
  # A client's file as its machine stamps it: what hnowd's kept copy of
  # its upload is matched against (docs/tree-send.md, "Kept files"). The
  # ctime and inode catch a file rewritten with its mtime set back.
  size @0 :UInt64;
  mtimeNs @1 :Int64;
  ctimeNs @2 :Int64;
  inode @3 :UInt64;
}

enum CopyState @0xa98c0f9b44817a1d {
  waiting @0;
  receiving @1;
  done @2;
  failed @3;
}

struct CopyStatus @0xb7997307d36dffc9 {
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

struct SendReport @0x8b9bf58344fc2a17 {
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
  record @25 :UInt64;              # its operation record's id (`hnow ops`, `hnow cancel`); 0: none yet
  cancelledBy @26 :Text;           # the operator who cancelled it; "" not cancelled
  picture @27 :Text;               # its trees, rates and replans as JSON (daemon/api/send_picture_json.h, the
                                   # form its record keeps too); absent: not started, or an older hnowd
}

struct BundleGroup @0xe10eca52e3f14afa {
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

struct HeldCopy @0xfc760547bebd17a2 {
  agent @0 :Text;
  from @1 :Text;                   # absolute, on the agent
}

struct Compression @0x8fde1491313145d0 {
  algo @0 :Text;                   # "zstd" or "none"
  plainBytes @1 :UInt64;           # the file's (a tree: its bundle's) own size
  sentBytes @2 :UInt64;            # what moved: the compressed file, or plainBytes
  why @3 :Text;                    # e.g. "zstd: 12.1 s predicted against 25.3 s plain (ratio 0.31)"
  compressS @4 :Float64;           # hnowd's compression before the first byte moved
}

struct TreeSummary @0x99c3d4481de0dd7f {
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

struct SkippedAgent @0xb2ccb6fd60465bb2 {
  node @0 :Text;
  why @1 :Text;                    # e.g. "lost 42 s ago"
}

struct ParentChange @0xdbb8ad8018de6e46 {
  node @0 :Text;
  oldParent @1 :Text;
  newParent @2 :Text;
  atS @3 :Float64;        # since the start
  reason @4 :Text;
}

struct PlanOption @0xa1eb962311d66ab9 {
  algo @0 :Text;
  mode @1 :Text;
  predictedS @2 :Float64;
}

# Several files from several source agents at once.
struct ManifestItem @0xcbfea279ec7194aa {
  source @0 :Text;        # agent name; the file lives under its data root
  file @1 :Text;
  dest @2 :Text;
  to @3 :List(Text);      # empty or ["all"]: every other alive agent; else site or agent names
  where @4 :Text;         # "M.toml:3:1", for messages
}

struct ManifestRequest @0x80f404e050201c82 {
  items @0 :List(ManifestItem);
  algo @1 :Text;          # auto|fef|ecf|wr|eaf|rr|rrs|ecfp|wrp|eafp|rrp|rrsp|independent|residual
  noReplan @2 :Bool;      # as SendRequest.noReplan, for every item
  maxRateBytesPerS @3 :Float64;  # --max-rate: every link the manifest uses at most this; 0: none
}

struct ManifestItemReport @0xda92bba43c749c49 {
  source @0 :Text;
  file @1 :Text;
  dest @2 :Text;
  report @3 :SendReport;
}

struct ManifestReport @0xab46488be6e3cf15 {
  finished @0 :Bool;
  algo @1 :Text;
  predictedS @2 :Float64;
  elapsedS @3 :Float64;
  replans @4 :UInt32;
  sequentialS @5 :Float64;   # predicted: the items one after another, each alone
  lowerBoundS @6 :Float64;   # seed 004 §3.2 on the store-and-forward instance
  items @7 :List(ManifestItemReport);
  considered @8 :List(PlanOption);
  record @9 :UInt64;         # its operation record's id (`hnow ops`, `hnow cancel`); 0: none yet
  cancelledBy @10 :Text;     # the operator who cancelled it; "" not cancelled
}
