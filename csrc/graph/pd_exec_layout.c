/* Blocked activations between oneDNN ops in a predictor's plan (docs/arch/inference.md, "Blocked
 * activations in the predictor"). Only executors with pd_executor_set_layout(e, 1) (the C
 * inference API with IR optimisation and oneDNN on) build this; eager and static training never
 * see a blocked tensor.
 * At plan build every top-level instruction gets a kind: CONV (fused_conv2d: reads its input and
 * its residual in either layout, may write its output blocked), POOL (pool2d: likewise), INTERP
 * (interp_v2 / interp: likewise; nearest 2-D resizes blocked to blocked, the rest on a plain copy), ELEM (elementwise ops
 * whose inputs all have one shape and one layout compute the same flat loop in either layout),
 * META (shape, prior_box: read no data) or NONE (anything else: wants plain). A slot may hold a blocked value
 * only when every reader is layout-aware in the argument it reads (a convolution's input, not its
 * filter), nothing outside the top-level list reads it, and it is neither fed (unless the
 * executor's caller feeds blocked values: pd_executor_set_layout | 4; a blocked feed to a slot
 * that may not hold it is made plain as it is bound, pd_exec_layout_feed), fetched (unless the
 * executor's caller converts fetched values: pd_executor_set_layout 2), persistable nor
 * constant. At run time a CONV/POOL instruction is told (pd_layout_want) whether its output slot
 * may be blocked; the kernel decides (oneDNN took the geometry; channel counts
 * that do not fill whole blocks are padded, layout_dnnl.h) and tags the output. An ELEM instruction
 * passes its inputs' common layout on; inputs that disagree in shape or layout are made plain
 * first. Padded inputs reach an ELEM kernel as views of their whole storage ([N, ceil(C/b)*b, H,
 * W]); its output is seen as [N, C, H, W] again and, unless the op maps zeros to zeros, gets its
 * padding lanes zeroed (a convolution multiplies them by zero weights: they must stay finite). Whatever ends up blocked in a
 * slot that may not hold it is made plain at once, so the invariant "only allowed slots hold
 * blocked values" holds after every instruction. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pd_exec_internal.h"
#include "../ops/generated/pd_ops_gen.h"
#include "../kernels/cpu/layout_dnnl.h"
#include "../kernels/cpu/conv_dnnl.h"

enum { LK_NONE = 0, LK_CONV, LK_POOL, LK_ELEM, LK_META, LK_INTERP, LK_CONCAT, LK_READ };

static int kind_of(int op) {
  switch (op) {
  case PD_OP_FUSED_CONV2D: return LK_CONV;
  case PD_OP_POOL2D: return LK_POOL;
  case PD_OP_INTERP_V2: case PD_OP_INTERP: return LK_INTERP;
  case PD_OP_CONCAT: return LK_CONCAT; /* along the channels of 4-D values: block copies */
  case PD_OP_SHAPE: case PD_OP_PRIOR_BOX: return LK_META; /* prior_box reads its inputs' shapes only */
  case PD_OP_YOLO_BOX: return LK_READ; /* reads x in either layout, writes plain (vision_yolo.c) */
  case PD_OP_RELU: case PD_OP_LEAKY_RELU: case PD_OP_HARDSWISH: case PD_OP_HARDSIGMOID: case PD_OP_SIGMOID:
  case PD_OP_SILU: case PD_OP_TANH: case PD_OP_CLIP: case PD_OP_SCALE: case PD_OP_ELU: case PD_OP_GELU:
  case PD_OP_MISH: case PD_OP_EXP: case PD_OP_SQRT: case PD_OP_ABS: case PD_OP_ADD: case PD_OP_SUBTRACT:
  case PD_OP_MULTIPLY: case PD_OP_DIVIDE: case PD_OP_MAXIMUM: case PD_OP_MINIMUM:
  case PD_OP_FUSED_ELEMENTWISE_ADD:
    return LK_ELEM;
  default: return LK_NONE;
  }
}

