/* The fused attention core (ops/attention.yaml): per (batch, head), S = q_h k_h^T as one strided
 * GEMM straight from the projections' column blocks (ld = E: no head reshape/transpose copies),
 * scale + mask + softmax on each row in place (probs), the dropout keep mask from the global
 * generator (pd_dropout_mask: the draws the dropout op would make), and out_h = dropout(P) v_h written
 * into its column block of out [B, Tq, Ev] (no transpose copy after). The (batch, head) pairs run
 * in parallel with one-thread GEMMs; with fewer pairs than two, the GEMMs take the threads.
 * The gradient recomputes dropout(P) from probs and the mask and runs four GEMMs per pair. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "pd_kernel_util.h"
#include "pd_vmath.h"
#include "pd_gemm.h"
#include "../pd_kernel_shared.h"
#include "../../core/pd_random.h"
#include "../../core/pd_alloc.h"

static void release_all(pd_tensor **t, int n) {
  for (int i = 0; i < n; i++)
    if (t[i]) pd_tensor_release(t[i]);
}

/* bit-blend selects (pd_vmath.h): gcc vectorises these where a ?: on a uint8 mask stayed scalar
 * with a branch and a conditional store */
#define ATT_SEL_f32 pd_vm_self
#define ATT_SEL_f64 pd_vm_seld
static inline float att_exp_f32(float x) { return pd_vexpf(x); }
static inline double att_exp_f64(double x) { return pd_vexp(x); }

/* parallel over (batch, head) pairs when there are two or more and two or more threads */
static int pair_threads(int64_t pairs) {
  int nt = pd_num_threads();
  return pairs >= 2 && nt > 1 ? nt : 1;
}

