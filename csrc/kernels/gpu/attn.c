/* GPU kernels of ops/attention.yaml (attention_core + attention_core_grad): the CPU kernel's plan
 * (csrc/kernels/cpu/attention.c, THE reference) on the GPU. Every per-(batch, head) product is a
 * strided-batched cuBLAS GEMM straight from the projections' column blocks (the nn family's
 * gemm_c: A / B / C with row strides E / Ev and batch strides over [B, H], no head
 * reshape/transpose copies); scale + mask + softmax, the dropout of P and the softmax gradient are
 * the row kernels of csrc/cuda/attn_core.cu. The dropout keep mask is the CPU's: drawn on the
 * host with pd_dropout_mask (the draws the CPU kernel makes, from the same engine) and uploaded,
 * so seeded GPU runs give the CPU's masks. float32 / float64 as the CPU; float32 GEMMs follow
 * FLAGS_allow_tf32_cublas like matmul. */
#include <stdlib.h>
#include <string.h>
#include "../../core/pd_device.h"
#include "../../core/pd_random.h"
#include "../../ops/pd_op.h"
#include "../../ops/generated/pd_ops_gen.h"
#include "../../cuda/pd_cuda_nn.h"
#include "pd_gpu_extra.h"
#include "../pd_kernel_shared.h"

#define NN (pd_cuda->nn)

static int have_launchers(void) {
  return pd_cuda && NN && NN->gemm_c && NN->attn_softmax && NN->attn_dropout && NN->attn_softmax_grad;
}

static void release_all(pd_tensor **t, int n) {
  for (int i = 0; i < n; i++)
    if (t[i]) pd_tensor_release(t[i]);
}

/* C[b, h] = op(A[b, h]) op(B[b, h]) for every (batch, head): batch strides (s0 over b, s1 over h)
 * of A, B and C */
static pd_status bgemm(const char *op, int dt, int ta, int tb, int64_t M, int64_t N, int64_t K, const void *A,
                       int64_t lda, int64_t a0, int64_t a1, const void *Bm, int64_t ldb, int64_t b0, int64_t b1,
                       void *C, int64_t ldc, int64_t c0, int64_t c1, const pd_att_geo *g) {
  pd_cuda_gemm_batch bt;
  memset(&bt, 0, sizeof bt);
  bt.nb = 2;
  bt.shape[0] = g->B;
  bt.shape[1] = g->H;
  bt.astride[0] = a0;
  bt.astride[1] = a1;
  bt.bstride[0] = b0;
  bt.bstride[1] = b1;
  const int64_t cs[2] = {c0, c1};
  return pd_cu_status(NN->gemm_c(dt, ta, tb, M, N, K, A, lda, Bm, ldb, C, ldc, &bt, cs), op);
}

static pd_status zero(pd_tensor *t, const char *op) {
  if (t->numel == 0) return PD_OK;
  return pd_cu_status(pd_cuda->rt->memset(pd_tensor_data(t), 0, (size_t)t->numel * pd_dtype_size(t->dtype)), op);
}

/* the CPU's keep = (T)(1.0f - (float)p) and dropout_grad's dsc = (T)1 / keep, rounded in T */
static double keep_of(double p) { return (double)(p > 0 ? 1.0f - (float)p : 1.0f); }
static double dsc_of(pd_dtype dt, double keep) {
  return dt == PD_FLOAT64 ? 1.0 / keep : (double)(1.0f / (float)keep);
}