/* may binding b of an instruction of kind k read a blocked value? */
static int reads_blocked(int k, const pd_binding *b) {
  if (b->lod_of) return 0;
  switch (k) {
  case LK_CONV:
    return b->offset == offsetof(pd_fused_conv2d_args, input) || b->offset == offsetof(pd_fused_conv2d_args, residual_data);
  case LK_POOL: return b->offset == offsetof(pd_pool2d_args, x);
  case LK_INTERP: /* x (the size / scale tensors are never blocked); x leads both ops' args */
    _Static_assert(offsetof(pd_interp_v2_args, x) == offsetof(pd_interp_args, x), "interp args");
    return b->offset == offsetof(pd_interp_v2_args, x);
  case LK_CONCAT: return b->offset == offsetof(pd_concat_args, x);
  case LK_ELEM: case LK_META: return 1;
  case LK_READ: return b->offset == offsetof(pd_yolo_box_args, x);
  default: return 0;
  }
}

static void mark_reads(const pd_plan *p, const pd_instr *in, int k, unsigned char *ok) {
  for (int b = 0; b < in->n_bind; b++)
    if (!reads_blocked(k, &in->bind[b]))
      for (int j = 0; j < in->bind[b].n; j++)
        if (in->bind[b].slots[j] >= 0) ok[in->bind[b].slots[j]] = 0;
  for (int j = 0; j < in->n_ins; j++)
    if (in->ins[j] >= 0) ok[in->ins[j]] = 0;
  if (in->special) /* specials may also touch what they write */
    for (int j = 0; j < in->n_out; j++)
      if (in->out[j] >= 0) ok[in->out[j]] = 0;
  (void)p;
}

pd_status pd_plan_layout_build(pd_plan *p, int fetch_blocked, int feed_blocked) {
  const pd_instr_list *l = &p->lists[0];
  p->lay_kind = (unsigned char *)calloc((size_t)(l->n ? l->n : 1), 1);
  p->slot_blk = (unsigned char *)calloc((size_t)(p->n_slots ? p->n_slots : 1), 1);
  p->wcache = (pd_conv_wcache **)calloc((size_t)(l->n ? l->n : 1), sizeof(pd_conv_wcache *));
  p->n_wcache = p->wcache ? l->n : 0;
  p->wshare = (unsigned char *)calloc((size_t)(l->n ? l->n : 1), 1);
  if (!p->lay_kind || !p->slot_blk || !p->wcache || !p->wshare) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory compiling a program");
  for (int s = 0; s < p->n_slots; s++) p->slot_blk[s] = !p->slot_persist[s] && !p->slot_const[s] && p->alias[s] < 0;
  /* a fed value stays blocked only for a caller that feeds blocked values on purpose
   * (pd_executor_set_layout | 4: the predictor's micro-batch tail) and where every reader takes it */
  for (int i = 0; !feed_blocked && i < p->n_feed; i++)
    if (p->feed_slots[i] >= 0) p->slot_blk[p->feed_slots[i]] = 0;
  /* a fetched value stays blocked only for a caller that converts it (pd_executor_set_layout 2: the
   * C API's output handles reorder it straight into the caller's buffer, one pass instead of a
   * reorder here and a copy there) */
  for (int i = 0; !fetch_blocked && i < p->n_fetch; i++)
    if (p->fetch_slots[i] >= 0) p->slot_blk[p->fetch_slots[i]] = 0;
  for (int i = 0; i < l->n; i++) {
    const pd_instr *in = &l->v[i];
    p->lay_kind[i] = in->special ? LK_NONE : (unsigned char)kind_of(in->op);
    mark_reads(p, in, p->lay_kind[i], p->slot_blk);
    if (p->lay_kind[i] == LK_CONV)
      for (int b = 0; b < in->n_bind; b++)
        if (in->bind[b].offset == offsetof(pd_fused_conv2d_args, filter) && !in->bind[b].is_list && in->bind[b].n == 1 &&
            in->bind[b].slots[0] >= 0)
          p->wshare[i] = p->slot_persist[in->bind[b].slots[0]] != 0;
  }
  for (int li = 1; li < p->n_lists; li++)
    for (int i = 0; i < p->lists[li].n; i++) {
      const pd_instr *in = &p->lists[li].v[i];
      mark_reads(p, in, LK_NONE, p->slot_blk);
      for (int j = 0; j < in->n_out; j++)
        if (in->out[j] >= 0) p->slot_blk[in->out[j]] = 0;
    }
  const char *env = getenv("PADDLE_C_INFER_LAYOUT");
  p->layout_on = env && !strcmp(env, "trace") ? 2 : 1;
  return PD_OK;
}

