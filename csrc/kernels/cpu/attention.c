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