static pd_status gpu_attention_core(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const char *op = "attention_core";
  const pd_attention_core_args *a = (const pd_attention_core_args *)args;
  if (!have_launchers()) return pd_set_error(PD_ERR_UNIMPLEMENTED, "[%s] the CUDA library has no kernel for this op", op);
  const pd_dtype dt = a->q->dtype;
  if (dt != PD_FLOAT32 && dt != PD_FLOAT64) return pd_cu_unsupported(op, dt);
  pd_tensor *in[4] = {a->q, a->k, a->v, a->attn_mask}, *c[4];
  PD_TRY(pd_contiguous_all(in, c, 4));
  pd_att_geo g;
  pd_att_geom(c[0], c[1], c[2], c[3], a->num_heads, &g);
  const int64_t pairs = g.B * g.H, TT = g.Tq * g.Tk, nP = pairs * TT;
  const double p = a->dropout, keep = keep_of(p);
  pd_status s = PD_OK;
  if (p > 0 && nP > 0) { /* the CPU kernel's draws, from the same engine, uploaded */
    uint8_t *hm = (uint8_t *)malloc((size_t)nP);
    if (!hm) s = pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[%s] out of memory", op);
    if (s == PD_OK) {
      pd_dropout_mask(hm, nP, p, a->seed);
      s = pd_device_memcpy(pd_tensor_data(out[2]), pd_tensor_device(out[2]), hm, PD_CPU, (size_t)nP);
    }
    free(hm);
  } else if (out[2]->numel > 0) {
    const uint8_t one = 1;
    s = pd_device_memcpy(pd_tensor_data(out[2]), pd_tensor_device(out[2]), &one, PD_CPU, 1);
  }
  if (s == PD_OK && out[0]->numel > 0 && (g.Tk == 0 || nP == 0)) s = zero(out[0], op);
  if (s != PD_OK || nP == 0 || out[0]->numel == 0) {
    release_all(c, 4);
    return s;
  }
  const void *q = pd_tensor_data(c[0]), *k = pd_tensor_data(c[1]), *v = pd_tensor_data(c[2]);
  void *P = pd_tensor_data(out[1]), *o = pd_tensor_data(out[0]);
  /* S = Q_h K_h^T into probs [B, H, Tq, Tk] */
  s = bgemm(op, dt, 0, 1, g.Tq, g.Tk, g.hd, q, g.E, g.Tq * g.E, g.hd, k, g.E, g.Tk * g.E, g.hd, P, g.Tk, g.H * TT,
            TT, &g);
  if (s == PD_OK)
    s = pd_cu_status(NN->attn_softmax(dt, P, c[3] ? pd_tensor_data(c[3]) : NULL, g.B, g.H, g.Tq, g.Tk, g.Mb, g.Mh,
                                      a->scale),
                     op);
  pd_tensor *D = NULL;
  const void *A = P;
  if (s == PD_OK && p > 0) {
    s = pd_tensor_empty(dt, 1, &nP, &D);
    if (s == PD_OK)
      s = pd_cu_status(NN->attn_dropout(dt, P, pd_tensor_data(out[2]), pd_tensor_data(D), nP, keep), op);
    if (s == PD_OK) A = pd_tensor_data(D);
  }
  /* out_h = dropout(P) V_h into its column block of out [B, Tq, Ev] */
  if (s == PD_OK)
    s = bgemm(op, dt, 0, 0, g.Tq, g.hdv, g.Tk, A, g.Tk, g.H * TT, TT, v, g.Ev, g.Tk * g.Ev, g.hdv, o, g.Ev,
              g.Tq * g.Ev, g.hdv, &g);
  if (D) pd_tensor_release(D);
  release_all(c, 4);
  return s;
}