pd_status pd_exec_layout_feed(const pd_plan *p, int slot, pd_tensor **t) {
  if (!(*t)->layout || (p->slot_blk && p->slot_blk[slot])) return PD_OK;
  pd_tensor *pl;
  PD_TRY(pd_layout_to_plain(*t, &pl));
  pd_tensor_release(*t);
  *t = pl;
  return PD_OK;
}

int pd_plan_layout_writes_blocked(const pd_plan *p, int instr) {
  if (!p->lay_kind || instr < 0 || instr >= p->lists[0].n) return 0;
  const int k = p->lay_kind[instr];
  return k == LK_CONV || k == LK_POOL || k == LK_INTERP || k == LK_ELEM || k == LK_CONCAT;
}

void pd_plan_layout_free(pd_plan *p) {
  for (int i = 0; p->wcache && i < p->n_wcache; i++) pd_conv_wcache_free(p->wcache[i]);
  free(p->wcache);
  free(p->wshare);
  free(p->lay_kind);
  free(p->slot_blk);
  p->wcache = NULL;
  p->wshare = NULL;
  p->lay_kind = p->slot_blk = NULL;
}

/* an ELEM instruction on padded inputs (layout_dnnl.h): the channel count C of its inputs while it
 * runs (0: none), and the views of their padded storage its kernel reads */
static _Thread_local int64_t el_pad;
static _Thread_local pd_tensor *el_views[8];
static _Thread_local int el_nviews;

void pd_exec_layout_done(void) {
  pd_layout_want = 0;
  pd_conv_wcache_cur = NULL;
  pd_conv_wstore_on = 0;
  for (int j = 0; j < el_nviews; j++) pd_tensor_release(el_views[j]);
  el_nviews = 0;
}

/* the value in slot s made plain in place */
static pd_status plain_slot(pd_exec *r, int s) {
  pd_value *v = r->bound[s];
  if (!v || !v->t || !v->t->layout) return PD_OK;
  pd_tensor *t;
  PD_TRY(pd_layout_to_plain(v->t, &t));
  pd_value_set(v, t);
  return PD_OK;
}

static int same_shape(const pd_tensor *a, const pd_tensor *b) {
  return a->ndim == b->ndim && !memcmp(a->shape, b->shape, sizeof(int64_t) * (size_t)a->ndim);
}

/* multiply's channel-scale case (squeeze-and-excitation): blocked x [N, C, H, W] times a plain
 * [N or 1, C, 1, 1] scale, computed here on the blocks (the op's kernel would broadcast in plain
 * order) */
static _Thread_local pd_tensor *cm_x, *cm_s;
static int chan_scale(const pd_tensor *x, const pd_tensor *s) {
  return x->layout && !s->layout && x->dtype == PD_FLOAT32 && s->dtype == PD_FLOAT32 && s->ndim == 4 && x->ndim == 4 &&
         (s->shape[0] == x->shape[0] || s->shape[0] == 1) && s->shape[1] == x->shape[1] && s->shape[2] == 1 &&
         s->shape[3] == 1 && pd_tensor_is_contiguous(s) && s->offset == 0;
}

/* the float32 [N, C, H, W] output of an instruction computed here on the blocks: the memory plan's
 * buffer (pre[0]) when it fits, else a new tensor; its storage grown for padded channel blocks */
