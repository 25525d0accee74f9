#include "planner/multicast_dense_scan.h"

// GCC 12 warns that its own AVX-512 intrinsics (which start from
// _mm512_undefined_*) use an uninitialized value: a known false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <tuple>

#include "planner/multicast_timeline.h"

namespace hnow::planner {

namespace {

// Non-negative doubles order as their bits do, as signed 64-bit integers
// too; a sender holding nothing gets the largest one, above +inf's bits.
constexpr std::int64_t kNone = std::numeric_limits<std::int64_t>::max();

// Among the senders tied at the least time: an own source if any (the
// lowest such message; its sender is its source), else the lowest message
// any of them holds, from the lowest-index one holding it.
DenseScanResult resolveTie(const DenseScanInput& in, double time, const std::uint64_t ownBits[2],
                           const std::uint64_t heldBits[2], const std::uint64_t* tied) {
  DenseScanResult out;
  out.found = true;
  out.time = time;
  for (int w = 0; w < 2; ++w)
    if (const std::uint64_t own = ownBits[w] & in.wanted[w]) {
      out.notOwnSource = 0;
      out.message = w * 64 + std::countr_zero(own);
      out.sender = in.sourceOf[out.message];
      return out;
    }
  for (int w = 0; w < 2; ++w)
    if (const std::uint64_t any = heldBits[w] & in.wanted[w]) {
      out.message = w * 64 + std::countr_zero(any);
      break;
    }
  const int word = out.message / 64;
  const std::uint64_t bit = std::uint64_t{1} << (out.message % 64);
  for (int t = 0; t * 64 < in.padded; ++t)
    for (std::uint64_t bits = tied[t]; bits != 0; bits &= bits - 1) {
      const int i = t * 64 + std::countr_zero(bits);
      if (in.held[word][i] & bit) {
        out.sender = i;
        return out;
      }
    }
  return out;  // not reached: some tied sender holds the message
}

__attribute__((target("avx2"))) inline __m256i loadWords(const std::uint64_t* p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}

struct Constants {
  __m256d bytes, receive, floor;
  __m256i wanted0, wanted1, none, zero;
};

__attribute__((target("avx2"), always_inline)) inline Constants constantsFor(const DenseScanInput& in) {
  return {_mm256_set1_pd(in.bytes),
          _mm256_set1_pd(in.receive),
          _mm256_set1_pd(MulticastTimeline::completion(in.available, in.available, in.receive)),
          _mm256_set1_epi64x(static_cast<std::int64_t>(in.wanted[0])),
          _mm256_set1_epi64x(static_cast<std::int64_t>(in.wanted[1])),
          _mm256_set1_epi64x(kNone),
          _mm256_setzero_si256()};
}

// Senders i..i+3: each one's completion time as bits, or kNone if it holds
// nothing j wants; stored to times[i..i+3] too. Equation 6 as max(arrival
// + R, Avail_j + R), bit for bit the reference's (multicast_candidates.cc),
// with (sendEnd + X·l) + R in the reference's order.
__attribute__((target("avx2"), always_inline)) inline __m256i keyAt(const DenseScanInput& in, const Constants& c, int i,
                                                                     std::int64_t* times) {
  const __m256d wire = _mm256_mul_pd(_mm256_loadu_pd(in.linkTo + i), c.bytes);
  const __m256d late = _mm256_add_pd(_mm256_add_pd(_mm256_loadu_pd(in.sendEnd + i), wire), c.receive);
  const __m256i time = _mm256_castpd_si256(_mm256_max_pd(late, c.floor));
  const __m256i common = _mm256_or_si256(_mm256_and_si256(loadWords(in.held[0] + i), c.wanted0),
                                         _mm256_and_si256(loadWords(in.held[1] + i), c.wanted1));
  const __m256i key = _mm256_blendv_epi8(time, c.none, _mm256_cmpeq_epi64(common, c.zero));
  _mm256_store_si256(reinterpret_cast<__m256i*>(times + i), key);
  return key;
}

// The senders in `tied` share the least time `best`: what they hold and
// are the source of, then resolveTie.
__attribute__((target("bmi,popcnt"))) DenseScanResult finishTies(const DenseScanInput& in, std::int64_t best,
                                                                const std::uint64_t* tied) {
  // Usually one sender: the receiver-bound case, where every sender
  // arriving in time ties at Avail_j + R, does not come here.
  std::uint64_t ownBits[2] = {0, 0}, heldBits[2] = {0, 0};
  int count = 0, first = -1;
  for (int t = 0; t * 64 < in.padded; ++t) {
    count += std::popcount(tied[t]);
    if (first < 0 && tied[t] != 0) first = t * 64 + std::countr_zero(tied[t]);
  }
  if (count == 1) {
    // One sender (the usual, sender-bound case): its own message if it has
    // one, else its lowest, with selects rather than resolveTie's branches.
    const int i = first;
    const std::uint64_t own0 = in.sourced[0][i] & in.wanted[0], own1 = in.sourced[1][i] & in.wanted[1];
    const std::uint64_t any0 = in.held[0][i] & in.wanted[0], any1 = in.held[1][i] & in.wanted[1];
    const bool own = (own0 | own1) != 0;
    const std::uint64_t low = own ? own0 : any0, high = own ? own1 : any1;
    DenseScanResult out;
    out.found = true;
    out.time = std::bit_cast<double>(best);
    out.notOwnSource = own ? 0 : 1;
    out.message = low != 0 ? std::countr_zero(low) : 64 + std::countr_zero(high);
    out.sender = i;
    return out;
  }
  // Several senders at one time apart from the receiver-bound case (which
  // the kernels combine in their own pass): rare, so one by one.
  for (int t = 0; t * 64 < in.padded; ++t)
    for (std::uint64_t bits = tied[t]; bits != 0; bits &= bits - 1) {
      const int i = t * 64 + std::countr_zero(bits);
      for (int w = 0; w < 2; ++w) ownBits[w] |= in.sourced[w][i], heldBits[w] |= in.held[w][i];
    }
  return resolveTie(in, std::bit_cast<double>(best), ownBits, heldBits, tied);
}

__attribute__((target("avx2,bmi,popcnt"))) DenseScanResult denseScanAvx2(const DenseScanInput& in) {
  // Pass 1: each sender's key (keyAt) and their least.
  alignas(32) std::int64_t times[kDenseScanMax];
  const Constants c = constantsFor(in);
  // Two running minima, so that each compare-and-blend waits on the one
  // two groups back, not the one just before.
  __m256i least0 = c.none, least1 = c.none;
  int i = 0;
  for (; i + 8 <= in.padded; i += 8) {
    const __m256i a = keyAt(in, c, i, times), b = keyAt(in, c, i + 4, times);
    least0 = _mm256_blendv_epi8(least0, a, _mm256_cmpgt_epi64(least0, a));
    least1 = _mm256_blendv_epi8(least1, b, _mm256_cmpgt_epi64(least1, b));
  }
  if (i < in.padded) {
    const __m256i a = keyAt(in, c, i, times);
    least0 = _mm256_blendv_epi8(least0, a, _mm256_cmpgt_epi64(least0, a));
  }
  const __m256i least = _mm256_blendv_epi8(least0, least1, _mm256_cmpgt_epi64(least0, least1));
  alignas(32) std::int64_t lanes[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), least);
  const std::int64_t best = std::min(std::min(lanes[0], lanes[1]), std::min(lanes[2], lanes[3]));
  if (best == kNone) return {};
  // Pass 2: the senders at that time, a word of bits kept in a register
  // per 64 senders (or-ing into memory chained each group on the last).
  const __m256i target = _mm256_set1_epi64x(best);
  std::uint64_t tied[kDenseScanMax / 64] = {};
  const double floorTime = MulticastTimeline::completion(in.available, in.available, in.receive);
  if (best == std::bit_cast<std::int64_t>(floorTime)) {
    // j is the bottleneck: usually many ties (RRS's lagging receivers).
    // Their bits and what they hold and are the source of, in one pass.
    const __m256i zero = _mm256_setzero_si256();
    __m256i own0 = zero, own1 = zero, held0 = zero, held1 = zero;
    for (int t = 0; t * 64 < in.padded; ++t) {
      std::uint64_t word = 0;
      for (int at = t * 64, end = std::min(in.padded, at + 64); at < end; at += 4) {
        const __m256i equal =
            _mm256_cmpeq_epi64(_mm256_load_si256(reinterpret_cast<const __m256i*>(times + at)), target);
        word |= static_cast<std::uint64_t>(_mm256_movemask_pd(_mm256_castsi256_pd(equal))) << (at - t * 64);
        own0 = _mm256_or_si256(own0, _mm256_and_si256(equal, loadWords(in.sourced[0] + at)));
        own1 = _mm256_or_si256(own1, _mm256_and_si256(equal, loadWords(in.sourced[1] + at)));
        held0 = _mm256_or_si256(held0, _mm256_and_si256(equal, loadWords(in.held[0] + at)));
        held1 = _mm256_or_si256(held1, _mm256_and_si256(equal, loadWords(in.held[1] + at)));
      }
      tied[t] = word;
    }
    alignas(32) std::uint64_t x[4][4];
    _mm256_store_si256(reinterpret_cast<__m256i*>(x[0]), own0);
    _mm256_store_si256(reinterpret_cast<__m256i*>(x[1]), own1);
    _mm256_store_si256(reinterpret_cast<__m256i*>(x[2]), held0);
    _mm256_store_si256(reinterpret_cast<__m256i*>(x[3]), held1);
    const std::uint64_t ownBits[2] = {x[0][0] | x[0][1] | x[0][2] | x[0][3], x[1][0] | x[1][1] | x[1][2] | x[1][3]};
    const std::uint64_t heldBits[2] = {x[2][0] | x[2][1] | x[2][2] | x[2][3], x[3][0] | x[3][1] | x[3][2] | x[3][3]};
    return resolveTie(in, floorTime, ownBits, heldBits, tied);
  }
  for (int t = 0; t * 64 < in.padded; ++t) {
    std::uint64_t word = 0;
    for (int at = t * 64, end = std::min(in.padded, at + 64); at < end; at += 4) {
      const __m256i equal = _mm256_cmpeq_epi64(_mm256_load_si256(reinterpret_cast<const __m256i*>(times + at)), target);
      word |= static_cast<std::uint64_t>(_mm256_movemask_pd(_mm256_castsi256_pd(equal))) << (at - t * 64);
    }
    tied[t] = word;
  }
  return finishTies(in, best, tied);
}

// The same with AVX-512: eight senders a step, the least kept by vpminsq,
// the ties as mask registers.
__attribute__((target("avx512f,avx2,bmi,popcnt"))) DenseScanResult denseScanAvx512(const DenseScanInput& in) {
  alignas(64) std::int64_t times[kDenseScanMax];
  const __m512d bytes = _mm512_set1_pd(in.bytes), receive = _mm512_set1_pd(in.receive),
                floor = _mm512_set1_pd(MulticastTimeline::completion(in.available, in.available, in.receive));
  const __m512i wanted0 = _mm512_set1_epi64(static_cast<std::int64_t>(in.wanted[0]));
  const __m512i wanted1 = _mm512_set1_epi64(static_cast<std::int64_t>(in.wanted[1]));
  const __m512i none = _mm512_set1_epi64(kNone);
  __m512i least0 = none, least1 = none;
  for (int i = 0; i < in.padded; i += 8) {
    const __m512d wire = _mm512_mul_pd(_mm512_loadu_pd(in.linkTo + i), bytes);
    const __m512d late = _mm512_add_pd(_mm512_add_pd(_mm512_loadu_pd(in.sendEnd + i), wire), receive);
    const __m512i time = _mm512_castpd_si512(_mm512_max_pd(late, floor));
    const __mmask8 holds = _mm512_test_epi64_mask(_mm512_loadu_si512(in.held[0] + i), wanted0) |
                           _mm512_test_epi64_mask(_mm512_loadu_si512(in.held[1] + i), wanted1);
    const __m512i key = _mm512_mask_mov_epi64(none, holds, time);
    _mm512_store_si512(times + i, key);
    // Alternate minima: each vpminsq waits on the one two steps back.
    if ((i & 8) == 0) least0 = _mm512_min_epi64(least0, key);
    else least1 = _mm512_min_epi64(least1, key);
  }
  const std::int64_t best = _mm512_reduce_min_epi64(_mm512_min_epi64(least0, least1));
  if (best == kNone) return {};
  const __m512i target = _mm512_set1_epi64(best);
  std::uint64_t tied[kDenseScanMax / 64] = {};
  const double floorTime = MulticastTimeline::completion(in.available, in.available, in.receive);
  if (best == std::bit_cast<std::int64_t>(floorTime)) {
    // j is the bottleneck: every sender arriving in time ties at Avail_j +
    // R, usually many (RRS's lagging receivers). Their bits and what they
    // hold and are the source of, in the same pass.
    __m512i own0 = _mm512_setzero_si512(), own1 = own0, held0 = own0, held1 = own0;
    for (int t = 0; t * 64 < in.padded; ++t) {
      std::uint64_t word = 0;
      for (int at = t * 64, end = std::min(in.padded, at + 64); at < end; at += 8) {
        const __mmask8 m = _mm512_cmpeq_epi64_mask(_mm512_load_si512(times + at), target);
        word |= static_cast<std::uint64_t>(m) << (at - t * 64);
        own0 = _mm512_mask_or_epi64(own0, m, own0, _mm512_loadu_si512(in.sourced[0] + at));
        own1 = _mm512_mask_or_epi64(own1, m, own1, _mm512_loadu_si512(in.sourced[1] + at));
        held0 = _mm512_mask_or_epi64(held0, m, held0, _mm512_loadu_si512(in.held[0] + at));
        held1 = _mm512_mask_or_epi64(held1, m, held1, _mm512_loadu_si512(in.held[1] + at));
      }
      tied[t] = word;
    }
    const std::uint64_t ownBits[2] = {static_cast<std::uint64_t>(_mm512_reduce_or_epi64(own0)),
                                      static_cast<std::uint64_t>(_mm512_reduce_or_epi64(own1))};
    const std::uint64_t heldBits[2] = {static_cast<std::uint64_t>(_mm512_reduce_or_epi64(held0)),
                                       static_cast<std::uint64_t>(_mm512_reduce_or_epi64(held1))};
    return resolveTie(in, floorTime, ownBits, heldBits, tied);
  }
  for (int t = 0; t * 64 < in.padded; ++t) {
    std::uint64_t word = 0;
    for (int at = t * 64, end = std::min(in.padded, at + 64); at < end; at += 8)
      word |= static_cast<std::uint64_t>(_mm512_cmpeq_epi64_mask(_mm512_load_si512(times + at), target))
              << (at - t * 64);
    tied[t] = word;
  }
  return finishTies(in, best, tied);
}

}  // namespace

