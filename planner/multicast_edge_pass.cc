#include "planner/multicast_edge_pass.h"

// GCC 12 warns that its own AVX-512 intrinsics (which start from
// _mm512_undefined_*) use an uninitialized value: a known false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>

#include <bit>
#include <cstdint>
#include <limits>

namespace hnow::planner {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// The loop FEF ran before the vector kernels, kept as they must behave.
EdgePassResult edgePassPlain(const EdgePassInput& in) {
  EdgePassResult out{kInfinity, -1};
  for (int w = 0; w * 64 < in.count; ++w) {
    for (std::uint64_t bits = in.waiting[w]; bits != 0; bits &= bits - 1) {
      const int d = w * 64 + std::countr_zero(bits);
      const double x = in.send + in.link[d] * in.bytes + in.receive[d];
      double b = in.bestWeight[d];
      // One comparison in the common case (j's edge is heavier); on equal
      // weights the lower sender wins.
      if (x <= b) [[unlikely]] {
        if (x < b || in.sender < in.bestFrom[d]) b = in.bestWeight[d] = x, in.bestFrom[d] = in.sender;
      }
      if (b < out.weight) out = {b, d};  // weights are finite
    }
  }
  return out;
}

// Eight destinations a step; masked loads and stores touch only the
// waiting ones (and never fault past the arrays). Each lane keeps its least
// weight under a strict comparison, so its earliest destination; the lanes
// then give the least weight and the lowest destination having it.
__attribute__((target("avx512f,avx512vl"))) EdgePassResult edgePassAvx512(const EdgePassInput& in) {
  const __m512d send = _mm512_set1_pd(in.send), bytes = _mm512_set1_pd(in.bytes);
  const __m256i sender = _mm256_set1_epi32(in.sender);
  const __m512i lane = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
  __m512d least = _mm512_set1_pd(kInfinity);
  __m512i leastTo = _mm512_set1_epi64(-1);
  for (int d = 0; d < in.count; d += 8) {
    const __mmask8 waiting = static_cast<__mmask8>(in.waiting[d / 64] >> (d % 64));
    const __m512d x = _mm512_add_pd(
        _mm512_add_pd(send, _mm512_mul_pd(_mm512_maskz_loadu_pd(waiting, in.link + d), bytes)),
        _mm512_maskz_loadu_pd(waiting, in.receive + d));
    __m512d b = _mm512_maskz_loadu_pd(waiting, in.bestWeight + d);
    const __m256i from = _mm256_maskz_loadu_epi32(waiting, in.bestFrom + d);
    const __mmask8 lighter = _mm512_mask_cmp_pd_mask(waiting, x, b, _CMP_LT_OQ);
    const __mmask8 equal = _mm512_mask_cmp_pd_mask(waiting, x, b, _CMP_EQ_OQ);
    const __mmask8 take = lighter | _mm256_mask_cmpgt_epi32_mask(equal, from, sender);
    _mm512_mask_storeu_pd(in.bestWeight + d, take, x);
    _mm256_mask_storeu_epi32(in.bestFrom + d, take, sender);
    b = _mm512_mask_mov_pd(b, take, x);
    const __mmask8 less = _mm512_mask_cmp_pd_mask(waiting, b, least, _CMP_LT_OQ);
    least = _mm512_mask_mov_pd(least, less, b);
    leastTo = _mm512_mask_mov_epi64(leastTo, less, _mm512_add_epi64(_mm512_set1_epi64(d), lane));
  }
  const double weight = _mm512_reduce_min_pd(least);
  if (weight == kInfinity) return {kInfinity, -1};
  const __mmask8 at = _mm512_cmp_pd_mask(least, _mm512_set1_pd(weight), _CMP_EQ_OQ);
  const std::int64_t to =
      _mm512_reduce_min_epi64(_mm512_mask_mov_epi64(_mm512_set1_epi64(std::numeric_limits<std::int64_t>::max()), at,
                                                    leastTo));
  return {weight, static_cast<int>(to)};
}

// Four destinations a step, the lane masks made from the waiting bits.
// Plain loads and stores of whole groups, blended, not AVX2's masked ones:
// AMD processors run vmaskmov stores as many slow micro-ops.
__attribute__((target("avx2"))) EdgePassResult edgePassAvx2(const EdgePassInput& in) {
  const __m256d send = _mm256_set1_pd(in.send), bytes = _mm256_set1_pd(in.bytes);
  const __m128i sender = _mm_set1_epi32(in.sender);
  const __m256i bit64 = _mm256_set_epi64x(8, 4, 2, 1);
  const __m256i lane = _mm256_set_epi64x(3, 2, 1, 0);
  __m256d least = _mm256_set1_pd(kInfinity);
  __m256i leastTo = _mm256_set1_epi64x(-1);
  for (int d = 0; d < in.count; d += 4) {
    const int bits = static_cast<int>((in.waiting[d / 64] >> (d % 64)) & 0xF);
    const __m256d waiting =
        _mm256_castsi256_pd(_mm256_cmpeq_epi64(_mm256_and_si256(_mm256_set1_epi64x(bits), bit64), bit64));
    const __m256d x = _mm256_add_pd(_mm256_add_pd(send, _mm256_mul_pd(_mm256_loadu_pd(in.link + d), bytes)),
                                    _mm256_loadu_pd(in.receive + d));
    __m256d b = _mm256_loadu_pd(in.bestWeight + d);
    const __m128i from = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in.bestFrom + d));
    const __m256d lighter = _mm256_and_pd(_mm256_cmp_pd(x, b, _CMP_LT_OQ), waiting);
    const __m256d equal = _mm256_and_pd(_mm256_cmp_pd(x, b, _CMP_EQ_OQ), waiting);
    const __m256d laterSender = _mm256_castsi256_pd(_mm256_cvtepi32_epi64(_mm_cmpgt_epi32(from, sender)));
    const __m256d take = _mm256_or_pd(lighter, _mm256_and_pd(equal, laterSender));
    b = _mm256_blendv_pd(b, x, take);
    _mm256_storeu_pd(in.bestWeight + d, b);
    // The 64-bit lane masks' low halves, as four 32-bit lanes.
    const __m128i take32 = _mm256_castsi256_si128(
        _mm256_permutevar8x32_epi32(_mm256_castpd_si256(take), _mm256_set_epi32(0, 0, 0, 0, 6, 4, 2, 0)));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(in.bestFrom + d), _mm_blendv_epi8(from, sender, take32));
    const __m256d less = _mm256_and_pd(_mm256_cmp_pd(b, least, _CMP_LT_OQ), waiting);
    least = _mm256_blendv_pd(least, b, less);
    leastTo = _mm256_castpd_si256(_mm256_blendv_pd(
        _mm256_castsi256_pd(leastTo), _mm256_castsi256_pd(_mm256_add_epi64(_mm256_set1_epi64x(d), lane)), less));
  }
  alignas(32) double weights[4];
  alignas(32) std::int64_t tos[4];
  _mm256_store_pd(weights, least);
  _mm256_store_si256(reinterpret_cast<__m256i*>(tos), leastTo);
  EdgePassResult out{kInfinity, -1};
  for (int l = 0; l < 4; ++l)
    if (tos[l] >= 0 && (weights[l] < out.weight || (weights[l] == out.weight && tos[l] < out.to)))
      out = {weights[l], static_cast<int>(tos[l])};
  return out;
}

}  // namespace

bool edgePassKernelAvailable(EdgePassKernel kernel) {
  static const bool avx2 = __builtin_cpu_supports("avx2");
  static const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
  switch (kernel) {
    case EdgePassKernel::kPlain: return true;
    case EdgePassKernel::kAvx2: return avx2;
    case EdgePassKernel::kAvx512: return avx512;
  }
  return false;
}

EdgePassResult edgePassWith(EdgePassKernel kernel, const EdgePassInput& in) {
  switch (kernel) {
    case EdgePassKernel::kAvx512: return edgePassAvx512(in);
    case EdgePassKernel::kAvx2: return edgePassAvx2(in);
    case EdgePassKernel::kPlain: break;
  }
  return edgePassPlain(in);
}

EdgePassResult edgePass(const EdgePassInput& in) {
  static const EdgePassKernel widest = edgePassKernelAvailable(EdgePassKernel::kAvx512) ? EdgePassKernel::kAvx512
                                       : edgePassKernelAvailable(EdgePassKernel::kAvx2) ? EdgePassKernel::kAvx2
                                                                                         : EdgePassKernel::kPlain;
  return edgePassWith(widest, in);
}

}  // namespace hnow::planner