static pd_status blocked_out(pd_tensor *const *pre, const int64_t *shape, int blk, pd_tensor **o) {
  pd_tensor *out;
  if (pre && pre[0] && pre[0]->dtype == PD_FLOAT32 && pre[0]->ndim == 4 &&
      !memcmp(pre[0]->shape, shape, 4 * sizeof(int64_t)) && pd_tensor_is_contiguous(pre[0]) && !pre[0]->offset) {
    out = pre[0];
    pd_tensor_retain(out);
  } else {
    PD_TRY(pd_tensor_empty(PD_FLOAT32, 4, shape, &out));
  }
  pd_status rs = pd_layout_reserve(&out, blk); /* padded channels: a larger storage */
  if (rs != PD_OK) {
    pd_tensor_release(out);
    return rs;
  }
  *o = out;
  return PD_OK;
}

pd_status pd_exec_layout_chanmul(pd_tensor *const *pre, pd_tensor **o, int *n) {
  pd_tensor *x = cm_x, *sc = cm_s, *out;
  cm_x = cm_s = NULL;
  PD_TRY(blocked_out(pre, x->shape, x->layout, &out));
  const int64_t B = x->layout, N = x->shape[0], C = x->shape[1], HW = x->shape[2] * x->shape[3], CB = (C + B - 1) / B;
  const float *xd = (const float *)pd_tensor_data(x), *sd = (const float *)pd_tensor_data(sc);
  float *yd = (float *)pd_tensor_data(out);
  const int64_t sn = sc->shape[0] == 1 ? 0 : C;
  _Pragma("omp parallel for if (N * C * HW > 65536)")
  for (int64_t q = 0; q < N * CB; q++) {
    const int64_t nn = q / CB, cb = q % CB;
    const float *s0 = sd + nn * sn + cb * B;
    const float *xs = xd + q * HW * B;
    float *ys = yd + q * HW * B;
    float s[64]; /* B <= 16 here (NHWC mode's B = C may be larger: then C fills its one block) */
    const float *sp = s0;
    if (C - cb * B < B) { /* the padded last block: its padding lanes scaled by 0 */
      for (int64_t c = 0; c < B; c++) s[c] = cb * B + c < C ? s0[c] : 0.0f;
      sp = s;
    }
    if (B % 8 == 0 && B <= 64) { /* 8-lane vectors (the scale of a block held in registers) */
      typedef float v8 __attribute__((vector_size(32)));
      v8 sv[8], t;
      for (int64_t c = 0; c < B / 8; c++) memcpy(&sv[c], sp + 8 * c, sizeof(v8));
      for (int64_t i = 0; i < HW * B; i += B)
        for (int64_t c = 0; c < B / 8; c++) {
          memcpy(&t, xs + i + 8 * c, sizeof t);
          t *= sv[c];
          memcpy(ys + i + 8 * c, &t, sizeof t);
        }
    } else
      for (int64_t i = 0; i < HW; i++)
        for (int64_t c = 0; c < B; c++) ys[i * B + c] = xs[i * B + c] * sp[c];
  }
  out->layout = (int)B;
  o[0] = out;
  *n = 1;
  return PD_OK;
}

/* concat along the channels into a blocked output (pd_exec_layout_concat): the block, set by pre */
static _Thread_local int cc_blk;

/* may concat instruction in write its output blocked? float32 4-D inputs of one N, H, W joined
 * along axis 1, at least one of them blocked and every blocked one in the block the output's
 * channel count takes (padded or not), the output slot allowed to hold a blocked value; not in
 * NHWC mode (there each value's layout is its own channel count) */
