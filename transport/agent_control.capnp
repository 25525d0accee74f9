@0xd3211c1a49d9b82e;
# hnowd -> agent: the capability every agent exports at login (Gate in
# control.capnp) and the orders hnowd gives through it: receive a file
# (whole or in stripes) and relay it, serve one, probe links, and fetch,
# run and drop a job's files. The agent reports how its receives go on its
# AgentSession (agent_session.capnp). Bulk data never travels here: these
# calls name the data plane's tokens and addresses.
#
# Every declaration's id is written out rather than derived from the file's:
# an interface's id travels in every call, so a peer of another build must
# agree on it whichever file declares it (tests/transport/wire_ids_test.cc);
# structs and enums keep theirs too, so moving one changes no schema.

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("hnow::wire");

using import "copies.capnp".CopyOptions;
using import "rates.capnp".EmulatedRates;
using import "rates.capnp".LinkCounters;

# Data plane. The token names one operation; data connections
# present it and unknown tokens are dropped (docs/architecture.md
# "Integrity and security defaults").
const tokenBytes @0xb5c6eac4c69b48ca :UInt32 = 32;

struct ReceiveOrder @0x85441c0dc6dad909 {
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

struct Stripe @0xeddfbefa6c2029de {
  token @0 :Data;
  offset @1 :UInt64;
  length @2 :UInt64;
  sha256 @3 :Data;
  pieceDigests @4 :Data;  # its pieces' (ReceiveOrder.digestChunkBytes), its chunks cut from its start
}

const maxStripes @0xa3bce5e00ebd1774 :UInt32 = 64;

interface AgentControl @0xa2b15c648861c029 {
  # Exported by every agent at login: hnowd's commands to it.
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
  awaitJobTask @14 (resultToken :Data) -> (result :JobResult);
  # A task started here by an earlier process of the same hnowd (the same
  # key): its result once it ends, at once if it has. Fails when no task
  # runs or ran here under that token (it was dropped, or never started).
  keepJobFiles @15 (tokens :List(Data)) -> (held :List(HeldJobFile));
  # A restarted hnowd names the job files and tasks it still counts on:
  # every other one is dropped (its command killed). Answers which of
  # `tokens` this agent holds.
  heldJobTasks @16 () -> (held :List(HeldJobFile));
  # This agent restarted and logged in again to the same hnowd process:
  # the tasks whose results it gave back (an earlier process of it computed
  # them, agent/job_runner.h restoreHeld). Nothing is dropped; hnowd drops
  # those it has no use for.
}

struct HeldJobFile @0xe3c2f1a7b5d94e08 {
  token @0 :Data;
  task @1 :Bool;   # a task's result token (else a fetched file)
  ended @2 :Bool;  # the task has ended (awaitJobTask answers at once)
}

enum DestHolding @0xc8bece5e0a2a4f41 {
  absent @0;    # nothing at dest
  other @1;     # another size, other bytes, or not a regular file
  sameSize @2;  # a regular file of that size; no digest was given
  same @3;      # a regular file of that size and digest
}

struct LinkProbeOrder @0xb6329dcc9e03435f {
  token @0 :Data;            # 32 bytes, new for every round
  serve @1 :Bool;            # this node sends in the round
  pullFrom @2 :List(Text);   # data addresses (host:port) to pull a flow from each; at most 64
  warmS @3 :Float64;         # flows run this long before the window opens
  windowS @4 :Float64;       # the measured window; warmS + windowS at most 10
}

struct LinkProbeResult @0x99160c1284718cf2 {
  flowBytes @0 :List(UInt64);  # payload received from each pullFrom address within the window
  windowS @1 :Float64;
  before @2 :LinkCounters;     # this node's counters when the window opened
  after @3 :LinkCounters;      # and when it closed
  flowBytesPerS @4 :List(Float64);  # each flow's rate, fitted to its arrivals in the window; empty from an older agent
  sentBytesPerS @5 :Float64;      # what the node's data plane sent and received, fitted the same way;
  receivedBytesPerS @6 :Float64;  # 0: too little to fit (its counters stand)
}

# ---- Jobs (`hnow run`): shares and results travel on the data plane
# under per-file tokens; these orders only say what to fetch and run.

struct JobInput @0xa641bef390065191 {
  token @0 :Data;       # 32 bytes: names the file on the data plane
  size @1 :UInt64;
  sha256 @2 :Data;      # 32 bytes, checked before the file is used
  source @3 :Text;      # host:port of the data plane serving it (hnowd or another agent)
}

struct JobTask @0xa9bafc966b564b02 {
  inputs @0 :List(Data);  # tokens of files this agent holds (fetched, or its earlier results),
                          # concatenated in this order on the command's stdin
  argv @1 :List(Text);    # run without a shell (argv[0] looked up in PATH)
  resultToken @2 :Data;   # stdout is kept and served under this token
  shell @3 :Bool;         # argv is /bin/sh -c COMMAND (hnow run --shell): the agent's [jobs] shell decides
  run @4 :UInt64;         # the run it belongs to, for the agent's log
}

struct JobResult @0xdaa1bc8fd651bb8c {
  exitCode @0 :Int32;     # -1: the command could not start
  error @1 :Text;         # "" on success; else why, with the end of its stderr
  size @2 :UInt64;        # of the result
  sha256 @3 :Data;
  computeS @4 :Float64;   # wall time including the emulated slow-down (compute factor)
  runS @5 :Float64;       # the command's own wall time
  refused @6 :Bool;       # the agent's [jobs] does not allow the command (error says why): it ran nothing
  limited @7 :Bool;       # a limit of the agent's [jobs] ended it (error says which): another agent may run it
}
