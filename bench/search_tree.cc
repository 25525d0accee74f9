#include "bench/search_tree.h"

#include <cmath>
#include <vector>

namespace hnow::bench {

double multinomial(std::span<const int> counts) {
  // lgamma keeps every intermediate in range; for the sizes here the result
  // is exact to about 1e-13 relative, and rounded when it fits an integer.
  double total = 0, log = 0;
  for (int m : counts) {
    total += m;
    log -= std::lgamma(m + 1.0);
  }
  const double value = std::exp(log + std::lgamma(total + 1.0));
  return value < 9e15 ? std::round(value) : value;
}

TreeSize classSequenceTree(std::span<const int> counts) {
  TreeSize out;
  out.leaves = multinomial(counts);
  // Every prefix count vector a (0 <= a_i <= m_i), as an odometer.
  std::vector<int> a(counts.size(), 0);
  while (true) {
    size_t i = 0;
    while (i < a.size() && a[i] == counts[i]) a[i++] = 0;
    if (i == a.size()) break;
    ++a[i];
    out.nodes += multinomial(a);
  }
  return out;
}

TreeSize expectedClassSequenceTree(int length, int classes) {
  TreeSize out;
  // Every count vector summing to `length`, weighted by its probability
  // multinomial(counts) / classes^length.
  std::vector<int> counts(classes, 0);
  counts[0] = length;
  const double all = std::pow(static_cast<double>(classes), length);
  while (true) {
    const double weight = multinomial(counts) / all;
    const TreeSize tree = classSequenceTree(counts);
    out.nodes += weight * tree.nodes;
    out.leaves += weight * tree.leaves;
    // Next composition of `length` into `classes` parts (reverse lexicographic).
    int i = classes - 2;
    while (i >= 0 && counts[i] == 0) --i;
    if (i < 0) break;
    // counts[i+1..classes-2] are 0: move one from i, and the tail, to i + 1.
    const int tail = counts[classes - 1];
    counts[classes - 1] = 0;
    --counts[i];
    counts[i + 1] = tail + 1;
  }
  return out;
}

}  // namespace hnow::bench