static int concat_blocked(pd_exec *r, const pd_instr *in) {
  const pd_plan *p = r->p;
  const pd_concat_args *a = (const pd_concat_args *)in->args;
  cc_blk = 0;
  if (in->n_out < 1 || in->out[0] < 0 || !p->slot_blk[in->out[0]] || pd_layout_nhwc() || in->n_bind < 1 ||
      in->bind[0].offset != offsetof(pd_concat_args, x) || !in->bind[0].is_list || in->bind[0].n < 1)
    return 0;
  if (a->axis != 1 && a->axis != -3) return 0;
  const pd_binding *bd = &in->bind[0];
  const pd_tensor *t0 = NULL;
  int64_t C = 0;
  int blk = 0;
  for (int j = 0; j < bd->n; j++) {
    const int s = bd->slots[j];
    const pd_tensor *t = s >= 0 && r->bound[s] ? r->bound[s]->t : NULL;
    if (!t || t->dtype != PD_FLOAT32 || t->ndim != 4 || !pd_tensor_is_contiguous(t)) return 0;
    if (!t0) t0 = t;
    else if (t->shape[0] != t0->shape[0] || t->shape[2] != t0->shape[2] || t->shape[3] != t0->shape[3]) return 0;
    if (t->layout) {
      if (blk && t->layout != blk) return 0;
      blk = t->layout;
    }
    C += t->shape[1];
  }
  if (!blk || pd_layout_block_for(C, t0->shape[2] * t0->shape[3]) != blk) return 0;
  cc_blk = blk;
  return 1;
}

/* copies `len` channels (within one block of src and one of dst) of every pixel: from src's
 * channel lane sl (blocked, block sb) or plane (plain, sb = 0; src points at the first channel's
 * plane) to dst's lane dl (block b) */
static void copy_lanes(const float *src, int64_t sb, int64_t sl, float *dst, int64_t b, int64_t dl, int64_t len,
                       int64_t HW) {
  float *d = dst + dl;
  if (!sb) {
    for (int64_t c = 0; c < len; c++)
      for (int64_t i = 0; i < HW; i++) d[i * b + c] = src[c * HW + i];
    return;
  }
  const float *s = src + sl;
  if (len == b && sb == b) {
    memcpy(d, s, sizeof(float) * (size_t)(HW * b));
  } else if (len == 8) {
    for (int64_t i = 0; i < HW; i++) memcpy(d + i * b, s + i * sb, 8 * sizeof(float));
  } else {
    for (int64_t i = 0; i < HW; i++)
      for (int64_t c = 0; c < len; c++) d[i * b + c] = s[i * sb + c];
  }
}

pd_status pd_exec_layout_concat(const void *args, pd_tensor *const *pre, pd_tensor **o, int *n) {
  const pd_concat_args *a = (const pd_concat_args *)args;
  const int64_t B = cc_blk, nin = a->x.n;
  cc_blk = 0;
  const pd_tensor *t0 = a->x.data[0];
  int64_t C = 0;
  for (int64_t j = 0; j < nin; j++) C += a->x.data[j]->shape[1];
  const int64_t shape[4] = {t0->shape[0], C, t0->shape[2], t0->shape[3]};
  pd_tensor *out;
  PD_TRY(blocked_out(pre, shape, (int)B, &out));
  const int64_t N = shape[0], HW = shape[2] * shape[3], CB = (C + B - 1) / B;
  float *yd = (float *)pd_tensor_data(out);
  /* one task per (sample, input, output block the input reaches) */
  _Pragma("omp parallel for if (N * C * HW > 65536)")
  for (int64_t nn = 0; nn < N; nn++) {
    int64_t off = 0;
    for (int64_t j = 0; j < nin; j++) {
      const pd_tensor *t = a->x.data[j];
      const int64_t Cj = t->shape[1], sb = t->layout, CBj = sb ? (Cj + sb - 1) / sb : 0;
      const float *xd = (const float *)pd_tensor_data(t) + nn * (sb ? CBj * sb : Cj) * HW;
      for (int64_t c = 0; c < Cj;) {
        const int64_t dc = off + c; /* output channel */
        int64_t len = B - dc % B;   /* to the end of the output block */
        if (sb && sb - c % sb < len) len = sb - c % sb; /* and of the input's */
        if (Cj - c < len) len = Cj - c;
        const float *src = sb ? xd + (c / sb) * HW * sb : xd + c * HW;
        copy_lanes(src, sb, sb ? c % sb : 0, yd + (nn * CB + dc / B) * HW * B, B, dc % B, len, HW);
        c += len;
      }
      off += Cj;
    }
  }
  out->layout = (int)B;
  pd_layout_zero_pad(out);
  o[0] = out;
  *n = 1;
  return PD_OK;
}

