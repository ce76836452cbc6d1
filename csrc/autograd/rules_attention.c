/* Backward rule of the fused attention core (ops/attention.yaml). Plain backward (no create_graph,
 * no gradient for attn_mask): the fused attention_core_grad op (csrc/kernels/cpu/attention.c), from
 * the saved probs and dropout mask. Otherwise the composed path: the same formulas as forward ops
 * (heads as reshape + transpose views, matmul, softmax recomputed from q and k so that every term
 * stays differentiable, the saved keep mask as a constant), so create_graph records them and the
 * mask gets its gradient (summed over its broadcast dims). */
#include <stdlib.h>
#include "pd_autograd.h"
#include "../ops/generated/pd_ops_gen.h"

pd_status pd_bw_attention_core(pd_node *n, pd_tensor **gout, pd_tensor **gin);

#define NEEDS(n, i) ((n)->n_edges > (i) && ((n)->edges[i].node || (n)->edges[i].leaf))
#define NT 48
typedef struct {
  pd_tensor *T[NT];
  int k;
} tmps;

static pd_status run(tmps *t, int op, const void *args, pd_tensor **out) {
  if (t->k == NT) return pd_set_error(PD_ERR_FATAL, "[attention_core backward] too many temporaries");
  pd_tensor **o = &t->T[t->k++];
  PD_TRY(pd_bw_run1(op, args, o));
  *out = *o;
  return PD_OK;
}
static pd_status bin(tmps *t, int op, pd_tensor *x, pd_tensor *y, pd_tensor **out) {
  pd_multiply_args a = {x, y};
  return run(t, op, &a, out);
}
static pd_status scal(tmps *t, pd_tensor *x, double v, pd_tensor **out) {
  if (t->k == NT) return pd_set_error(PD_ERR_FATAL, "[attention_core backward] too many temporaries");
  pd_tensor **o = &t->T[t->k++], *s = NULL;
  PD_TRY(pd_bw_scalar(v, x, o));
  s = *o;
  return bin(t, PD_OP_MULTIPLY, x, s, out);
}
static pd_status mm(tmps *t, pd_tensor *x, pd_tensor *y, int tx, int ty, pd_tensor **out) {
  pd_matmul_args a = {x, y, tx, ty};
  return run(t, PD_OP_MATMUL, &a, out);
}
/* [B, T, H*d] -> [B, H, T, d] (0 keeps a dim: unknown batch/length in a program) */
static pd_status heads(tmps *t, pd_tensor *x, int64_t H, pd_tensor **out) {
  int64_t sh[4] = {0, 0, H, x->shape[2] >= 0 ? x->shape[2] / H : -1};
  pd_reshape_args r = {x, {sh, 4}};
  pd_tensor *y = NULL;
  PD_TRY(run(t, PD_OP_RESHAPE, &r, &y));
  int64_t perm[4] = {0, 2, 1, 3};
  pd_transpose_args tr = {.x = y, .perm = {perm, 4}};
  return run(t, PD_OP_TRANSPOSE, &tr, out);
}
/* [B, H, T, d] -> [B, T, H*d] */
static pd_status merge(tmps *t, pd_tensor *x, pd_tensor **out) {
  int64_t perm[4] = {0, 2, 1, 3};
  pd_transpose_args tr = {.x = x, .perm = {perm, 4}};
  pd_tensor *y = NULL;
  PD_TRY(run(t, PD_OP_TRANSPOSE, &tr, &y));
  int64_t sh[3] = {0, 0, -1};
  pd_reshape_args r = {y, {sh, 3}};
  return run(t, PD_OP_RESHAPE, &r, out);
}
/* hands the temporary r to *gin */
static void give(tmps *t, pd_tensor *r, pd_tensor **gin) {
  for (int i = 0; i < t->k; i++)
    if (t->T[i] == r) {
      t->T[i] = NULL;
      *gin = r;
      return;
    }
  pd_tensor_retain(r);
  *gin = r;
}

