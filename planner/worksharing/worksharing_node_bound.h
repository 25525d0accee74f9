#pragma once
// Upper bounds for the return-order search of `best` (worksharing_search.h):
// seed 002 §V-A's no-gap equations (12) with the serve order fixed and the
// return order built from the last return backwards, one equation eliminated
// per step (a Schur complement).
#include <array>

namespace hnow::planner {

inline constexpr int kMaxNodeWorkers = 8;

// A node of the return-order search: the system over the workers whose return
// position is still open, rows and columns indexed by serve position. Each
// open row lacks only the returns of open workers after it (>= 0 for
// nonnegative shares), so every completion satisfies k w <= rhs and
// 0 <= w_j <= maxShare_j, and does constant + objective.w work.
struct ReturnNode {
  double k[kMaxNodeWorkers][kMaxNodeWorkers];
  double rhs[kMaxNodeWorkers];
  double objective[kMaxNodeWorkers];
  double constant;
};

using OpenList = std::array<int, kMaxNodeWorkers>;

// Weak duality for that LP: for ANY multipliers u >= 0 on the open rows,
//   constant + rhs.u + sum_j maxShare_j max(0, objective_j - (k^t u)_j)
// bounds every completion. This one takes u from k^t u = objective, clamped
// at 0 during back substitution (u = 0 if k is singular). O(r^3).
double nodeDualBound(const ReturnNode& node, const OpenList& open, int r, const double* maxShare);

// The same kind of bound for every child of a node (x returns after every
// other open worker) without forming the child: an LU factorization once per
// node (O(r^3)), then O(r) per child for the first choice and O(r^2) for the
// second. Two multiplier
// choices, each valid by weak duality, the smaller bound kept:
// - the node's own u = (k^t)^-1 objective, clamped, restricted to the child;
// - the child's exact u' from the node's by Sherman-Morrison: the child's
//   matrix is the Schur complement of k after adding delta tau_x to column x
//   of the other rows (their equations gain x's return), a rank-one update
//   of k^t, and the Schur complement's transposed solve is the restriction of
//   the updated full solve. When u' >= 0 its bound is the LP value of the
//   child's vertex with every open equation tight.
// The child's bound is expressed through the node's data: with multipliers v
// on the child's rows (j != x) and mu = (objective_x - sum_j v_j (k_jx +
// delta tau_x)) / k_xx, it is constant + sum_j v_j rhs_j + mu rhs_x +
// sum_{l != x} maxShare_l max(0, objective_l - sum_j v_j k_jl - mu k_xl).
class ChildBounds {
 public:
  // For 3 <= m <= 8 open workers (children with at least two). False if k^t
  // is singular over the open rows (then bound each child with
  // nodeDualBound after elimination).
  bool prepare(const ReturnNode& node, const OpenList& open, int m, const double* deltaTau,
               const double* maxShare);
  // The bound for the child whose open list drops open[pick]; the first,
  // cheaper choice is returned alone when it is already <= cutoff.
  double bound(int pick, double cutoff) const;

 private:
  template <int M>
  bool factor();
  template <int M>
  double childBound(int pick, double cutoff) const;
  template <int M>
  double clampedBound(int pick, const double* v) const;
  // y = (k^t)^-1 b, for b zero in permuted rows before `first`.
  template <int M>
  void solve(const double* b, double* y, int first) const;

  // The node's data in open-list order (local index a is open[a]).
  int m_ = 0;
  double k_[kMaxNodeWorkers][kMaxNodeWorkers];
  double rhs_[kMaxNodeWorkers], objective_[kMaxNodeWorkers], constant_ = 0;
  double deltaTau_[kMaxNodeWorkers], maxShare_[kMaxNodeWorkers];
  double lu_[kMaxNodeWorkers][kMaxNodeWorkers];  // LU factors of k^t
  int perm_[kMaxNodeWorkers];
  double inverseDiagonal_[kMaxNodeWorkers];
  double u_[kMaxNodeWorkers];        // (k^t)^-1 objective
  double v_[kMaxNodeWorkers];        // max(0, u)
  double reduced_[kMaxNodeWorkers];  // objective - k^t v
  double vk_[kMaxNodeWorkers];       // k^t v
  double sumU_ = 0, sumV_ = 0, vRhs_ = 0;
};

}  // namespace hnow::planner