/* ops whose output is 0 where every input is 0 (the padding lanes stay zero by themselves) */
static int keeps_zero(int op) {
  switch (op) {
  case PD_OP_RELU: case PD_OP_LEAKY_RELU: case PD_OP_HARDSWISH: case PD_OP_SILU: case PD_OP_TANH: case PD_OP_ELU:
  case PD_OP_GELU: case PD_OP_MISH: case PD_OP_SQRT: case PD_OP_ABS: case PD_OP_ADD: case PD_OP_SUBTRACT:
  case PD_OP_MULTIPLY: case PD_OP_MAXIMUM: case PD_OP_MINIMUM:
    return 1;
  default: return 0; /* sigmoid, hardsigmoid, exp, clip, scale (bias), divide (0/0), ... */
  }
}

/* a new tensor of t's storage and offset, contiguous, with channel count c */
static pd_status with_channels(const pd_tensor *t, int64_t c, pd_tensor **out) {
  int64_t shape[4] = {t->shape[0], c, t->shape[2], t->shape[3]}, strides[PD_MAX_DIMS];
  pd_contiguous_strides(4, shape, strides);
  return pd_tensor_from_storage(t->storage, t->dtype, 4, shape, strides, t->offset, out);
}

pd_status pd_exec_layout_bind(pd_exec *r, const pd_instr *in) {
  if (!el_pad) return PD_OK;
  const pd_plan *p = r->p;
  for (int b = 0; b < in->n_bind; b++) {
    const pd_binding *bd = &in->bind[b];
    if (bd->lod_of || bd->is_list) continue;
    pd_tensor **f = (pd_tensor **)((char *)p->work + bd->offset);
    if (!*f || !pd_layout_padded(*f)) continue;
    if (el_nviews == (int)(sizeof el_views / sizeof el_views[0]))
      return pd_set_error(PD_ERR_FATAL, "executor: too many padded blocked inputs");
    pd_tensor *v;
    PD_TRY(with_channels(*f, pd_layout_cpad((*f)->shape[1], (*f)->layout), &v));
    v->layout = (*f)->layout;
    el_views[el_nviews++] = v;
    *f = v;
  }
  return PD_OK;
}

pd_status pd_exec_layout_pre(pd_exec *r, int i, const pd_instr *in, int *elem_layout) {
  const pd_plan *p = r->p;
  const int k = p->lay_kind[i];
  *elem_layout = 0;
  pd_layout_want = 0;
  el_pad = 0;
  if (k == LK_META || k == LK_READ) return PD_OK; /* LK_READ: its other inputs are never blocked (reads_blocked) */
  if (k == LK_CONV || k == LK_POOL || k == LK_INTERP) {
    pd_layout_want = in->n_out > 0 && in->out[0] >= 0 && p->slot_blk[in->out[0]];
    if (k == LK_CONV) {
      pd_conv_wcache_cur = &p->wcache[i];
      pd_conv_wstore_on = p->wshare[i];
    }
    /* the filter / bias never hold blocked values (reads_blocked) */
    return PD_OK;
  }
  if (k == LK_CONCAT && concat_blocked(r, in)) {
    *elem_layout = -2; /* pd_exec_layout_concat instead of the kernel */
    return PD_OK;
  }
  const pd_tensor *first = NULL;
  int agree = k == LK_ELEM, any = 0;
  for (int b = 0; b < in->n_bind; b++)
    for (int j = 0; j < in->bind[b].n; j++) {
      int s = in->bind[b].slots[j];
      const pd_tensor *t = s >= 0 && r->bound[s] ? r->bound[s]->t : NULL;
      if (!t) continue;
      if (t->layout) any = 1;
      if (!first) first = t;
      else if (t->layout != first->layout || !same_shape(t, first)) agree = 0;
    }
  if (!any) return PD_OK;
  if (in->op == PD_OP_MULTIPLY && in->n_bind >= 2 && in->bind[0].n == 1 && in->bind[1].n == 1 &&
      in->bind[0].slots[0] >= 0 && in->bind[1].slots[0] >= 0) {
    pd_tensor *a = r->bound[in->bind[0].slots[0]]->t, *b = r->bound[in->bind[1].slots[0]]->t;
    if (a && b && (chan_scale(a, b) || chan_scale(b, a))) {
      cm_x = a->layout ? a : b;
      cm_s = a->layout ? b : a;
      *elem_layout = -1;
      return PD_OK;
    }
  }
  if (agree) {
    *elem_layout = first->layout;
    if (pd_layout_padded(first)) el_pad = first->shape[1];
    return PD_OK;
  }
  for (int b = 0; b < in->n_bind; b++)
    for (int j = 0; j < in->bind[b].n; j++)
      if (in->bind[b].slots[j] >= 0) PD_TRY(plain_slot(r, in->bind[b].slots[j]));
  return PD_OK;
}

