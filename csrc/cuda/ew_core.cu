// Host helpers of the elementwise family (ew_common.cuh): geometry, grid size, errors.
#include <stdarg.h>
#include <stdio.h>
#include "ew_common.cuh"

namespace pdew {

static int sm_count_cache[64];

int grid_for(int64_t work) {
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0) dev = 0;
  int sms = dev < 64 ? sm_count_cache[dev] : 0;
  if (sms <= 0) {
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || sms <= 0) sms = 132;
    if (dev < 64) sm_count_cache[dev] = sms; // benign race: every thread writes the same value
  }
  const int64_t cap = (int64_t)sms * 8; // 2048 resident threads per SM / 256
  int64_t blocks = (work + kThreads - 1) / kThreads;
  if (blocks > cap) blocks = cap;
  if (blocks < 1) blocks = 1;
  return (int)blocks;
}

int fail(int code, const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  pd_cu_set_error(code, "%s", buf);
  return -1;
}

int check_launch(const char *what) {
  const cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) return 0;
  return fail(PD_CU_ERR_LAUNCH, "%s: kernel launch failed: %s", what, cudaGetErrorString(e));
}

const char *dtype_name(int dtype) {
  static const char *const names[] = {"bool",     "uint8",   "int8",    "int16",     "int32",     "int64",
                                      "float16",  "bfloat16", "float32", "float64", "complex64", "complex128"};
  return dtype >= 0 && dtype < PD_CU_NUM_DTYPES ? names[dtype] : "unknown";
}

int make_geo(Geo *g, int nops, const pd_cuda_tensor *const *ops, const char *what, int *err) {
  const pd_cuda_tensor *o = ops[0];
  *err = 0;
  if (o->ndim < 0 || o->ndim > PD_CUDA_MAX_DIMS) {
    *err = 1;
    return fail(PD_CU_ERR_INVALID, "%s: output has %d dims (at most %d)", what, o->ndim, PD_CUDA_MAX_DIMS) + 1;
  }
  for (int k = 1; k < nops; k++) {
    const pd_cuda_tensor *t = ops[k];
    int same = t->ndim == o->ndim;
    for (int d = 0; same && d < o->ndim; d++) same = t->shape[d] == o->shape[d];
    if (!same) {
      *err = 1;
      return fail(PD_CU_ERR_INVALID, "%s: operand %d's shape does not match the output's (not broadcast)", what, k) +
             1;
    }
  }
  // drop size-1 dims, then merge neighbours that are contiguous for every operand
  int nd = 0;
  for (int d = 0; d < o->ndim; d++) {
    if (o->shape[d] == 1) continue;
    g->shape[nd] = o->shape[d];
    for (int k = 0; k < nops; k++) g->st[k][nd] = ops[k]->strides[d];
    nd++;
  }
  if (nd == 0) {
    g->ndim = 1;
    g->shape[0] = 1;
    for (int k = 0; k < nops; k++) g->st[k][0] = 1;
    return 1;
  }
  int m = 0;
  for (int d = 1; d < nd; d++) {
    int ok = 1;
    for (int k = 0; k < nops && ok; k++) ok = g->st[k][m] == g->st[k][d] * g->shape[d];
    if (ok) {
      g->shape[m] *= g->shape[d];
      for (int k = 0; k < nops; k++) g->st[k][m] = g->st[k][d];
    } else {
      m++;
      g->shape[m] = g->shape[d];
      for (int k = 0; k < nops; k++) g->st[k][m] = g->st[k][d];
    }
  }
  g->ndim = m + 1;
  if (g->ndim != 1) return 0;
  for (int k = 0; k < nops; k++)
    if (g->st[k][0] != 1) return 0;
  return 1;
}

} // namespace pdew
