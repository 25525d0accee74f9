#include "planner/worksharing_node_bound.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace hnow::planner {

namespace {
constexpr double kSingular = 1e-14;
}  // namespace

double nodeDualBound(const ReturnNode& node, const OpenList& open, int r, const double* maxShare) {
  double a[kMaxNodeWorkers][kMaxNodeWorkers + 1];
  for (int i = 0; i < r; ++i) {
    for (int j = 0; j < r; ++j) a[i][j] = node.k[open[j]][open[i]];  // transposed
    a[i][r] = node.objective[open[i]];
  }
  double u[kMaxNodeWorkers] = {};
  bool singular = false;
  for (int col = 0; col < r && !singular; ++col) {
    int p = col;
    for (int i = col + 1; i < r; ++i)
      if (std::fabs(a[i][col]) > std::fabs(a[p][col])) p = i;
    if (std::fabs(a[p][col]) < kSingular) {
      singular = true;  // u = 0 is still a valid multiplier
      break;
    }
    if (p != col)
      for (int j = col; j <= r; ++j) std::swap(a[p][j], a[col][j]);
    for (int i = col + 1; i < r; ++i) {
      const double f = a[i][col] / a[col][col];
      for (int j = col; j <= r; ++j) a[i][j] -= f * a[col][j];
    }
  }
  if (!singular)
    for (int i = r - 1; i >= 0; --i) {
      double s = a[i][r];
      for (int j = i + 1; j < r; ++j) s -= a[i][j] * u[j];
      u[i] = std::max(0.0, s / a[i][i]);
    }
  double bound = node.constant;
  for (int i = 0; i < r; ++i) bound += node.rhs[open[i]] * u[i];
  for (int j = 0; j < r; ++j) {
    double reduced = node.objective[open[j]];
    for (int i = 0; i < r; ++i) reduced -= node.k[open[i]][open[j]] * u[i];
    if (reduced > 0) bound += reduced * maxShare[open[j]];
  }
  return bound;
}

bool ChildBounds::prepare(const ReturnNode& node, const OpenList& open, int m, const double* deltaTau,
                          const double* maxShare) {
  node_ = &node;
  deltaTau_ = deltaTau;
  maxShare_ = maxShare;
  open_ = open;
  m_ = m;
  // LU factors of k^t with partial pivoting (row swaps recorded in perm_).
  for (int i = 0; i < m; ++i) {
    perm_[i] = i;
    for (int j = 0; j < m; ++j) lu_[i][j] = node.k[open[j]][open[i]];
  }
  for (int col = 0; col < m; ++col) {
    int p = col;
    for (int i = col + 1; i < m; ++i)
      if (std::fabs(lu_[i][col]) > std::fabs(lu_[p][col])) p = i;
    if (std::fabs(lu_[p][col]) < kSingular) return false;
    if (p != col) {
      std::swap(lu_[p], lu_[col]);
      std::swap(perm_[p], perm_[col]);
    }
    inverseDiagonal_[col] = 1.0 / lu_[col][col];
    for (int i = col + 1; i < m; ++i) {
      const double f = lu_[i][col] *= inverseDiagonal_[col];
      for (int j = col + 1; j < m; ++j) lu_[i][j] -= f * lu_[col][j];
    }
  }
  double objective[kMaxNodeWorkers] = {};
  for (int i = 0; i < m; ++i) objective[i] = node.objective[open[i]];
  solve(objective, u_, 0);
  sumU_ = sumV_ = vRhs_ = 0.0;
  for (int i = 0; i < m; ++i) {
    v_[i] = std::max(0.0, u_[i]);
    sumU_ += u_[i];
    sumV_ += v_[i];
    vRhs_ += v_[i] * node.rhs[open[i]];
  }
  for (int l = 0; l < m; ++l) {
    double s = 0.0;
    for (int i = 0; i < m; ++i) s += v_[i] * node.k[open[i]][open[l]];
    vk_[l] = s;
    reduced_[l] = node.objective[open[l]] - s;
  }
  return true;
}