#define DEF_ATT(SUF, T, DT)                                                                           \
  /* row r of S (n values): S = S * scale + mask; softmax in place */                                 \
  static inline void att_softmax_row_##SUF(T *restrict s, const T *restrict mk, int64_t n, T scale) {  \
    if (mk)                                                                                           \
      for (int64_t j = 0; j < n; j++) s[j] = s[j] * scale + mk[j];                                    \
    else                                                                                              \
      for (int64_t j = 0; j < n; j++) s[j] = s[j] * scale;                                            \
    /* 8 partial maxima / sums so gcc vectorises them (a NaN anywhere ends as NaN via exp) */     \
    T m8[8], s8[8];                                                                                   \
    int64_t j = 0;                                                                                    \
    for (int l = 0; l < 8; l++) m8[l] = s[0];                                                         \
    for (; j + 8 <= n; j += 8)                                                                        \
      for (int l = 0; l < 8; l++) m8[l] = s[j + l] > m8[l] ? s[j + l] : m8[l];                        \
    for (; j < n; j++) m8[0] = s[j] > m8[0] ? s[j] : m8[0];                                           \
    T mx = m8[0];                                                                                     \
    for (int l = 1; l < 8; l++) mx = m8[l] > mx ? m8[l] : mx;                                         \
    for (j = 0; j < n; j++) s[j] = att_exp_##SUF(s[j] - mx);                                          \
    for (int l = 0; l < 8; l++) s8[l] = 0;                                                            \
    for (j = 0; j + 8 <= n; j += 8)                                                                   \
      for (int l = 0; l < 8; l++) s8[l] += s[j + l];                                                  \
    for (; j < n; j++) s8[0] += s[j];                                                                 \
    const T sum = ((s8[0] + s8[1]) + (s8[2] + s8[3])) + ((s8[4] + s8[5]) + (s8[6] + s8[7]));          \
    const T inv = (T)1 / sum;                                                                         \
    for (int64_t j = 0; j < n; j++) s[j] *= inv;                                                      \
  }                                                                                                   \
  pd_status pd_kernel_attention_core_##SUF(const void *args, pd_tensor **out, int n_out) {            \
    (void)n_out;                                                                                      \
    const pd_attention_core_args *a = (const pd_attention_core_args *)args;                           \
    pd_tensor *in[4] = {a->q, a->k, a->v, a->attn_mask}, *c[4];                                       \
    PD_TRY(pd_contiguous_all(in, c, 4));                                                                     \
    pd_att_geo g;                                                                                        \
    pd_att_geom(c[0], c[1], c[2], c[3], a->num_heads, &g);                                                   \
    const T *q = (const T *)pd_tensor_data(c[0]), *k = (const T *)pd_tensor_data(c[1]);              \
    const T *v = (const T *)pd_tensor_data(c[2]), *msk = c[3] ? (const T *)pd_tensor_data(c[3]) : NULL; \
    T *o = (T *)pd_tensor_data(out[0]), *P = (T *)pd_tensor_data(out[1]);                             \
    uint8_t *dm = (uint8_t *)pd_tensor_data(out[2]);                                                  \
    const int64_t pairs = g.B * g.H, TT = g.Tq * g.Tk, nP = pairs * TT;                               \
    const double p = a->dropout;                                                                      \
    /* the dropout op's arithmetic: out = P / keep with keep = (T)(1.0f - p) */                      \
    const T scale = (T)a->scale, keep = (T)(p > 0 ? 1.0f - (float)p : 1.0f);                          \
    if (p > 0 && nP > 0) {                                                                            \
      pd_dropout_mask(dm, nP, p, a->seed); /* the draws the dropout op would make */                 \
    } else if (out[2]->numel > 0) {                                                                   \
      dm[0] = 1;                                                                                      \
    }                                                                                                 \
    if (out[0]->numel > 0 && (g.Tk == 0 || nP == 0)) memset(o, 0, (size_t)out[0]->numel * sizeof(T)); \
    if (nP == 0 || out[0]->numel == 0) {                                                              \
      release_all(c, 4);                                                                              \
      return PD_OK;                                                                                   \
    }                                                                                                 \
    const int nt = pair_threads(pairs);                                                               \
    T *buf = NULL;                                                                                    \
    if (p > 0 && !(buf = (T *)malloc((size_t)nt * (size_t)TT * sizeof(T)))) {                         \
      release_all(c, 4);                                                                              \
      return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[attention_core] out of memory");               \
    }                                                                                                 \
    _Pragma("omp parallel for num_threads(nt) if (nt > 1) schedule(static)")                         \
    for (int64_t bh = 0; bh < pairs; bh++) {                                                          \
      const int64_t b = bh / g.H, h = bh % g.H;                                                       \
      const T *Q = q + b * g.Tq * g.E + h * g.hd, *K = k + b * g.Tk * g.E + h * g.hd;                  \
      const T *V = v + b * g.Tk * g.Ev + h * g.hdv;                                                   \
      T *S = P + bh * TT;                                                                             \
      pd_gemm(DT, 0, 1, g.Tq, g.Tk, g.hd, Q, g.E, K, g.E, S, g.Tk);                                   \
      const T *mk = msk ? msk + ((g.Mb > 1 ? b : 0) * g.Mh + (g.Mh > 1 ? h : 0)) * TT : NULL;         \
      for (int64_t i = 0; i < g.Tq; i++) att_softmax_row_##SUF(S + i * g.Tk, mk ? mk + i * g.Tk : NULL, g.Tk, scale); \
      const T *A = S;                                                                                 \
      if (p > 0) {                                                                                    \
        T *restrict D = buf + (int64_t)omp_get_thread_num() * TT;                                     \
        const uint8_t *restrict m = dm + bh * TT;                                                     \
        for (int64_t e = 0; e < TT; e++) D[e] = ATT_SEL_##SUF(m[e] != 0, S[e] / keep, (T)0);         \
        A = D;                                                                                        \
      }                                                                                               \
      pd_gemm(DT, 0, 0, g.Tq, g.hdv, g.Tk, A, g.Tk, V, g.Ev, o + b * g.Tq * g.Ev + h * g.hdv, g.Ev);   \
    }                                                                                                 \
    free(buf);                                                                                        \
    release_all(c, 4);                                                                                \
    return PD_OK;                                                                                     \
  }                                                                                                   \
  pd_status pd_kernel_attention_core_grad_##SUF(const void *args, pd_tensor **out, int n_out) {       \
    (void)n_out;                                                                                      \
    const pd_attention_core_grad_args *a = (const pd_attention_core_grad_args *)args;                 \
    pd_tensor *in[7] = {a->q, a->k, a->v, a->probs, a->mask, a->dout, a->dprobs}, *c[7];             \
    PD_TRY(pd_contiguous_all(in, c, 7));                                                                     \
    pd_att_geo g;                                                                                        \
    pd_att_geom(c[0], c[1], c[2], NULL, a->num_heads, &g);                                                   \
    const T *q = (const T *)pd_tensor_data(c[0]), *k = (const T *)pd_tensor_data(c[1]);              \
    const T *v = (const T *)pd_tensor_data(c[2]), *P = (const T *)pd_tensor_data(c[3]);              \
    const uint8_t *dm = (const uint8_t *)pd_tensor_data(c[4]);                                        \
    const T *dO = (const T *)pd_tensor_data(c[5]), *dP = c[6] ? (const T *)pd_tensor_data(c[6]) : NULL; \
    T *dq = (T *)pd_tensor_data(out[0]), *dk = (T *)pd_tensor_data(out[1]), *dv = (T *)pd_tensor_data(out[2]); \
    const int64_t pairs = g.B * g.H, TT = g.Tq * g.Tk;                                                \
    const double p = a->dropout;                                                                      \
    /* dropout_grad's factor (T)1 / (T)(1.0f - p); dropout(P) recomputed as the forward made it */    \
    const T scale = (T)a->scale, keep = (T)(p > 0 ? 1.0f - (float)p : 1.0f), dsc = (T)1 / keep;       \
    if (pairs * TT == 0) {                                                                            \
      for (int i = 0; i < 3; i++)                                                                     \
        if (out[i]->numel > 0) memset(pd_tensor_data(out[i]), 0, (size_t)out[i]->numel * sizeof(T));  \
      release_all(c, 7);                                                                              \
      return PD_OK;                                                                                   \
    }                                                                                                 \
    const int nt = pair_threads(pairs);                                                               \
    T *buf = (T *)malloc((size_t)nt * (size_t)(2 * TT) * sizeof(T));                                  \
    if (!buf) {                                                                                       \
      release_all(c, 7);                                                                              \
      return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[attention_core_grad] out of memory");          \
    }                                                                                                 \
    _Pragma("omp parallel for num_threads(nt) if (nt > 1) schedule(static)")                         \
    for (int64_t bh = 0; bh < pairs; bh++) {                                                          \
      const int64_t b = bh / g.H, h = bh % g.H;                                                       \
      const T *Q = q + b * g.Tq * g.E + h * g.hd, *K = k + b * g.Tk * g.E + h * g.hd;                  \
      const T *V = v + b * g.Tk * g.Ev + h * g.hdv, *dOb = dO + b * g.Tq * g.Ev + h * g.hdv;           \
      const T *restrict Pb = P + bh * TT;                                                             \
      T *restrict D = buf + (int64_t)omp_get_thread_num() * 2 * TT, *restrict G = D + TT;             \
      const uint8_t *restrict m = p > 0 ? dm + bh * TT : NULL;                                        \
      const T *A = Pb;                                                                                \
      if (m) {                                                                                        \
        for (int64_t e = 0; e < TT; e++) D[e] = ATT_SEL_##SUF(m[e] != 0, Pb[e] / keep, (T)0);        \
        A = D;                                                                                        \
      }                                                                                               \
      /* dV_h = dropout(P)^T dO_h;  G = dO_h V_h^T (the gradient of dropout(P)) */                    \
      pd_gemm(DT, 1, 0, g.Tk, g.hdv, g.Tq, A, g.Tk, dOb, g.Ev, dv + b * g.Tk * g.Ev + h * g.hdv, g.Ev); \
      pd_gemm(DT, 0, 1, g.Tq, g.Tk, g.hdv, dOb, g.Ev, V, g.Ev, G, g.Tk);                              \
      const T *dPb = dP ? dP + bh * TT : NULL;                                                        \
      for (int64_t i = 0; i < g.Tq; i++) {                                                            \
        T *restrict gr = G + i * g.Tk;                                                                \
        const T *restrict pr = Pb + i * g.Tk;                                                         \
        if (m) {                                                                                      \
          const uint8_t *restrict mr = m + i * g.Tk;                                                  \
          for (int64_t j = 0; j < g.Tk; j++) {                                                        \
            gr[j] = ATT_SEL_##SUF(mr[j] != 0, gr[j] * dsc, (T)0);                                     \
          }                                                                                           \
        }                                                                                             \
        if (dPb)                                                                                      \
          for (int64_t j = 0; j < g.Tk; j++) gr[j] += dPb[i * g.Tk + j];                              \
        T s8[8] = {0, 0, 0, 0, 0, 0, 0, 0};                                                           \
        int64_t j = 0;                                                                                \
        for (; j + 8 <= g.Tk; j += 8)                                                                 \
          for (int l = 0; l < 8; l++) s8[l] += gr[j + l] * pr[j + l];                                 \
        for (; j < g.Tk; j++) s8[0] += gr[j] * pr[j];                                                 \
        const T s = ((s8[0] + s8[1]) + (s8[2] + s8[3])) + ((s8[4] + s8[5]) + (s8[6] + s8[7]));        \
        for (j = 0; j < g.Tk; j++) gr[j] = pr[j] * (gr[j] - s) * scale;                               \
      }                                                                                               \
      /* dQ_h = dS K_h, dK_h = dS^T Q_h (dS = G, the scale folded in) */                              \
      pd_gemm(DT, 0, 0, g.Tq, g.hd, g.Tk, G, g.Tk, K, g.E, dq + b * g.Tq * g.E + h * g.hd, g.E);       \
      pd_gemm(DT, 1, 0, g.Tk, g.hd, g.Tq, G, g.Tk, Q, g.E, dk + b * g.Tk * g.E + h * g.hd, g.E);       \
    }                                                                                                 \
    free(buf);                                                                                        \
    release_all(c, 7);                                                                                \
    return PD_OK;                                                                                     \
  }