static pd_status gpu_attention_core_grad(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const char *op = "attention_core_grad";
  const pd_attention_core_grad_args *a = (const pd_attention_core_grad_args *)args;
  if (!have_launchers()) return pd_set_error(PD_ERR_UNIMPLEMENTED, "[%s] the CUDA library has no kernel for this op", op);
  const pd_dtype dt = a->q->dtype;
  if (dt != PD_FLOAT32 && dt != PD_FLOAT64) return pd_cu_unsupported(op, dt);
  const double p = a->dropout;
  if (p > 0 && a->mask->dtype != PD_UINT8) return pd_cu_unsupported("attention_core_grad (mask)", a->mask->dtype);
  pd_tensor *in[7] = {a->q, a->k, a->v, a->probs, p > 0 ? a->mask : NULL, a->dout, a->dprobs}, *c[7];
  PD_TRY(pd_contiguous_all(in, c, 7));
  pd_att_geo g;
  pd_att_geom(c[0], c[1], c[2], NULL, a->num_heads, &g);
  const int64_t pairs = g.B * g.H, TT = g.Tq * g.Tk, nP = pairs * TT;
  const double keep = keep_of(p), dsc = dsc_of(dt, keep);
  pd_status s = PD_OK;
  if (nP == 0) {
    for (int i = 0; i < 3 && s == PD_OK; i++) s = zero(out[i], op);
    release_all(c, 7);
    return s;
  }
  const void *q = pd_tensor_data(c[0]), *k = pd_tensor_data(c[1]), *v = pd_tensor_data(c[2]);
  const void *P = pd_tensor_data(c[3]), *dO = pd_tensor_data(c[5]);
  const void *m = c[4] ? pd_tensor_data(c[4]) : NULL, *dP = c[6] ? pd_tensor_data(c[6]) : NULL;
  void *dq = pd_tensor_data(out[0]), *dk = pd_tensor_data(out[1]), *dv = pd_tensor_data(out[2]);
  pd_tensor *D = NULL, *G = NULL;
  const void *A = P;
  s = pd_tensor_empty(dt, 1, &nP, &G);
  if (s == PD_OK && m) {
    s = pd_tensor_empty(dt, 1, &nP, &D);
    if (s == PD_OK) s = pd_cu_status(NN->attn_dropout(dt, P, m, pd_tensor_data(D), nP, keep), op);
    if (s == PD_OK) A = pd_tensor_data(D);
  }
  void *Gp = G ? pd_tensor_data(G) : NULL;
  /* dV_h = dropout(P)^T dO_h */
  if (s == PD_OK)
    s = bgemm(op, dt, 1, 0, g.Tk, g.hdv, g.Tq, A, g.Tk, g.H * TT, TT, dO, g.Ev, g.Tq * g.Ev, g.hdv, dv, g.Ev,
              g.Tk * g.Ev, g.hdv, &g);
  /* G = dO_h V_h^T (the gradient of dropout(P)) */
  if (s == PD_OK)
    s = bgemm(op, dt, 0, 1, g.Tq, g.Tk, g.hdv, dO, g.Ev, g.Tq * g.Ev, g.hdv, v, g.Ev, g.Tk * g.Ev, g.hdv, Gp, g.Tk,
              g.H * TT, TT, &g);
  if (s == PD_OK)
    s = pd_cu_status(NN->attn_softmax_grad(dt, Gp, P, m, dP, pairs * g.Tq, g.Tk, dsc, a->scale), op);
  /* dQ_h = dS K_h, dK_h = dS^T Q_h */
  if (s == PD_OK)
    s = bgemm(op, dt, 0, 0, g.Tq, g.hd, g.Tk, Gp, g.Tk, g.H * TT, TT, k, g.E, g.Tk * g.E, g.hd, dq, g.E, g.Tq * g.E,
              g.hd, &g);
  if (s == PD_OK)
    s = bgemm(op, dt, 1, 0, g.Tk, g.hd, g.Tq, Gp, g.Tk, g.H * TT, TT, q, g.E, g.Tq * g.E, g.hd, dk, g.E, g.Tk * g.E,
              g.hd, &g);
  if (D) pd_tensor_release(D);
  if (G) pd_tensor_release(G);
  release_all(c, 7);
  return s;
}

void pd_gpu_register_attn(void) {
  if (!have_launchers()) return;
  const unsigned f3264 = PD_DT_BIT(PD_FLOAT32) | PD_DT_BIT(PD_FLOAT64); /* the CPU kernel's dtypes */
  pd_gpu_register_mask("attention_core", f3264, gpu_attention_core);
  pd_gpu_register_mask("attention_core_grad", f3264, gpu_attention_core_grad);
}
