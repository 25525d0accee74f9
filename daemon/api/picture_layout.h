#pragma once
// A layered layout of a tree for a picture: each node on the row of its
// depth, the leaves spread in order one slot apart, and each parent
// centred over its children: the aesthetics of Reingold and Tilford,
// "Tidier drawings of trees", 1981, without their compaction of subtrees
// (a wider picture, but one pass and no contour bookkeeping).
#include <vector>

namespace hnow::api {

struct TreeLayout {
  std::vector<double> slot;  // per node, in slots from the left; -1 not in the tree
  std::vector<int> depth;    // per node; -1 not in the tree
  int slots = 0;             // how many slots wide (the leaves)
  int depths = 0;            // how many rows
};

// `parent[i]` per node, -1 for the root and for nodes out of the tree;
// `root` the tree's root. A node whose parents lead round in a circle or
// out of range is left out, never followed forever.
TreeLayout layOutTree(const std::vector<int>& parent, int root);

}  // namespace hnow::api