DEF_ATT(f32, float, PD_FLOAT32)
DEF_ATT(f64, double, PD_FLOAT64)

/* ---- bfloat16 (auto_cast(dtype='bfloat16') casts q, k, v and the mask; see _fused_attention) ----
 * On the bf16 units: S = q_h k_h^T for every (batch, head) as one strided bf16 GEMM with a float32
 * result, softmax in float32, probs rounded to bfloat16 (saved), dropout(P) in bfloat16, and
 * out_h = dropout(P) v_h as one strided GEMM with a bfloat16 result in out's column blocks; the
 * gradient likewise (four strided GEMMs, the softmax gradient in float32). Without the units (or
 * where oneDNN declines a geometry before anything was drawn) the float32 kernel runs on the
 * bfloat16 values and its outputs are rounded: the numerics of an op without a bf16 kernel. */
static pd_status att_f32_outs(pd_tensor **out, int n, pd_tensor **of) {
  for (int i = 0; i < n; i++) {
    of[i] = NULL;
    pd_status s = out[i]->dtype == PD_BFLOAT16 ? pd_tensor_empty(PD_FLOAT32, out[i]->ndim, out[i]->shape, &of[i])
                                                : (pd_tensor_retain(out[i]), of[i] = out[i], PD_OK);
    if (s != PD_OK) {
      release_all(of, i);
      return s;
    }
  }
  return PD_OK;
}
static pd_status att_round_outs(pd_tensor **out, pd_tensor **of, int n, pd_status s) {
  for (int i = 0; i < n && s == PD_OK; i++)
    if (of[i] != out[i]) s = pd_tensor_copy_(out[i], of[i]);
  release_all(of, n);
  return s;
}
static pd_status att_cast_ins(pd_tensor **in, pd_tensor **f, int n) {
  for (int i = 0; i < n; i++) {
    f[i] = NULL;
    if (!in[i]) continue;
    pd_status s = in[i]->dtype == PD_BFLOAT16 ? pd_tensor_cast(in[i], PD_FLOAT32, &f[i])
                                               : (pd_tensor_retain(in[i]), f[i] = in[i], PD_OK);
    if (s != PD_OK) {
      release_all(f, i);
      return s;
    }
  }
  return PD_OK;
}

