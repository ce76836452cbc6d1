/* FNV-1a over a byte range: the key hash of the kernels' primitive and plan caches (conv_dnnl.c,
 * gemm_bf16.c, fft_engine.c; zero their key structs' padding first, it takes part). */
#ifndef PD_HASH_H
#define PD_HASH_H
#include <stddef.h>
#include <stdint.h>

static inline uint64_t pd_hash_bytes(const void *p, size_t n) {
  const unsigned char *b = (const unsigned char *)p;
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

#endif
