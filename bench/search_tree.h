#pragma once
// The complete search trees the seeds measure their searches against.
//
// Both exact searches branch over node classes, not nodes (nodes of equal t
// are interchangeable), so a complete tree has one node per distinct
// non-empty prefix of a class sequence, and one leaf per distinct full
// sequence: with class counts m_1..m_k (sum M), L = M!/(m_1!...m_k!) and
// N = sum over (a_1..a_k) != 0, a_i <= m_i, of (a_1+...+a_k)!/(a_1!...a_k!).
// The root (the empty prefix) is not counted, like a search's own count.
#include <span>

namespace hnow::bench {

// M!/(m_1!...m_k!) in double precision (it passes 2^64 near M = 40).
double multinomial(std::span<const int> counts);

struct TreeSize {
  double nodes = 0.0;   // N
  double leaves = 0.0;  // L
};

TreeSize classSequenceTree(std::span<const int> counts);

// The mean of classSequenceTree when each of `length` nodes picks one of
// `classes` classes uniformly: to check which length the seed's N and L
// correspond to.
TreeSize expectedClassSequenceTree(int length, int classes);

}  // namespace hnow::bench