static pd_status att_fwd_via_f32(const pd_attention_core_args *a, pd_tensor **out) {
  pd_tensor *in[4] = {a->q, a->k, a->v, a->attn_mask}, *f[4], *of[3];
  PD_TRY(att_cast_ins(in, f, 4));
  pd_status s = att_f32_outs(out, 3, of);
  if (s == PD_OK) {
    pd_attention_core_args b = *a;
    b.q = f[0], b.k = f[1], b.v = f[2], b.attn_mask = f[3];
    s = att_round_outs(out, of, 3, pd_kernel_attention_core_f32(&b, of, 3));
  }
  release_all(f, 4);
  return s;
}

static pd_status att_bwd_via_f32(const pd_attention_core_grad_args *a, pd_tensor **out) {
  pd_tensor *in[7] = {a->q, a->k, a->v, a->probs, a->mask, a->dout, a->dprobs}, *f[7], *of[3];
  PD_TRY(att_cast_ins(in, f, 7));
  pd_status s = att_f32_outs(out, 3, of);
  if (s == PD_OK) {
    pd_attention_core_grad_args b = *a;
    b.q = f[0], b.k = f[1], b.v = f[2], b.probs = f[3], b.mask = f[4], b.dout = f[5], b.dprobs = f[6];
    s = att_round_outs(out, of, 3, pd_kernel_attention_core_grad_f32(&b, of, 3));
  }
  release_all(f, 7);
  return s;
}

