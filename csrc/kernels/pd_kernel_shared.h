/* Argument handling that a CPU kernel and its GPU twin (csrc/kernels/gpu/) share: the same rule in
 * one place, so the GPU glue decodes shapes, strides and scalars exactly as the CPU kernel does. */
#ifndef PD_KERNEL_SHARED_H
#define PD_KERNEL_SHARED_H
#include <stdint.h>
#include "../ops/pd_op.h"

/* ---- matmul (cpu/matmul.c, gpu/nn.c) ---- */
typedef struct {
  int trans;  /* 1 when the stored matrix is the transpose (BLAS Trans) */
  int64_t ld; /* leading dimension */
  int ok;
} pd_blas_view;

/* A logical (rows x cols) matrix with element (i, k) at i*si + k*sk as a BLAS row-major view? */
static inline pd_blas_view pd_blas_fit(int64_t rows, int64_t cols, int64_t si, int64_t sk) {
  pd_blas_view v = {0, 0, 0};
  int64_t mc = cols > 1 ? cols : 1, mr = rows > 1 ? rows : 1;
  if ((sk == 1 || cols == 1) && (si >= mc || rows == 1)) {
    v.trans = 0;
    v.ld = rows == 1 ? mc : si;
    v.ok = 1;
  } else if ((si == 1 || rows == 1) && (sk >= mr || cols == 1)) {
    v.trans = 1;
    v.ld = cols == 1 ? mr : sk;
    v.ok = 1;
  }
  return v;
}

/* strides (si, sk) of operand t's logical matrix after its transpose flag; for 1-D operands
 * `vec_row` says whether the vector is a row (x) or a column (y). */
static inline void pd_mat_strides(const pd_tensor *t, int trans, int vec_row, int64_t *si, int64_t *sk) {
  if (t->ndim == 1) {
    if (vec_row) { *si = 0; *sk = t->strides[0]; }
    else { *si = t->strides[0]; *sk = 0; }
    return;
  }
  int64_t rs = t->strides[t->ndim - 2], cs = t->strides[t->ndim - 1];
  if (trans) { *si = cs; *sk = rs; }
  else { *si = rs; *sk = cs; }
}

/* ---- attention_core (cpu/attention.c, gpu/attn.c) ---- */
typedef struct {
  int64_t B, Tq, Tk, H, E, Ev, hd, hdv, Mb, Mh;
} pd_att_geo;

static inline void pd_att_geom(const pd_tensor *q, const pd_tensor *k, const pd_tensor *v, const pd_tensor *mask,
                               int64_t H, pd_att_geo *g) {
  g->B = q->shape[0];
  g->Tq = q->shape[1];
  g->Tk = k->shape[1];
  g->H = H;
  g->E = q->shape[2];
  g->Ev = v->shape[2];
  g->hd = g->E / H;
  g->hdv = g->Ev / H;
  g->Mb = mask ? mask->shape[0] : 0;
  g->Mh = mask ? mask->shape[1] : 0;
}

/* ---- any kernel ---- */
/* Contiguous versions of in[0..n) (NULL entries stay NULL), released by the caller; on failure
 * nothing is held and every out[i] is NULL. */
static inline pd_status pd_contiguous_all(pd_tensor **in, pd_tensor **out, int n) {
  for (int i = 0; i < n; i++) out[i] = NULL;
  for (int i = 0; i < n; i++) {
    if (!in[i]) continue;
    pd_status s = pd_tensor_contiguous(in[i], &out[i]);
    if (s != PD_OK) {
      for (int j = 0; j < n; j++) {
        if (j < i && out[j]) pd_tensor_release(out[j]);
        out[j] = NULL;
      }
      return s;
    }
  }
  return PD_OK;
}

/* A Scalar attribute as an integer of dtype dt's range (unary ops' parameters: integers
 * saturate, NaN -> 0; floats truncate toward zero). */
static inline int64_t pd_scalar_saturate(pd_scalar s, pd_dtype dt) {
  int64_t lo = INT64_MIN, hi = INT64_MAX;
  switch (dt) {
    case PD_BOOL: lo = 0; hi = 1; break;
    case PD_UINT8: lo = 0; hi = 255; break;
    case PD_INT8: lo = -128; hi = 127; break;
    case PD_INT16: lo = -32768; hi = 32767; break;
    case PD_INT32: lo = INT32_MIN; hi = INT32_MAX; break;
    default: break;
  }
  if (s.kind == PD_SCALAR_INT || s.kind == PD_SCALAR_BOOL) return s.i < lo ? lo : (s.i > hi ? hi : s.i);
  if (s.f != s.f) return 0;
  if (s.f <= (double)lo) return lo;
  if (s.f >= (double)hi) return hi;
  return (int64_t)s.f;
}

#endif
