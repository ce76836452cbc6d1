/* Shape rules of the fused attention core (ops/attention.yaml). q [B, Tq, E], k [B, Tk, E],
 * v [B, Tk, Ev], E and Ev multiples of num_heads, attn_mask (optional, q's dtype) [Mb, Mh, Tq, Tk]
 * with Mb in {1, B} and Mh in {1, num_heads}. Unknown dims (-1, static programs) pass. */
#include "generated/pd_ops_gen.h"

#define BAD(...) pd_set_error(PD_ERR_INVALID_ARGUMENT, __VA_ARGS__)

static int same(int64_t a, int64_t b) { return a < 0 || b < 0 || a == b; }

static pd_status check(const char *op, const pd_tensor *q, const pd_tensor *k, const pd_tensor *v,
                       const pd_tensor *mask, int64_t H, double dropout) {
  if (q->dtype != PD_FLOAT32 && q->dtype != PD_FLOAT64 && q->dtype != PD_BFLOAT16)
    return pd_set_error(PD_ERR_TYPE, "[%s] expected q to be float32, float64 or bfloat16, received %s", op,
                        pd_dtype_name(q->dtype));
  if (k->dtype != q->dtype || v->dtype != q->dtype || (mask && mask->dtype != q->dtype))
    return pd_set_error(PD_ERR_TYPE, "[%s] expected q, k, v (and attn_mask) of one dtype", op);
  if (q->ndim != 3 || k->ndim != 3 || v->ndim != 3)
    return BAD("[%s] expected q, k, v to be 3-D [batch, length, embed], received %d-D, %d-D, %d-D", op, q->ndim,
               k->ndim, v->ndim);
  if (H <= 0) return BAD("[%s] expected num_heads > 0, received %lld", op, (long long)H);
  if (!same(q->shape[0], k->shape[0]) || !same(q->shape[0], v->shape[0]) || !same(k->shape[1], v->shape[1]) ||
      !same(q->shape[2], k->shape[2]))
    return BAD("[%s] expected q [B, Tq, E], k [B, Tk, E], v [B, Tk, Ev], received [%lld, %lld, %lld], [%lld, %lld, "
               "%lld], [%lld, %lld, %lld]", op, (long long)q->shape[0], (long long)q->shape[1],
               (long long)q->shape[2], (long long)k->shape[0], (long long)k->shape[1], (long long)k->shape[2],
               (long long)v->shape[0], (long long)v->shape[1], (long long)v->shape[2]);
  if ((q->shape[2] >= 0 && q->shape[2] < H) || (v->shape[2] >= 0 && v->shape[2] < H))
    return BAD("[%s] expected the embed dims (%lld, %lld) to be at least num_heads %lld", op,
               (long long)q->shape[2], (long long)v->shape[2], (long long)H);
  if ((q->shape[2] >= 0 && q->shape[2] % H) || (v->shape[2] >= 0 && v->shape[2] % H))
    return BAD("[%s] expected the embed dims (%lld, %lld) to be multiples of num_heads %lld", op,
               (long long)q->shape[2], (long long)v->shape[2], (long long)H);
  if (mask) {
    if (mask->ndim != 4 || !(mask->shape[0] == 1 || same(mask->shape[0], q->shape[0])) ||
        !(mask->shape[1] == 1 || same(mask->shape[1], H)) || !same(mask->shape[2], q->shape[1]) ||
        !same(mask->shape[3], k->shape[1]))
      return BAD("[%s] expected attn_mask [1 or batch, 1 or num_heads, Tq, Tk]", op);
  }
  if (!(dropout >= 0.0 && dropout < 1.0)) return BAD("[%s] expected 0 <= dropout < 1, received %g", op, dropout);
  return PD_OK;
}

pd_status pd_infer_attention_core(const void *args, pd_meta_list *out) {
  const pd_attention_core_args *a = (const pd_attention_core_args *)args;
  PD_TRY(check("attention_core", a->q, a->k, a->v, a->attn_mask, a->num_heads, a->dropout));
  pd_meta *m = pd_meta_list_resize(out, 3);
  if (!m) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  int64_t os[3] = {a->q->shape[0], a->q->shape[1], a->v->shape[2]};
  int64_t ps[4] = {a->q->shape[0], a->num_heads, a->q->shape[1], a->k->shape[1]}, one = 1;
  pd_meta_set(&m[0], a->q->dtype, 3, os);
  pd_meta_set(&m[1], a->q->dtype, 4, ps);
  if (a->dropout > 0) pd_meta_set(&m[2], PD_UINT8, 4, ps);
  else pd_meta_set(&m[2], PD_UINT8, 1, &one);
  return PD_OK;
}

pd_status pd_infer_attention_core_grad(const void *args, pd_meta_list *out) {
  const pd_attention_core_grad_args *a = (const pd_attention_core_grad_args *)args;
  PD_TRY(check("attention_core_grad", a->q, a->k, a->v, NULL, a->num_heads, a->dropout));
  const pd_tensor *p = a->probs;
  if (p->ndim != 4 || !same(p->shape[0], a->q->shape[0]) || !same(p->shape[1], a->num_heads) ||
      !same(p->shape[2], a->q->shape[1]) || !same(p->shape[3], a->k->shape[1]) || p->dtype != a->q->dtype)
    return BAD("[attention_core_grad] expected probs [B, num_heads, Tq, Tk] of q's dtype");
  if (a->dropout > 0 && (a->mask->dtype != PD_UINT8 || a->mask->ndim != 4 || a->mask->numel != p->numel))
    return BAD("[attention_core_grad] expected a uint8 mask of probs' shape");
  if (a->dout->ndim != 3 || !same(a->dout->shape[0], a->q->shape[0]) || !same(a->dout->shape[1], a->q->shape[1]) ||
      !same(a->dout->shape[2], a->v->shape[2]) || a->dout->dtype != a->q->dtype)
    return BAD("[attention_core_grad] expected dout [B, Tq, Ev] of q's dtype");
  if (a->dprobs && (a->dprobs->ndim != 4 || a->dprobs->numel != p->numel || a->dprobs->dtype != p->dtype))
    return BAD("[attention_core_grad] expected dprobs of probs' shape and dtype");
  pd_meta *m = pd_meta_list_resize(out, 3);
  if (!m) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  pd_meta_like(&m[0], a->q);
  pd_meta_like(&m[1], a->k);
  pd_meta_like(&m[2], a->v);
  return PD_OK;
}