/* strides (elements) of the per-head views, for pd_gemm_bf16_strided: [B, H, rows, cols] of a
 * [B, T, W] projection whose head h holds columns [h hw, (h + 1) hw); tr: the view transposed */
static void att_proj_st(int64_t *st, int64_t T, int64_t W, int64_t hw, int tr) {
  st[0] = T * W, st[1] = hw, st[2] = tr ? 1 : W, st[3] = tr ? W : 1;
}
/* ... of the [B, H, Tq, Tk] score matrices */
static void att_score_st(int64_t *st, const pd_att_geo *g, int tr) {
  st[0] = g->H * g->Tq * g->Tk, st[1] = g->Tq * g->Tk, st[2] = tr ? 1 : g->Tk, st[3] = tr ? g->Tk : 1;
}

pd_status pd_kernel_attention_core_bf16(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_attention_core_args *a = (const pd_attention_core_args *)args;
  if (!pd_gemm_bf16_units()) return att_fwd_via_f32(a, out);
  pd_tensor *in[4] = {a->q, a->k, a->v, a->attn_mask}, *c[4];
  PD_TRY(pd_contiguous_all(in, c, 4));
  pd_att_geo g;
  pd_att_geom(c[0], c[1], c[2], c[3], a->num_heads, &g);
  const int64_t pairs = g.B * g.H, TT = g.Tq * g.Tk, nP = pairs * TT, bh2[2] = {g.B, g.H};
  if (nP == 0 || out[0]->numel == 0 || g.hd == 0) {
    release_all(c, 4);
    return att_fwd_via_f32(a, out);
  }
  const uint16_t *q = (const uint16_t *)pd_tensor_data(c[0]), *k = (const uint16_t *)pd_tensor_data(c[1]);
  const uint16_t *v = (const uint16_t *)pd_tensor_data(c[2]);
  const uint16_t *msk = c[3] ? (const uint16_t *)pd_tensor_data(c[3]) : NULL; /* q's dtype (infer_meta) */
  uint16_t *o = (uint16_t *)pd_tensor_data(out[0]), *P = (uint16_t *)pd_tensor_data(out[1]);
  uint8_t *dm = (uint8_t *)pd_tensor_data(out[2]);
  const double p = a->dropout;
  const float scale = (float)a->scale, keep = p > 0 ? 1.0f - (float)p : 1.0f;
  int64_t qs[4], ks[4], vs[4], os[4], ss[4];
  att_proj_st(qs, g.Tq, g.E, g.hd, 0);
  att_proj_st(ks, g.Tk, g.E, g.hd, 1);
  att_proj_st(vs, g.Tk, g.Ev, g.hdv, 0);
  att_proj_st(os, g.Tq, g.Ev, g.hdv, 0);
  att_score_st(ss, &g, 0);
  float *S = (float *)pd_alloc((size_t)nP * sizeof(float));
  uint16_t *D = p > 0 ? (uint16_t *)pd_alloc((size_t)nP * sizeof(uint16_t)) : NULL;
  if (!S || (p > 0 && !D)) {
    pd_free(S), pd_free(D);
    release_all(c, 4);
    return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[attention_core] out of memory");
  }
  /* both products probed before the dropout draws: a declined geometry falls back whole */
  int ok = pd_gemm_bf16_strided(bh2, g.Tq, g.hdv, g.Tk, NULL, ss, NULL, vs, NULL, os, 0) &&
           pd_gemm_bf16_strided(bh2, g.Tq, g.Tk, g.hd, q, qs, k, ks, S, ss, 1);
  if (!ok) {
    pd_free(S), pd_free(D);
    release_all(c, 4);
    return att_fwd_via_f32(a, out);
  }
  if (p > 0) pd_dropout_mask(dm, nP, p, a->seed); /* the draws the dropout op would make */
  else if (out[2]->numel > 0) dm[0] = 1;
  const int64_t rows = pairs * g.Tq;
#pragma omp parallel for if (nP >= 32768) schedule(static)
  for (int64_t r = 0; r < rows; r++) {
    const int64_t bh = r / g.Tq, i = r % g.Tq, b = bh / g.H, h = bh % g.H;
    float *restrict s = S + r * g.Tk;
    if (msk) {
      const int64_t mo = (((g.Mb > 1 ? b : 0) * g.Mh + (g.Mh > 1 ? h : 0)) * g.Tq + i) * g.Tk;
      for (int64_t j = 0; j < g.Tk; j++) s[j] = s[j] * scale + pd_bf16_bits_to_f32(msk[mo + j]);
    } else {
      for (int64_t j = 0; j < g.Tk; j++) s[j] *= scale;
    }
    att_softmax_row_f32(s, NULL, g.Tk, 1.0f);
    uint16_t *restrict pr = P + r * g.Tk;
    for (int64_t j = 0; j < g.Tk; j++) pr[j] = pd_f32_to_bf16_bits(s[j]);
    if (D) {
      const uint8_t *restrict m = dm + r * g.Tk;
      uint16_t *restrict d = D + r * g.Tk;
      for (int64_t j = 0; j < g.Tk; j++) d[j] = m[j] ? pd_f32_to_bf16_bits(pd_bf16_bits_to_f32(pr[j]) / keep) : 0;
    }
  }
  ok = pd_gemm_bf16_strided(bh2, g.Tq, g.hdv, g.Tk, D ? D : P, ss, v, vs, o, os, 0);
  pd_free(S), pd_free(D);
  release_all(c, 4);
  return ok ? PD_OK : pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[attention_core] the bf16 GEMM failed (out of memory?)");
}