void ChildBounds::solve(const double* b, double* y, int first) const {
  double t[kMaxNodeWorkers];
  for (int i = 0; i < first; ++i) t[i] = 0.0;
  for (int i = first; i < m_; ++i) {
    double s = b[perm_[i]];
    for (int j = first; j < i; ++j) s -= lu_[i][j] * t[j];
    t[i] = s;
  }
  for (int i = m_ - 1; i >= 0; --i) {
    double s = t[i];
    for (int j = i + 1; j < m_; ++j) s -= lu_[i][j] * y[j];
    y[i] = s * inverseDiagonal_[i];
  }
}

double ChildBounds::bound(int x, double cutoff) const {
  const ReturnNode& n = *node_;
  const int ox = open_[x];
  const double kxx = n.k[ox][ox];
  const double dt = deltaTau_[ox];
  // The node's multipliers v restricted to the child: O(m) from the sums.
  const double mu = (n.objective[ox] - (vk_[x] - v_[x] * kxx + dt * (sumV_ - v_[x]))) / kxx;
  double quick = n.constant + vRhs_ + (mu - v_[x]) * n.rhs[ox];
  for (int l = 0; l < m_; ++l) {
    if (l == x) continue;
    const double reduced = reduced_[l] + (v_[x] - mu) * n.k[ox][open_[l]];
    if (reduced > 0) quick += reduced * maxShare_[open_[l]];
  }
  if (quick <= cutoff) return quick;
  // The child's exact multipliers by Sherman-Morrison: the rank-one update
  // adds e_x p^t to k^t, p_j = delta tau_x for j != x; z = (k^t)^-1 e_x.
  double e[kMaxNodeWorkers] = {}, z[kMaxNodeWorkers];
  e[x] = 1.0;
  int first = 0;  // the permuted right-hand side is zero before e_x's row
  while (perm_[first] != x) ++first;
  solve(e, z, first);
  double sumZ = 0.0;
  for (int a = 0; a < m_; ++a) sumZ += z[a];
  const double denominator = 1.0 + dt * (sumZ - z[x]);
  if (std::fabs(denominator) < 1e-12) return quick;
  const double step = dt * (sumU_ - u_[x]) / denominator;
  double u[kMaxNodeWorkers];
  bool clamped = false;
  for (int a = 0; a < m_; ++a) {
    u[a] = a == x ? 0.0 : u_[a] - z[a] * step;
    if (u[a] < 0.0) {
      u[a] = 0.0;
      clamped = true;
    }
  }
  if (clamped) return std::min(quick, clampedBound(x, u));
  // Unclamped: every reduced cost of the child is 0, so the bound is the
  // value of its vertex, constant + sum_j u_j rhs_j + mu rhs_x.
  double s = 0.0, exact = n.constant;
  for (int a = 0; a < m_; ++a) {
    if (a == x) continue;
    s += u[a] * (n.k[open_[a]][ox] + dt);
    exact += u[a] * n.rhs[open_[a]];
  }
  exact += (n.objective[ox] - s) / kxx * n.rhs[ox];
  return std::min(quick, exact);
}

double ChildBounds::clampedBound(int x, const double* v) const {
  const ReturnNode& n = *node_;
  const int ox = open_[x];
  const double dt = deltaTau_[ox];
  double s = 0.0, bound = n.constant;
  for (int a = 0; a < m_; ++a) {
    if (a == x) continue;
    s += v[a] * (n.k[open_[a]][ox] + dt);
    bound += v[a] * n.rhs[open_[a]];
  }
  const double mu = (n.objective[ox] - s) / n.k[ox][ox];
  bound += mu * n.rhs[ox];
  for (int l = 0; l < m_; ++l) {
    if (l == x) continue;
    const int ol = open_[l];
    double reduced = n.objective[ol] - mu * n.k[ox][ol];
    for (int a = 0; a < m_; ++a)
      if (a != x) reduced -= v[a] * n.k[open_[a]][ol];
    if (reduced > 0) bound += reduced * maxShare_[ol];
  }
  return bound;
}

}  // namespace hnow::planner
