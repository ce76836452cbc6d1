/* Bernoulli masks from the global Philox stream, 8 counters per step on AVX2 (chosen at run time
 * from cpuid; the scalar pd_philox otherwise): the same words, so the same masks, either way.
 * dropout's mask was 60% of its time through the scalar generator ([16, 64, 1024]: 4.95 ms, one
 * thread). */
#include <immintrin.h>
#include <stdatomic.h>
#include "pd_random.h"

uint32_t pd_philox_keep_threshold(double p) {
  if (!(p < 1.0)) return 1u << 24;
  const float pf = (float)p; /* u = (w >> 8) 2^-24 >= pf  <=>  (w >> 8) >= ceil(pf 2^24) */
  if (pf <= 0.0f) return 0;
  double t = (double)pf * 16777216.0, c = (double)(int64_t)t;
  if (c < t) c += 1.0;
  return c > 16777216.0 ? 1u << 24 : (uint32_t)c;
}

static void mask_scalar(uint8_t *m, int64_t n, uint64_t key, uint64_t first, uint32_t thr, int64_t c0,
                        int64_t c1) {
  for (int64_t c = c0; c < c1; c++) {
    uint32_t w[4];
    pd_philox(key, first + (uint64_t)c, w);
    for (int j = 0; j < 4 && c * 4 + j < n; j++) m[c * 4 + j] = (uint8_t)((w[j] >> 8) >= thr);
  }
}

#if defined(__x86_64__) || defined(__i386__)
#define HAVE_AVX2_PATH 1
__attribute__((target("avx2"))) static inline void mulhilo(__m256i a, __m256i mul, __m256i *hi, __m256i *lo) {
  __m256i pe = _mm256_mul_epu32(a, mul);                        /* lanes 0, 2, 4, 6 as 64-bit */
  __m256i po = _mm256_mul_epu32(_mm256_srli_epi64(a, 32), mul); /* lanes 1, 3, 5, 7 */
  *lo = _mm256_blend_epi32(pe, _mm256_slli_epi64(po, 32), 0xAA);
  *hi = _mm256_blend_epi32(_mm256_srli_epi64(pe, 32), po, 0xAA);
}

__attribute__((target("avx2"))) static void mask_avx2(uint8_t *m, int64_t n, uint64_t key, uint64_t first,
                                                      uint32_t thr, int64_t c0, int64_t c1) {
  const __m256i M0 = _mm256_set1_epi32((int)0xD2511F53u), M1 = _mm256_set1_epi32((int)0xCD9E8D57u);
  const __m256i lim = _mm256_set1_epi32((int)thr - 1), one = _mm256_set1_epi32(1);
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  int64_t c = c0;
  for (; c + 8 <= c1 && (c + 8) * 4 <= n; c += 8) {
    const uint64_t base = first + (uint64_t)c;
    if ((uint32_t)base > 0xFFFFFFF8u) { /* the low word wraps inside this block: scalar */
      mask_scalar(m, n, key, first, thr, c, c + 8);
      continue;
    }
    __m256i x0 = _mm256_add_epi32(_mm256_set1_epi32((int)(uint32_t)base), lane);
    __m256i x1 = _mm256_set1_epi32((int)(uint32_t)(base >> 32));
    __m256i x2 = _mm256_setzero_si256(), x3 = _mm256_setzero_si256();
    uint32_t k0 = (uint32_t)key, k1 = (uint32_t)(key >> 32);
    for (int r = 0; r < 10; r++) {
      __m256i hi0, lo0, hi1, lo1;
      mulhilo(x0, M0, &hi0, &lo0);
      mulhilo(x2, M1, &hi1, &lo1);
      x0 = _mm256_xor_si256(_mm256_xor_si256(hi1, x1), _mm256_set1_epi32((int)k0));
      x2 = _mm256_xor_si256(_mm256_xor_si256(hi0, x3), _mm256_set1_epi32((int)k1));
      x1 = lo1;
      x3 = lo0;
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    /* lane l holds counter c + l; its four words are elements 4 (c + l) + 0..3 (one byte each) */
    __m256i b0 = _mm256_and_si256(_mm256_cmpgt_epi32(_mm256_srli_epi32(x0, 8), lim), one);
    __m256i b1 = _mm256_and_si256(_mm256_cmpgt_epi32(_mm256_srli_epi32(x1, 8), lim), one);
    __m256i b2 = _mm256_and_si256(_mm256_cmpgt_epi32(_mm256_srli_epi32(x2, 8), lim), one);
    __m256i b3 = _mm256_and_si256(_mm256_cmpgt_epi32(_mm256_srli_epi32(x3, 8), lim), one);
    __m256i r = _mm256_or_si256(_mm256_or_si256(b0, _mm256_slli_epi32(b1, 8)),
                                _mm256_or_si256(_mm256_slli_epi32(b2, 16), _mm256_slli_epi32(b3, 24)));
    _mm256_storeu_si256((__m256i *)(m + c * 4), r);
  }
  mask_scalar(m, n, key, first, thr, c, c1);
}
#endif

/* m[4c + j] = (word j of counter first + c) >> 8 >= thr for counters c in [c0, c1) (and 4c + j < n). */
void pd_philox_mask(uint8_t *m, int64_t n, uint64_t key, uint64_t first, uint32_t thr, int64_t c0, int64_t c1) {
#ifdef HAVE_AVX2_PATH
  static atomic_int avx2 = -1;
  int a = atomic_load_explicit(&avx2, memory_order_relaxed);
  if (a < 0) {
    __builtin_cpu_init();
    a = __builtin_cpu_supports("avx2") ? 1 : 0;
    atomic_store_explicit(&avx2, a, memory_order_relaxed);
  }
  if (a) {
    mask_avx2(m, n, key, first, thr, c0, c1);
    return;
  }
#endif
  mask_scalar(m, n, key, first, thr, c0, c1);
}
