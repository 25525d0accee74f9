#include "planner/worksharing/worksharing_node_bound.h"

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
  if (m < 3 || m > kMaxNodeWorkers) return false;
  m_ = m;
  constant_ = node.constant;
  // Local copies in open-list order: no index indirection in the loops.
  for (int a = 0; a < m; ++a) {
    const int oa = open[a];
    for (int b = 0; b < m; ++b) k_[a][b] = node.k[oa][open[b]];
    rhs_[a] = node.rhs[oa];
    objective_[a] = node.objective[oa];
    deltaTau_[a] = deltaTau[oa];
    maxShare_[a] = maxShare[oa];
  }
  // Dispatch on the open count so that every loop below has a compile-time
  // length: these short loops are the innermost work of the search.
  switch (m) {
    case 3: return factor<3>();
    case 4: return factor<4>();
    case 5: return factor<5>();
    case 6: return factor<6>();
    case 7: return factor<7>();
    default: return factor<8>();
  }
}

double ChildBounds::bound(int pick, double cutoff) const {
  switch (m_) {
    case 3: return childBound<3>(pick, cutoff);
    case 4: return childBound<4>(pick, cutoff);
    case 5: return childBound<5>(pick, cutoff);
    case 6: return childBound<6>(pick, cutoff);
    case 7: return childBound<7>(pick, cutoff);
    default: return childBound<8>(pick, cutoff);
  }
}

template <int M>
bool ChildBounds::factor() {
  // LU factors of k^t with partial pivoting (row swaps recorded in perm_).
  for (int i = 0; i < M; ++i) {
    perm_[i] = i;
    for (int j = 0; j < M; ++j) lu_[i][j] = k_[j][i];
  }
  for (int col = 0; col < M; ++col) {
    int p = col;
    for (int i = col + 1; i < M; ++i)
      if (std::fabs(lu_[i][col]) > std::fabs(lu_[p][col])) p = i;
    if (std::fabs(lu_[p][col]) < kSingular) return false;
    if (p != col) {
      std::swap(lu_[p], lu_[col]);
      std::swap(perm_[p], perm_[col]);
    }
    inverseDiagonal_[col] = 1.0 / lu_[col][col];
    for (int i = col + 1; i < M; ++i) {
      const double f = lu_[i][col] *= inverseDiagonal_[col];
      for (int j = col + 1; j < M; ++j) lu_[i][j] -= f * lu_[col][j];
    }
  }
  solve<M>(objective_, u_, 0);
  sumU_ = sumV_ = vRhs_ = 0.0;
  for (int i = 0; i < M; ++i) {
    v_[i] = std::max(0.0, u_[i]);
    sumU_ += u_[i];
    sumV_ += v_[i];
    vRhs_ += v_[i] * rhs_[i];
  }
  for (int l = 0; l < M; ++l) {
    double s = 0.0;
    for (int i = 0; i < M; ++i) s += v_[i] * k_[i][l];
    vk_[l] = s;
    reduced_[l] = objective_[l] - s;
  }
  return true;
}

template <int M>
void ChildBounds::solve(const double* b, double* y, int first) const {
  double t[kMaxNodeWorkers];
  for (int i = 0; i < M; ++i) {
    double s = i < first ? 0.0 : b[perm_[i]];
    for (int j = first; j < i; ++j) s -= lu_[i][j] * t[j];
    t[i] = s;
  }
  for (int i = M - 1; i >= 0; --i) {
    double s = t[i];
    for (int j = i + 1; j < M; ++j) s -= lu_[i][j] * y[j];
    y[i] = s * inverseDiagonal_[i];
  }
}

template <int M>
double ChildBounds::childBound(int x, double cutoff) const {
  const double kxx = k_[x][x];
  const double dt = deltaTau_[x];
  // The node's multipliers v restricted to the child: O(m) from the sums.
  const double mu = (objective_[x] - (vk_[x] - v_[x] * kxx + dt * (sumV_ - v_[x]))) / kxx;
  double quick = constant_ + vRhs_ + (mu - v_[x]) * rhs_[x];
  for (int l = 0; l < M; ++l) {
    const double reduced = reduced_[l] + (v_[x] - mu) * k_[x][l];
    if (l != x && reduced > 0) quick += reduced * maxShare_[l];
  }
  if (quick <= cutoff) return quick;
  // The child's exact multipliers by Sherman-Morrison: the rank-one update
  // adds e_x p^t to k^t, p_j = delta tau_x for j != x; z = (k^t)^-1 e_x.
  double e[kMaxNodeWorkers] = {}, z[kMaxNodeWorkers];
  e[x] = 1.0;
  int first = 0;  // the permuted right-hand side is zero before e_x's row
  while (perm_[first] != x) ++first;
  solve<M>(e, z, first);
  double sumZ = 0.0;
  for (int a = 0; a < M; ++a) sumZ += z[a];
  const double denominator = 1.0 + dt * (sumZ - z[x]);
  if (std::fabs(denominator) < 1e-12) return quick;
  const double step = dt * (sumU_ - u_[x]) / denominator;
  double u[kMaxNodeWorkers];
  bool clamped = false;
  for (int a = 0; a < M; ++a) {
    u[a] = a == x ? 0.0 : u_[a] - z[a] * step;
    if (u[a] < 0.0) {
      u[a] = 0.0;
      clamped = true;
    }
  }
  if (clamped) return std::min(quick, clampedBound<M>(x, u));
  // Unclamped: every reduced cost of the child is 0, so the bound is the
  // value of its vertex, constant + sum_j u_j rhs_j + mu rhs_x.
  double s = 0.0, exact = constant_;
  for (int a = 0; a < M; ++a) {
    s += u[a] * (k_[a][x] + dt);  // u[x] = 0
    exact += u[a] * rhs_[a];
  }
  exact += (objective_[x] - s) / kxx * rhs_[x];
  return std::min(quick, exact);
}

template <int M>
double ChildBounds::clampedBound(int x, const double* v) const {  // v[x] = 0
  const double dt = deltaTau_[x];
  double s = 0.0, bound = constant_;
  for (int a = 0; a < M; ++a) {
    s += v[a] * (k_[a][x] + dt);
    bound += v[a] * rhs_[a];
  }
  const double mu = (objective_[x] - s) / k_[x][x];
  bound += mu * rhs_[x];
  for (int l = 0; l < M; ++l) {
    double reduced = objective_[l] - mu * k_[x][l];
    for (int a = 0; a < M; ++a) reduced -= v[a] * k_[a][l];
    if (l != x && reduced > 0) bound += reduced * maxShare_[l];
  }
  return bound;
}

}  // namespace hnow::planner