static pd_status composed(pd_node *n, const pd_attention_core_args *a, pd_tensor *q, pd_tensor *k, pd_tensor *v,
                          pd_tensor *amask, pd_tensor *keep, pd_tensor *g, pd_tensor *gp, pd_tensor **gin) {
  tmps t = {{0}, 0};
  pd_status st;
  const int64_t H = a->num_heads;
  pd_tensor *Qh = NULL, *Kh = NULL, *Vh = NULL, *S = NULL, *P = NULL, *Pd = NULL, *Mf = NULL, *dVh = NULL, *G = NULL,
            *GP = NULL, *s = NULL, *dS = NULL, *dS2 = NULL, *r = NULL;
  if ((st = heads(&t, q, H, &Qh)) != PD_OK) goto done;
  if ((st = heads(&t, k, H, &Kh)) != PD_OK) goto done;
  if ((st = heads(&t, v, H, &Vh)) != PD_OK) goto done;
  if ((st = mm(&t, Qh, Kh, 0, 1, &S)) != PD_OK) goto done;
  if ((st = scal(&t, S, a->scale, &S)) != PD_OK) goto done;
  if (amask && (st = bin(&t, PD_OP_ADD, S, amask, &S)) != PD_OK) goto done;
  pd_softmax_args sa = {S, -1};
  if ((st = run(&t, PD_OP_SOFTMAX, &sa, &P)) != PD_OK) goto done;
  Pd = P;
  if (a->dropout > 0) {
    pd_cast_args ca = {keep, (int)q->dtype};
    if ((st = run(&t, PD_OP_CAST, &ca, &Mf)) != PD_OK) goto done;
    if ((st = scal(&t, Mf, 1.0 / (double)(1.0f - (float)a->dropout), &Mf)) != PD_OK) goto done;
    if ((st = bin(&t, PD_OP_MULTIPLY, P, Mf, &Pd)) != PD_OK) goto done;
  }
  pd_tensor *dOh = NULL;
  if (g && (st = heads(&t, g, H, &dOh)) != PD_OK) goto done;
  if (NEEDS(n, 2) && dOh) {
    if ((st = mm(&t, Pd, dOh, 1, 0, &dVh)) != PD_OK) goto done;
    if ((st = merge(&t, dVh, &r)) != PD_OK) goto done;
    give(&t, r, &gin[2]);
  }
  if (!NEEDS(n, 0) && !NEEDS(n, 1) && !NEEDS(n, 3)) goto done;
  G = NULL;
  if (dOh) {
    if ((st = mm(&t, dOh, Vh, 0, 1, &G)) != PD_OK) goto done;
    if (Mf && (st = bin(&t, PD_OP_MULTIPLY, G, Mf, &G)) != PD_OK) goto done;
  }
  if (gp) {
    if (G) {
      if ((st = bin(&t, PD_OP_ADD, G, gp, &G)) != PD_OK) goto done;
    } else {
      G = gp;
    }
  }
  if (!G) goto done;
  if ((st = bin(&t, PD_OP_MULTIPLY, G, P, &GP)) != PD_OK) goto done;
  int64_t last = -1;
  pd_sum_args su = {.x = GP, .axis = {&last, 1}, .keepdim = 1, .dtype = -1};
  if ((st = run(&t, PD_OP_SUM, &su, &s)) != PD_OK) goto done;
  if ((st = bin(&t, PD_OP_SUBTRACT, G, s, &dS)) != PD_OK) goto done;
  if ((st = bin(&t, PD_OP_MULTIPLY, P, dS, &dS)) != PD_OK) goto done;
  if (NEEDS(n, 3) && amask) {
    if (t.k == NT) { st = pd_set_error(PD_ERR_FATAL, "[attention_core backward] too many temporaries"); goto done; }
    pd_tensor **o = &t.T[t.k++];
    if ((st = pd_bw_unbroadcast(dS, amask, o)) != PD_OK) goto done;
    give(&t, *o, &gin[3]);
  }
  if ((st = scal(&t, dS, a->scale, &dS2)) != PD_OK) goto done;
  if (NEEDS(n, 0)) {
    pd_tensor *dQh = NULL;
    if ((st = mm(&t, dS2, Kh, 0, 0, &dQh)) != PD_OK) goto done;
    if ((st = merge(&t, dQh, &r)) != PD_OK) goto done;
    give(&t, r, &gin[0]);
  }
  if (NEEDS(n, 1)) {
    pd_tensor *dKh = NULL;
    if ((st = mm(&t, dS2, Qh, 1, 0, &dKh)) != PD_OK) goto done;
    if ((st = merge(&t, dKh, &r)) != PD_OK) goto done;
    give(&t, r, &gin[1]);
  }
done:
  for (int i = 0; i < t.k; i++)
    if (t.T[i]) pd_tensor_release(t.T[i]);
  return st;
}

pd_status pd_bw_attention_core(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  const pd_attention_core_args *a = (const pd_attention_core_args *)n->args;
  if (!gout[0] && !gout[1]) return PD_OK;
  if (!NEEDS(n, 0) && !NEEDS(n, 1) && !NEEDS(n, 2) && !NEEDS(n, 3)) return PD_OK;
  pd_tensor *q = NULL, *k = NULL, *v = NULL, *amask, *probs = NULL, *keep = NULL;
  PD_TRY(pd_node_saved(n, 0, &q));
  PD_TRY(pd_node_saved(n, 1, &k));
  PD_TRY(pd_node_saved(n, 2, &v));
  amask = NULL;
  if (n->n_saved > 3 && n->saved[3]) PD_TRY(pd_node_saved(n, 3, &amask));
  PD_TRY(pd_node_saved(n, 4, &probs));
  PD_TRY(pd_node_saved(n, 5, &keep));
  if (pd_grad_enabled() || (amask && NEEDS(n, 3)) || !gout[0])
    return composed(n, a, q, k, v, amask, keep, gout[0], gout[1], gin);
  pd_attention_core_grad_args b = {.q = q, .k = k, .v = v, .probs = probs, .mask = keep, .dout = gout[0],
                                  .num_heads = a->num_heads, .scale = a->scale, .dropout = a->dropout,
                                  .dprobs = gout[1]};
  pd_tensor **o = NULL;
  int no = 0;
  PD_TRY(pd_op_run(PD_OP_ATTENTION_CORE_GRAD, &b, &o, &no));
  for (int i = 0; i < no; i++) {
    if (i < 3 && NEEDS(n, i)) gin[i] = o[i];
    else pd_tensor_release(o[i]);
  }
  free(o);
  return PD_OK;
}
