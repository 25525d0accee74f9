#pragma once
// The picture of one send (docs/send.md, "The picture of a send"): its
// tree, or its stripes' trees, each node with the rates hnowd measured,
// each edge with the rate the plan gave it and the rate it achieved, the
// link or node that bounds the send, and every tree it ran on (the plan,
// then each replan). hnowd fills it in as the send runs and keeps it with
// the send's record; `hnow send --svg`, `hnow ops show ID --svg` and the
// web view draw it with renderSendPicture (send_picture_svg.h).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hnow::api {

struct PictureNode {
  std::string name;
  bool source = false;                // hnowd, or the agent that served the file in its place
  double uplinkBytesPerS = 0.0;       // as hnowd measured it; 0: not known
  double downlinkBytesPerS = 0.0;
};

// parent -> child in one stripe (0 for a tree). Achieved: the bytes the
// child received from this parent over the time it received from it (from
// its first order to pull from it until it held them all, or until it
// moved to another parent); none when hnowd cannot tell (no byte yet, or
// no time), never 0 or the plan in its place.
struct PictureEdge {
  std::string parent;
  std::string child;
  int stripe = 0;
  double plannedBytesPerS = 0.0;  // the plan's model for this tree; 0: not known
  std::optional<double> achievedBytesPerS;
  std::uint64_t bytes = 0;        // received along it so far
  double fromS = 0.0;             // since the send started
  double toS = 0.0;               // held or moved; 0 while it runs
};

// What bounds the send: an edge (parent and child named), or a node's
// uplink or downlink (`node` named, `child` empty), and why.
struct PictureBottleneck {
  std::string parent;
  std::string child;
  std::string node;
  std::string why;       // "agent-3's uplink shared by 3 children", ...
  bool achieved = false; // from the rates achieved (the send ended); false: from the plan
};

// The tree (or stripes' trees) the send ran on from `atS`: the plan at 0,
// then one per replan or move.
struct PictureVersion {
  double atS = 0.0;
  std::string reason;  // "plan", or why it changed ("drift: ...", "lost: ...")
  std::vector<PictureEdge> edges;
  std::optional<PictureBottleneck> bottleneck;
};

struct SendPicture {
  std::string algo;
  int stripes = 0;  // 0: one tree; else how many stripes
  std::uint64_t size = 0;
  double predictedS = 0.0;
  double elapsedS = 0.0;
  bool finished = false;
  std::vector<PictureNode> nodes;  // [0] the source
  std::vector<PictureVersion> versions;  // oldest first; never empty once it started
};

}  // namespace hnow::api
