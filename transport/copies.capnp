@0x86acfa888ba957f0;
# A send's copy as both ends of it name it: how an agent lays its copy down
# (CopyOptions, given by the hnow CLI in its send request and handed whole
# to each agent in its receive order) and what a tree's copy published
# (TreeOutcome, reported by the agent and passed on in the send's report).
#
# Every declaration's id is written out rather than derived from the file's:
# an interface's id travels in every call, so a peer of another build must
# agree on it whichever file declares it (tests/transport/wire_ids_test.cc);
# structs and enums keep theirs too, so moving one changes no schema.

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("hnow::wire");

struct CopyOptions @0xbcf86ec51f01a5dc {
  # How each agent lays down its copy of a send: the options of `hnow send`
  # the agent itself acts on (transport/orders/copy_options.h), held whole
  # by SendRequest and ReceiveOrder so hnowd copies it without naming them.
  atomic @0 :Bool;        # a tree: publish it at once (staged beside dest, then one rename), not file by file
  deleteOthers @1 :Bool;  # a tree, not atomic: then remove what dest holds that it does not name
}

# A path of a tree (relative to its top, bytes that are not printable
# UTF-8 escaped as \xNN) and what went wrong with it.
struct PathProblem @0xb41c89531b1d5379 {
  path @0 :Text;
  why @1 :Text;
}

const maxPathProblems @0x992b3f6a141ac54f :UInt32 = 100;  # listed per report; the rest only counted

struct TreeOutcome @0xd2561fea1259dcba {
  files @0 :UInt64;          # files published
  bytes @1 :UInt64;
  replaced @2 :UInt64;       # of them, files that took another's place
  failedCount @3 :UInt64;
  failed @4 :List(PathProblem);  # at most maxPathProblems
  held @5 :UInt64;           # files kept as they were: the agent held them already
  deleted @6 :UInt64;        # entries removed (--delete)
  copied @7 :UInt64;         # files the agent held under another path of the tree, copied from there (not sent)
}