bool denseScanKernelAvailable(DenseScanKernel kernel) {
  static const bool avx2 =
      __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") && __builtin_cpu_supports("popcnt");
  static const bool avx512 = avx2 && __builtin_cpu_supports("avx512f");
  return kernel == DenseScanKernel::kAvx2 ? avx2 : avx512;
}

bool denseScanAvailable() { return denseScanKernelAvailable(DenseScanKernel::kAvx2); }

DenseScanResult denseScanWith(DenseScanKernel kernel, const DenseScanInput& in) {
  return kernel == DenseScanKernel::kAvx512 ? denseScanAvx512(in) : denseScanAvx2(in);
}

DenseScanResult denseScan(const DenseScanInput& in) {
  static const DenseScanKernel best =
      denseScanKernelAvailable(DenseScanKernel::kAvx512) ? DenseScanKernel::kAvx512 : DenseScanKernel::kAvx2;
  return denseScanWith(best, in);
}

DenseScanResult denseScanPlain(const DenseScanInput& in) {
  DenseScanResult out;
  for (int i = 0; i < in.padded; ++i) {
    std::uint64_t common[2], own[2];
    for (int w = 0; w < 2; ++w) common[w] = in.held[w][i] & in.wanted[w], own[w] = in.sourced[w][i] & in.wanted[w];
    if ((common[0] | common[1]) == 0) continue;
    const bool isOwn = (own[0] | own[1]) != 0;
    const std::uint64_t* pick = isOwn ? own : common;
    const int message = pick[0] != 0 ? std::countr_zero(pick[0]) : 64 + std::countr_zero(pick[1]);
    const double time = MulticastTimeline::completion(
        MulticastTimeline::arrivalAfter(in.sendEnd[i], in.linkTo[i] * in.bytes), in.available, in.receive);
    const auto key = std::make_tuple(time, isOwn ? 0 : 1, message, i);
    if (!out.found || key < std::make_tuple(out.time, out.notOwnSource, out.message, out.sender))
      out = {true, time, isOwn ? 0 : 1, message, i};
  }
  return out;
}

}  // namespace hnow::planner