pd_status pd_kernel_attention_core_grad_bf16(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_attention_core_grad_args *a = (const pd_attention_core_grad_args *)args;
  if (!pd_gemm_bf16_units() || a->probs->dtype != PD_BFLOAT16 || (a->dprobs && a->dprobs->dtype != PD_BFLOAT16))
    return att_bwd_via_f32(a, out);
  pd_tensor *in[7] = {a->q, a->k, a->v, a->probs, a->mask, a->dout, a->dprobs}, *c[7];
  PD_TRY(pd_contiguous_all(in, c, 7));
  pd_att_geo g;
  pd_att_geom(c[0], c[1], c[2], NULL, a->num_heads, &g);
  const int64_t pairs = g.B * g.H, TT = g.Tq * g.Tk, nP = pairs * TT, bh2[2] = {g.B, g.H};
  if (nP == 0 || g.hd == 0 || g.hdv == 0) {
    release_all(c, 7);
    return att_bwd_via_f32(a, out);
  }
  const uint16_t *q = (const uint16_t *)pd_tensor_data(c[0]), *k = (const uint16_t *)pd_tensor_data(c[1]);
  const uint16_t *v = (const uint16_t *)pd_tensor_data(c[2]), *P = (const uint16_t *)pd_tensor_data(c[3]);
  const uint8_t *dm = (const uint8_t *)pd_tensor_data(c[4]);
  const uint16_t *dO = (const uint16_t *)pd_tensor_data(c[5]);
  const uint16_t *dP = c[6] ? (const uint16_t *)pd_tensor_data(c[6]) : NULL;
  uint16_t *dq = (uint16_t *)pd_tensor_data(out[0]), *dk = (uint16_t *)pd_tensor_data(out[1]);
  uint16_t *dv = (uint16_t *)pd_tensor_data(out[2]);
  const double p = a->dropout;
  const float scale = (float)a->scale, keep = p > 0 ? 1.0f - (float)p : 1.0f, dsc = 1.0f / keep;
  int64_t qs[4], ks[4], vts[4], dos[4], dvs[4], ss[4], sts[4];
  att_proj_st(qs, g.Tq, g.E, g.hd, 0);
  att_proj_st(ks, g.Tk, g.E, g.hd, 0);
  att_proj_st(vts, g.Tk, g.Ev, g.hdv, 1);
  att_proj_st(dos, g.Tq, g.Ev, g.hdv, 0);
  att_proj_st(dvs, g.Tk, g.Ev, g.hdv, 0);
  att_score_st(ss, &g, 0);
  att_score_st(sts, &g, 1);
  float *G = (float *)pd_alloc((size_t)nP * sizeof(float));
  uint16_t *Gb = (uint16_t *)pd_alloc((size_t)nP * sizeof(uint16_t));
  uint16_t *D = p > 0 ? (uint16_t *)pd_alloc((size_t)nP * sizeof(uint16_t)) : NULL;
  if (!G || !Gb || (p > 0 && !D)) {
    pd_free(G), pd_free(Gb), pd_free(D);
    release_all(c, 7);
    return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[attention_core_grad] out of memory");
  }
  if (D) {
#pragma omp parallel for if (nP >= 65536) schedule(static)
    for (int64_t e = 0; e < nP; e++) D[e] = dm[e] ? pd_f32_to_bf16_bits(pd_bf16_bits_to_f32(P[e]) / keep) : 0;
  }
  /* dV_h = dropout(P)^T dO_h;  G = dO_h V_h^T (the gradient of dropout(P)), float32 */
  int ok = pd_gemm_bf16_strided(bh2, g.Tk, g.hdv, g.Tq, D ? D : P, sts, dO, dos, dv, dvs, 0) &&
           pd_gemm_bf16_strided(bh2, g.Tq, g.Tk, g.hdv, dO, dos, v, vts, G, ss, 1);
  if (ok) {
    const int64_t rows = pairs * g.Tq;
#pragma omp parallel for if (nP >= 32768) schedule(static)
    for (int64_t r = 0; r < rows; r++) {
      float *restrict gr = G + r * g.Tk;
      const uint16_t *restrict pr = P + r * g.Tk;
      if (D) {
        const uint8_t *restrict mr = dm + r * g.Tk;
        for (int64_t j = 0; j < g.Tk; j++) gr[j] = mr[j] ? gr[j] * dsc : 0.0f;
      }
      if (dP)
        for (int64_t j = 0; j < g.Tk; j++) gr[j] += pd_bf16_bits_to_f32(dP[r * g.Tk + j]);
      float s8[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      int64_t j = 0;
      for (; j + 8 <= g.Tk; j += 8)
        for (int l = 0; l < 8; l++) s8[l] += gr[j + l] * pd_bf16_bits_to_f32(pr[j + l]);
      for (; j < g.Tk; j++) s8[0] += gr[j] * pd_bf16_bits_to_f32(pr[j]);
      const float s = ((s8[0] + s8[1]) + (s8[2] + s8[3])) + ((s8[4] + s8[5]) + (s8[6] + s8[7]));
      uint16_t *restrict gb = Gb + r * g.Tk;
      for (j = 0; j < g.Tk; j++) gb[j] = pd_f32_to_bf16_bits(pd_bf16_bits_to_f32(pr[j]) * (gr[j] - s) * scale);
    }
    /* dQ_h = dS K_h, dK_h = dS^T Q_h (dS = Gb, the scale folded in) */
    int64_t dqs[4], dks[4];
    att_proj_st(dqs, g.Tq, g.E, g.hd, 0);
    att_proj_st(dks, g.Tk, g.E, g.hd, 0);
    ok = pd_gemm_bf16_strided(bh2, g.Tq, g.hd, g.Tk, Gb, ss, k, ks, dq, dqs, 0) &&
         pd_gemm_bf16_strided(bh2, g.Tk, g.hd, g.Tq, Gb, sts, q, qs, dk, dks, 0);
  }
  pd_free(G), pd_free(Gb), pd_free(D);
  release_all(c, 7);
  if (!ok) return att_bwd_via_f32(a, out); /* nothing drawn: the gradient is computed again in full */
  return PD_OK;
}