pd_status pd_exec_layout_post(pd_exec *r, int i, const pd_instr *in, int elem_layout, pd_tensor **o, int n) {
  const pd_plan *p = r->p;
  const int k = p->lay_kind[i];
  const int64_t pad_c = el_pad;
  el_pad = 0;
  for (int j = 0; j < n; j++) {
    if (!o[j]) continue;
    if (k == LK_ELEM && elem_layout > 0 && pad_c) {
      /* the kernel ran on the padded views: its output is the padded storage of [N, C, H, W] */
      if (o[j]->ndim != 4 || o[j]->dtype != PD_FLOAT32 || o[j]->shape[1] != pd_layout_cpad(pad_c, elem_layout) ||
          !pd_tensor_is_contiguous(o[j]))
        return pd_set_error(PD_ERR_FATAL, "[%s] internal: unexpected output of a padded blocked elementwise op",
                            pd_op_defs[in->op].name);
      pd_tensor *v;
      PD_TRY(with_channels(o[j], pad_c, &v));
      pd_tensor_release(o[j]);
      o[j] = v;
      v->layout = elem_layout;
      if (!keeps_zero(in->op)) pd_layout_zero_pad(v);
    } else if (k == LK_ELEM) {
      if (elem_layout >= 0) o[j]->layout = elem_layout; /* -1: chanmul tagged it */
    } else if (k == LK_CONCAT) {
      if (elem_layout != -2) o[j]->layout = 0; /* -2: pd_exec_layout_concat tagged it */
    } else if (k != LK_CONV && k != LK_POOL && k != LK_INTERP) {
      o[j]->layout = 0;
    }
    int force = 0;
    if (o[j]->layout && o[j]->ndim == 4 && o[j]->shape[2] * o[j]->shape[3] == 1) {
      if (pd_layout_padded(o[j])) force = 1; /* padded [N, C, 1, 1]: every consumer reads it plain */
      else o[j]->layout = 0;                 /* [N, C, 1, 1]: the same bytes in both layouts */
    }
    int s = j < in->n_out ? in->out[j] : -1;
    if (p->layout_on == 2)
      fprintf(stderr, "[layout] %s -> %s: %s%s%s\n", pd_op_defs[in->op].name,
              s >= 0 && p->slot_name[s] ? p->slot_name[s] : "(temporary)",
              o[j]->layout ? (pd_layout_padded(o[j]) ? "blocked padded" : "blocked") : "plain",
              o[j]->layout && (force || !(s >= 0 && p->slot_blk[s])) ? " (made plain)" : "",
              pd_layout_pad_clean(o[j]) ? "" : " (padding not zero)");
    if (!o[j]->layout) continue;
    if (!force && s >= 0 && p->slot_blk[s]) continue;
    pd_tensor *t;
    PD_TRY(pd_layout_to_plain(o[j], &t));
    pd_tensor_release(o[j]);
    o[j] = t;
  }
  return PD_OK;
}
