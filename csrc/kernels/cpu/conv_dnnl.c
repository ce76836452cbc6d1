/* float32 convolution through oneDNN (forward + fused bias, backward-data, backward-weights + bias
 * gradient) for 1-3 spatial dims, groups, dilations and asymmetric pads, NCHW or NHWC. Primitives
 * (and the reorders between the caller's plain layout and the layout the primitive wants) live in
 * an LRU cache keyed by the geometry; scratchpads and reorder buffers come from pd_alloc. */
#include "conv_dnnl.h"
#include <oneapi/dnnl/dnnl.h>
#include <omp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "../../core/pd_pool.h"
#include "../../core/pd_alloc.h"
#include "../../core/pd_hash.h"
#include "pd_gemm.h"
#include "layout_dnnl.h"
#include "../../core/pd_isa.h"
#include "conv_winograd.h"
#include "conv_wcache.h"

/* Layout given to the primitive for activations: the caller's plain layout (NCHW or NHWC), the
 * primitive's choice (format_tag any: nChw8c on AVX2) with reorders in and out, or NHWC. */
enum { F_PLAIN = 0, F_ANY = 1, F_NHWC = 2 };
#define CACHE_CAP 256 /* a primitive per (shape, thread count): the pool governor runs 1 or the configured count */

/* data types (ckey.dt): every buffer and the primitive float32; bfloat16 buffers and primitive
 * (training, f32 accumulation); the predictor's bfloat16 (float32 buffers, the primitive's src and
 * weights bfloat16 through the reorders in, its dst float32) */
enum { DT_F32 = 0, DT_BF16 = 1, DT_BF16_INFER = 2 };

typedef struct {
  int mode, fmt, nsp, nhwc, bias, dt;
  int infer, npost, post_alg[2], sum;
  int xblk, yblk; /* the caller's x / y are blocked (nChw<b>c, b = the value) instead of plain */
  int brg;        /* the primitive's x / y channels-last (brgconv), reordered from / to the caller's blocks */
  int nthr;       /* forward blocked / any-format primitives: the OpenMP threads when built (oneDNN's jit and
                   * brg kernels fix their work split then: one built while the pool governor ran one thread
                   * stayed on one); 0 elsewhere (see conv_dnnl_impl) */
  float post_a[2], post_b[2];
  int64_t N, C, O, G, in[3], out[3], k[3], s[3], pl[3], pr[3], d[3];
} ckey;

/* One tensor argument of the primitive. Slots: 0 x (src / diff_src), 1 w (weights / diff_weights),
 * 2 y (dst / diff_dst), 3 bias (bias / diff_bias). */
typedef struct {
  int used, arg, is_out;
  dnnl_memory_desc_t user, prim;   /* owned (oneDNN 3's descriptors are opaque handles) */
  dnnl_primitive_t reorder;         /* user -> prim (inputs) or prim -> user (outputs); NULL: same */
  dnnl_memory_desc_t reorder_scratch; /* NULL: the reorder needs none */
} cslot;

typedef struct centry {
  ckey key;
  uint64_t hash;
  struct centry *prev, *next;
  int refs, dead, ok;
  dnnl_primitive_t prim;
  dnnl_memory_desc_t scratch_md;   /* NULL: the primitive needs none */
  size_t scratch;                   /* max scratchpad over the primitive and its reorders */
  cslot slot[4];
} centry;

static dnnl_engine_t g_eng;
static int g_eng_ok;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static centry *g_head, *g_tail;

/* fork() (DataLoader workers) must not copy the cache's lock held by another thread (see
 * pd_alloc.c). Priority 103: registered after the allocator (101) and the profiler (102), so
 * this prepare step runs before theirs; what is taken while this lock is held (allocations,
 * profiler events) is taken after it at fork too. */
static void conv_prefork(void) { pthread_mutex_lock(&g_mu); }
static void conv_postfork(void) { pthread_mutex_unlock(&g_mu); }
__attribute__((constructor(103))) static void conv_atfork_init(void) {
  pthread_atfork(conv_prefork, conv_postfork, conv_postfork);
}
static int g_count;
static _Thread_local dnnl_stream_t t_stream;

static int g_env_fmt = -1; /* PADDLE_C_CONV_FMT (read once, like PADDLE_C_CONV_DNNL=0: im2col only) */

static void eng_init(void) {
  const char *e = getenv("PADDLE_C_CONV_FMT");
  if (e) g_env_fmt = !strcmp(e, "plain") ? F_PLAIN : !strcmp(e, "any") ? F_ANY : !strcmp(e, "nhwc") ? F_NHWC : -1;
  e = getenv("PADDLE_C_CONV_DNNL");
  g_eng_ok = !(e && !strcmp(e, "0")) && dnnl_engine_create(&g_eng, dnnl_cpu, 0) == dnnl_success;
}

/* PADDLE_C_CONV_FMT=plain|any|nhwc forces a layout. By default (measurements in
 * docs/performance_log.md): a 1x1 unpadded convolution is a plain GEMM on the caller's buffers (not
 * the strided forward on NCHW, which gathers), so is a channels-last depthwise convolution; the
 * data gradient into fewer than 8 channels stays plain (a blocked diff_src of 3 channels is slow);
 * everything else runs blocked (nChw8c) with reorders of the activations in and out. */
static int layout_mode(const pd_conv_geom *g, int mode, int uncached) {
  if (g_env_fmt >= 0) return g_env_fmt;
  int pointwise = 1, strided = 0, tiling = 1;
  for (int i = 0; i < 3; i++) {
    if (g->k[i] != 1 || g->pl[i] || g->pr[i]) pointwise = 0;
    if (g->s[i] != 1) strided = 1;
    if (g->k[i] != g->s[i] || g->pl[i] || g->pr[i] || g->d[i] != 1) tiling = 0;
  }
  /* a data gradient / transposed convolution whose windows tile the input (kernel = stride, no
   * padding: ppocrv3_det's 2x2 stride-2 head) is a GEMM plus a scatter without overlap: oneDNN's
   * plain GEMM kernel on the caller's NCHW took 7.4 ms where the blocked one and its reorders took
   * 12 ms ([16, 24, 80, 80] -> 24 channels, one thread); overlapping windows stay blocked (4x4
   * stride 2: 18 ms blocked vs 27 ms plain) */
  if (mode == 1 && tiling && !g->nhwc) return F_PLAIN;
  if (pointwise && (mode != 0 || !strided || g->nhwc)) return F_PLAIN;
  if (g->nhwc && g->C == g->G) return F_PLAIN;
  if (mode == 1 && g->C < 8) return F_PLAIN;
  /* a forward without the weight cache (eager, training, a predictor's unfused conv2d; the fused
   * convolutions of a predictor's layout plan keep their reordered weights) with few
   * output positions and a large filter, as ResNet-50's last stage at batch 1: the blocked path
   * reorders the whole filter on every call (9.4 MB for 512x512x3x3, ~0.85 ms here), which costs
   * more than oneDNN's GEMM convolution on the plain buffers loses. One thread, AVX-512 EPYC:
   * 512 -> 512 3x3 at 7x7 batch 1 1.41 vs 1.74 ms, 512 -> 512 3x3 stride 2 14 -> 7 1.18 vs 1.94,
   * 256 -> 256 stride 2 14 -> 7 0.39 vs 0.44, batch 4 at 7x7 5.44 vs 5.63; blocked stays ahead
   * with a small filter (128 -> 128 stride 2 at 28: 0.30 vs 0.37) or many positions (batch 16 at
   * 7x7 equal, the 7x7 stem 1.06 vs 1.68) */
  if (uncached && mode == 0 && !pointwise && !g->nhwc && g->G == 1) {
    int64_t pos = g->N, wsz = g->O * g->C;
    for (int i = 0; i < g->nsp; i++) {
      pos *= g->out[i];
      wsz *= g->k[i];
    }
    if (pos <= 256 && wsz >= (1 << 18)) return F_PLAIN;
  }
  return F_ANY;
}

/* Activation [N, ch, *sp]: mode 0 the caller's layout, 1 any, 2 channels-last. */
static int act_md(dnnl_memory_desc_t *md, const ckey *k, int64_t ch, const int64_t *sp, int mode, dnnl_data_type_t t) {
  dnnl_dims_t dims, st;
  int nd = 2 + k->nsp;
  dims[0] = k->N;
  dims[1] = ch;
  for (int i = 0; i < k->nsp; i++) dims[2 + i] = sp[i];
  /* 8, 16: nChw8c / nChw16c; ch (>= 8) in the predictor's NHWC mode: acdb (layout_dnnl.h) */
  if (mode == 1 || mode >= 8) {
    dnnl_format_tag_t tag = mode == 1 ? dnnl_format_tag_any
                            : mode == ch && pd_layout_nhwc() ? dnnl_nhwc
                            : mode == 8 ? dnnl_nChw8c
                                        : dnnl_nChw16c;
    return dnnl_memory_desc_create_with_tag(md, nd, dims, t, tag) == dnnl_success;
  }
  if (mode == 2 || k->nhwc) {
    int64_t s = ch;
    st[1] = 1;
    for (int i = nd - 1; i >= 2; i--) {
      st[i] = s;
      s *= dims[i];
    }
    st[0] = s;
  } else {
    int64_t s = 1;
    for (int i = nd - 1; i >= 0; i--) {
      st[i] = s;
      s *= dims[i];
    }
  }
  return dnnl_memory_desc_create_with_strides(md, nd, dims, t, st) == dnnl_success;
}

/* Weights [G, O/G, C/G, *k] (or [O, C, *k] without groups), plain row-major or any. */
static int wei_md(dnnl_memory_desc_t *md, const ckey *k, int any, dnnl_data_type_t t) {
  dnnl_dims_t dims, st;
  int nd = 0;
  if (k->G > 1) dims[nd++] = k->G;
  dims[nd++] = k->O / k->G;
  dims[nd++] = k->C / k->G;
  for (int i = 0; i < k->nsp; i++) dims[nd++] = k->k[i];
  if (any) return dnnl_memory_desc_create_with_tag(md, nd, dims, t, dnnl_format_tag_any) == dnnl_success;
  int64_t s = 1;
  for (int i = nd - 1; i >= 0; i--) {
    st[i] = s;
    s *= dims[i];
  }
  return dnnl_memory_desc_create_with_strides(md, nd, dims, t, st) == dnnl_success;
}

static dnnl_primitive_attr_t user_scratch_attr(void) {
  dnnl_primitive_attr_t a = NULL;
  if (dnnl_primitive_attr_create(&a) != dnnl_success) return NULL;
  dnnl_primitive_attr_set_scratchpad_mode(a, dnnl_scratchpad_mode_user);
  return a;
}

/* an owned copy of a primitive descriptor's memory descriptor; NULL where the query answers none
 * (or a zero descriptor: the argument is not needed) */
static dnnl_memory_desc_t md_keep(const_dnnl_memory_desc_t q) {
  int nd = 0;
  dnnl_memory_desc_t md = NULL;
  if (!q || dnnl_memory_desc_query(q, dnnl_query_ndims_s32, &nd) != dnnl_success || nd == 0) return NULL;
  if (dnnl_memory_desc_clone(&md, q) != dnnl_success) return NULL;
  return md;
}
static size_t md_size(const_dnnl_memory_desc_t md) { return md ? dnnl_memory_desc_get_size(md) : 0; }

static size_t scratch_of(dnnl_primitive_desc_t pd, dnnl_memory_desc_t *md) {
  *md = md_keep(dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0));
  return md_size(*md);
}

static int make_reorder(cslot *s, dnnl_primitive_attr_t attr, size_t *scratch) {
  if (dnnl_memory_desc_equal(s->user, s->prim)) return 1;
  dnnl_primitive_desc_t rpd;
  const_dnnl_memory_desc_t from = s->is_out ? s->prim : s->user, to = s->is_out ? s->user : s->prim;
  if (dnnl_reorder_primitive_desc_create(&rpd, from, g_eng, to, g_eng, attr) != dnnl_success) return 0;
  size_t sz = scratch_of(rpd, &s->reorder_scratch);
  if (sz > *scratch) *scratch = sz;
  int ok = dnnl_primitive_create(&s->reorder, rpd) == dnnl_success;
  dnnl_primitive_desc_destroy(rpd);
  return ok;
}

/* 0 when out of memory (the slot's descriptors are freed with the entry) */
static int set_slot(cslot *s, int arg, int is_out, const_dnnl_memory_desc_t user, dnnl_primitive_desc_t pd) {
  s->used = 1;
  s->arg = arg;
  s->is_out = is_out;
  s->user = md_keep(user);
  s->prim = md_keep(dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, arg));
  return s->user && s->prim;
}

/* Creates the primitive of e->key; e->ok stays 0 when oneDNN has no implementation. */
static void build(centry *e) {
  const ckey *k = &e->key;
  dnnl_memory_desc_t xu = NULL, xq = NULL, yu = NULL, yq = NULL, wu = NULL, wq = NULL, bu = NULL;
  int am = k->fmt == F_ANY ? 1 : k->fmt == F_NHWC ? 2 : 0;
  dnnl_dims_t bd = {k->O};
  dnnl_dims_t st, dil, pl, pr;
  for (int i = 0; i < k->nsp; i++) {
    st[i] = k->s[i];
    dil[i] = k->d[i] - 1;
    pl[i] = k->pl[i];
    pr[i] = k->pr[i];
  }
  dnnl_primitive_attr_t attr = user_scratch_attr(), rattr = NULL;
  dnnl_primitive_desc_t fpd = NULL, pd = NULL;
  if (!attr) return;
  /* a blocked x / y of the predictor is given to the primitive as it is: with format_tag any, oneDNN 3.2
   * picks its channels-last brgconv for some shapes, and the reorders nChw8c <-> acdb around every
   * convolution (and a declined sum post-op) would cost more than the kernel gains */
  /* user (u) and primitive (q) data types of x, y, w and the bias: see DT_* */
  const dnnl_data_type_t f = dnnl_f32, h = dnnl_bf16;
  const dnnl_data_type_t tb = k->dt == DT_BF16 ? h : f, tq = k->dt ? h : f, tyq = k->dt == DT_BF16_INFER ? f : tb;
  /* a plain x into a blocked y of a depthwise convolution: x reordered into y's block too (with
   * format any oneDNN 3.2 chose acdb for x and found only its reference kernel for, e.g., a 5x5
   * stride-2 depthwise layer of BlazeFace: ~30% of its batch-16 run) */
  const int xq_mode = k->brg    ? 2
                      : k->xblk ? k->xblk
                      : k->yblk && k->G > 1 && k->G == k->C && k->G == k->O ? k->yblk
                                                                             : am;
  const int yq_mode = k->brg ? 2 : k->yblk ? k->yblk : am;
  if (!act_md(&xu, k, k->C, k->in, k->xblk, tb) || !act_md(&xq, k, k->C, k->in, xq_mode, tq) ||
      !act_md(&yu, k, k->O, k->out, k->yblk, tb) || !act_md(&yq, k, k->O, k->out, yq_mode, tyq) ||
      !wei_md(&wu, k, 0, tb) || !wei_md(&wq, k, 1, tq) ||
      dnnl_memory_desc_create_with_tag(&bu, 1, bd, tb, dnnl_a) != dnnl_success)
    goto done;
  int with_bias = k->bias;
  if (k->npost || k->sum) {
    dnnl_post_ops_t po = NULL;
    if (dnnl_post_ops_create(&po) != dnnl_success) goto done;
    int okp = 1;
    if (k->sum) okp &= dnnl_post_ops_append_sum(po, 1.0f, 0, dnnl_data_type_undef) == dnnl_success;
    for (int i = 0; i < k->npost; i++)
      okp &= dnnl_post_ops_append_eltwise(po, (dnnl_alg_kind_t)k->post_alg[i], k->post_a[i], k->post_b[i]) ==
             dnnl_success;
    okp &= dnnl_primitive_attr_set_post_ops(attr, po) == dnnl_success;
    dnnl_post_ops_destroy(po);
    if (!okp) goto done;
  }
  if (dnnl_convolution_forward_primitive_desc_create(&fpd, g_eng, k->infer ? dnnl_forward_inference : dnnl_forward_training,
                                                     dnnl_convolution_direct, xq, wq, k->mode == 0 && with_bias ? bu : NULL,
                                                     yq, st, dil, pl, pr, attr) != dnnl_success)
    goto done;
  if (k->mode == 0) {
    pd = fpd;
    fpd = NULL;
    if (!set_slot(&e->slot[0], DNNL_ARG_SRC, 0, xu, pd) || !set_slot(&e->slot[1], DNNL_ARG_WEIGHTS, 0, wu, pd) ||
        !set_slot(&e->slot[2], DNNL_ARG_DST, 1, yu, pd) || (with_bias && !set_slot(&e->slot[3], DNNL_ARG_BIAS, 0, bu, pd)))
      goto done;
  } else if (k->mode == 1) {
    if (dnnl_convolution_backward_data_primitive_desc_create(&pd, g_eng, dnnl_convolution_direct, xq, wq, yq, st, dil,
                                                             pl, pr, fpd, attr) != dnnl_success)
      goto done;
    if (!set_slot(&e->slot[0], DNNL_ARG_DIFF_SRC, 1, xu, pd) || !set_slot(&e->slot[1], DNNL_ARG_WEIGHTS, 0, wu, pd) ||
        !set_slot(&e->slot[2], DNNL_ARG_DIFF_DST, 0, yu, pd))
      goto done;
  } else {
    if (dnnl_convolution_backward_weights_primitive_desc_create(&pd, g_eng, dnnl_convolution_direct, xq, wq,
                                                                with_bias ? bu : NULL, yq, st, dil, pl, pr, fpd,
                                                                attr) != dnnl_success)
      goto done;
    if (!set_slot(&e->slot[0], DNNL_ARG_SRC, 0, xu, pd) || !set_slot(&e->slot[1], DNNL_ARG_DIFF_WEIGHTS, 1, wu, pd) ||
        !set_slot(&e->slot[2], DNNL_ARG_DIFF_DST, 0, yu, pd) ||
        (with_bias && !set_slot(&e->slot[3], DNNL_ARG_DIFF_BIAS, 1, bu, pd)))
      goto done;
  }
  e->scratch = scratch_of(pd, &e->scratch_md);
  /* the reorders get the scratchpad mode alone (not the convolution's post-ops) */
  rattr = k->npost || k->sum ? user_scratch_attr() : NULL;
  if ((k->npost || k->sum) && !rattr) goto done;
  for (int i = 0; i < 4; i++)
    if (e->slot[i].used && !make_reorder(&e->slot[i], rattr ? rattr : attr, &e->scratch)) goto done;
  /* the sum post-op reads the addend from dst: only where the primitive writes the caller's y */
  if (k->sum && e->slot[2].reorder) goto done;
  if (dnnl_primitive_create(&e->prim, pd) != dnnl_success) goto done;
  e->ok = 1;
done:
  if (fpd) dnnl_primitive_desc_destroy(fpd);
  if (pd) dnnl_primitive_desc_destroy(pd);
  dnnl_primitive_attr_destroy(attr);
  if (rattr) dnnl_primitive_attr_destroy(rattr);
  md_drop(&xu), md_drop(&xq), md_drop(&yu), md_drop(&yq), md_drop(&wu), md_drop(&wq), md_drop(&bu);
}

static void entry_free(centry *e) {
  if (e->prim) dnnl_primitive_destroy(e->prim);
  for (int i = 0; i < 4; i++) {
    if (e->slot[i].reorder) dnnl_primitive_destroy(e->slot[i].reorder);
    md_drop(&e->slot[i].user), md_drop(&e->slot[i].prim), md_drop(&e->slot[i].reorder_scratch);
  }
  md_drop(&e->scratch_md);
  free(e);
}

static void unlink_entry(centry *e) {
  if (e->prev) e->prev->next = e->next;
  else g_head = e->next;
  if (e->next) e->next->prev = e->prev;
  else g_tail = e->prev;
  e->prev = e->next = NULL;
}
static void push_front(centry *e) {
  e->next = g_head;
  e->prev = NULL;
  if (g_head) g_head->prev = e;
  g_head = e;
  if (!g_tail) g_tail = e;
}

/* Returns a referenced entry for k (built on a miss), or NULL when out of memory. */
static centry *acquire(const ckey *k) {
  uint64_t h = pd_hash_bytes(k, sizeof(*k));
  pthread_mutex_lock(&g_mu);
  centry *e = g_head;
  for (; e; e = e->next)
    if (e->hash == h && !memcmp(&e->key, k, sizeof(*k))) break;
  if (e) {
    unlink_entry(e);
    push_front(e);
  } else {
    e = (centry *)calloc(1, sizeof(*e));
    if (!e) {
      pthread_mutex_unlock(&g_mu);
      return NULL;
    }
    e->key = *k;
    e->hash = h;
    /* a primitive keyed by its thread count (k->nthr: the forward jit / brg kernels, whose work
     * split is fixed when built) is built at that count, the one at the call: built at the
     * configured count instead, a one-thread window's primitive ran on every configured thread
     * (oneDNN's parallel takes the split's count, not the ICV), so the governor's one-thread mode
     * never reached those convolutions (MobileNetV3 b1 under two CPU-burning neighbours: 36.8 ms
     * against 16 with it). The others (one per shape) at the configured count, not a governor
     * window's */
    const int pc = k->nthr > 0 ? 0 : pd_pool_create_begin();
    build(e);
    pd_pool_create_end(pc);
    push_front(e);
    if (++g_count > CACHE_CAP) {
      centry *old = g_tail;
      unlink_entry(old);
      g_count--;
      if (old->refs) old->dead = 1;
      else entry_free(old);
    }
  }
  e->refs++;
  pthread_mutex_unlock(&g_mu);
  return e;
}
static void release(centry *e) {
  pthread_mutex_lock(&g_mu);
  int gone = --e->refs == 0 && e->dead;
  pthread_mutex_unlock(&g_mu);
  if (gone) entry_free(e);
}

static dnnl_memory_t mem(const_dnnl_memory_desc_t md, void *p) {
  dnnl_memory_t m = NULL;
  if (dnnl_memory_create(&m, md, g_eng, p) != dnnl_success) return NULL;
  return m;
}

static int exec(dnnl_primitive_t p, int n, dnnl_exec_arg_t *args) {
  return dnnl_primitive_execute(p, t_stream, n, args) == dnnl_success;
}
/* Reorders of small tensors (the weights) run on the calling thread: an OpenMP region costs a
 * wake-up and a barrier, which on a loaded machine can wait out a whole scheduler slice. oneDNN
 * reads the thread count when a reorder executes. */
#define SMALL_REORDER (256 << 10)
static int exec_reorder(const cslot *s, dnnl_memory_t from, dnnl_memory_t to, dnnl_memory_t scratch) {
  dnnl_exec_arg_t ra[3] = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}, {DNNL_ARG_SCRATCHPAD, scratch}};
  if (dnnl_memory_desc_get_size(s->user) >= SMALL_REORDER) return exec(s->reorder, scratch ? 3 : 2, ra);
  const int nt = omp_get_max_threads();
  omp_set_num_threads(1);
  int ok = exec(s->reorder, scratch ? 3 : 2, ra);
  omp_set_num_threads(nt);
  return ok;
}

/* multiply-adds x 2 of the key's convolution */
static double conv_flops(const ckey *k) {
  double f = 2.0 * (double)k->N * (double)k->O * (double)(k->C / (k->G > 0 ? k->G : 1));
  for (int i = 0; i < k->nsp; i++) f *= (double)k->out[i] * (double)k->k[i];
  return f;
}

int pd_conv_pretouch_on(size_t bytes, int which) {
  if (!pd_conv_wcache_cur || bytes > ((size_t)(which == 1 ? 1 : 4) << 20)) return 0;
  const char *e = getenv("PADDLE_C_PRETOUCH");
  return !e || (atoi(e) & which);
}

void pd_conv_pretouch(const void *p, size_t bytes) {
  const float *f = (const float *)p;
  const size_t n = bytes / sizeof(float);
  float s0 = 0, s1 = 0, s2 = 0, s3 = 0; /* four chains: the loads, not the adds, set the pace */
  size_t i = 0;
  for (; i + 64 <= n; i += 64) s0 += f[i], s1 += f[i + 16], s2 += f[i + 32], s3 += f[i + 48];
  for (; i < n; i += 16) s0 += f[i];
  volatile float sink = s0 + s1 + s2 + s3;
  (void)sink;
}

/* Runs entry e on user buffers ptr[4]. Returns 1 or -1 (error set). */
static int run(centry *e, void **ptr) {
  dnnl_memory_t um[4] = {0}, pm[4] = {0}, sm = NULL, rsm[4] = {0};
  void *tmp[4] = {0}, *scratch = NULL, *wkeep = NULL;
  int ok = 0, wcached = 0;
  const int wc = e->key.mode == 0 && pd_conv_wcache_cur && e->slot[1].reorder;
  if (e->scratch && !(scratch = pd_alloc(e->scratch))) goto done;
  if (e->scratch_md && !(sm = mem(e->scratch_md, scratch))) goto done;
  for (int i = 0; i < 4; i++) {
    cslot *s = &e->slot[i];
    if (!s->used) continue;
    if (!(um[i] = mem(s->user, ptr[i]))) goto done;
    if (!s->reorder) continue;
    size_t sz = dnnl_memory_desc_get_size(s->prim);
    if (i == 1 && wc) {
      void *c = pd_conv_wcache_get(s->user, s->prim, ptr[1]);
      if (c) wcached = 1;
      else if (!(c = wkeep = malloc(sz))) goto done;
      if (!(pm[i] = mem(s->prim, c))) goto done;
      if (s->reorder_scratch && !(rsm[i] = mem(s->reorder_scratch, scratch))) goto done;
      continue;
    }
    if (!(tmp[i] = pd_alloc(sz)) || !(pm[i] = mem(s->prim, tmp[i]))) goto done;
    if (s->reorder_scratch && !(rsm[i] = mem(s->reorder_scratch, scratch))) goto done;
  }
  for (int i = 0; i < 4; i++) {
    cslot *s = &e->slot[i];
    if (!s->used || !s->reorder || s->is_out || (i == 1 && wcached)) continue;
    if (!exec_reorder(s, um[i], pm[i], rsm[i])) goto done;
    if (i == 1 && wkeep) {
      if (dnnl_stream_wait(t_stream) != dnnl_success) goto done;
      if (pd_conv_wcache_put(s->user, s->prim, ptr[1], wkeep, dnnl_memory_desc_get_size(s->prim))) wkeep = NULL; /* else freed below */
    }
  }
  dnnl_exec_arg_t args[5];
  int n = 0;
  for (int i = 0; i < 4; i++)
    if (e->slot[i].used) {
      args[n].arg = e->slot[i].arg;
      args[n++].memory = pm[i] ? pm[i] : um[i];
    }
  if (sm) {
    args[n].arg = DNNL_ARG_SCRATCHPAD;
    args[n++].memory = sm;
  }
  if (e->key.mode == 0 && e->slot[0].used && conv_flops(&e->key) >= 40e6) {
    /* the forward's source as the primitive reads it, in a parallel region of its own: only before
     * layers of 40 MFLOP or more (~0.1 ms on two cores; a region costs a few us, more where the pool's
     * threads had gone to sleep: MobileNetV3's layers, 30 MFLOP and less, took 1.3x the time) */
    const void *src = pm[0] ? tmp[0] : ptr[0];
    const size_t bytes = dnnl_memory_desc_get_size(pm[0] ? e->slot[0].prim : e->slot[0].user);
    if (pd_conv_pretouch_on(bytes, 1)) {
#pragma omp parallel
      pd_conv_pretouch(src, bytes);
    }
  }
  if (!exec(e->prim, n, args)) goto done;
  for (int i = 0; i < 4; i++) {
    cslot *s = &e->slot[i];
    if (!s->used || !s->reorder || !s->is_out) continue;
    if (!exec_reorder(s, pm[i], um[i], rsm[i])) goto done;
  }
  ok = dnnl_stream_wait(t_stream) == dnnl_success;
done:
  for (int i = 0; i < 4; i++) {
    if (um[i]) dnnl_memory_destroy(um[i]);
    if (pm[i]) dnnl_memory_destroy(pm[i]);
    if (rsm[i]) dnnl_memory_destroy(rsm[i]);
    if (tmp[i]) pd_free(tmp[i]);
  }
  if (sm) dnnl_memory_destroy(sm);
  if (scratch) pd_free(scratch);
  free(wkeep);
  if (!ok) pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[conv] oneDNN convolution failed (out of memory?)");
  return ok ? 1 : -1;
}

_Thread_local int pd_conv_bf16_infer;

static int conv_dnnl_impl(const pd_conv_geom *g, int mode, void *x, void *w, void *y, void *bias,
                          const pd_conv_post *post, int xblk, int yblk, int dt, int brg) {
  if (g->N == 0) return 0;
  pthread_once(&g_once, eng_init);
  if (!g_eng_ok) return 0;
  if (!t_stream && dnnl_stream_create(&t_stream, g_eng, dnnl_stream_default_flags) != dnnl_success) {
    t_stream = NULL;
    return 0;
  }
  ckey k;
  memset(&k, 0, sizeof(k));
  k.mode = mode;
  k.dt = dt;
  /* bfloat16: oneDNN's blocked layouts always (its plain-layout GEMM convolution has no bf16 path
   * on the units) */
  k.fmt = xblk || yblk ? F_ANY : dt && g_env_fmt < 0 ? F_ANY : layout_mode(g, mode, !pd_conv_wcache_cur);
  k.xblk = xblk;
  k.yblk = yblk;
  k.brg = brg;
  /* The forward jit / brg kernels keep each output's reduction on one thread, so their results do
   * not depend on the split; the plain GEMM convolution and the gradients may split the reduction
   * by thread count: those keep one primitive per shape (results equal at every call, as before) */
  k.nthr = mode == 0 && k.fmt != F_PLAIN ? omp_get_max_threads() : 0;
  k.nsp = g->nsp;
  k.nhwc = g->nhwc;
  k.bias = bias != NULL && mode != 1;
  int stripped = 0;
  if (post && mode == 0) {
    k.infer = 1;
    /* oneDNN 2.6's GEMM convolution (the plain-layout pointwise path; 3.2 still picks x64:gemm:jit
     * there) applied eltwise post-ops element by element through a slow generic path (a 1x1 conv +
     * relu measured 30x slower): the caller applies the activation instead */
    if (k.fmt == F_PLAIN && post->sum) return 0; /* y must keep the addend: the caller adds it */
    stripped = k.fmt == F_PLAIN && post->n > 0;
    k.npost = stripped ? 0 : post->n;
    k.sum = post->sum;
    for (int i = 0; i < k.npost && i < 2; i++) {
      k.post_alg[i] = post->alg[i];
      k.post_a[i] = post->alpha[i];
      k.post_b[i] = post->beta[i];
    }
  }
  k.N = g->N;
  k.C = g->C;
  k.O = g->O;
  k.G = g->G;
  for (int i = 0; i < 3; i++) {
    k.in[i] = g->in[i];
    k.out[i] = g->out[i];
    k.k[i] = g->k[i];
    k.s[i] = g->s[i];
    k.pl[i] = g->pl[i];
    k.pr[i] = g->pr[i];
    k.d[i] = g->d[i];
  }
  centry *e = acquire(&k);
  if (!e) return 0;
  int r = 0;
  if (e->ok) {
    void *ptr[4] = {x, w, y, bias};
    r = run(e, ptr);
  }
  release(e);
  return r == 1 && stripped ? 2 : r;
}

/* Pointwise convolutions (1x1, stride 1, no padding, one group, NCHW) as GEMMs on the caller's
 * buffers: per batch item, y[n] (O x S) = W (O x C) x[n] (C x S), dx[n] = W^T dy[n], and
 * dW = sum_n dy[n] x[n]^T. oneDNN 2.6 runs these as its GEMM convolution too, but its
 * backward-data (W^T dy with many input channels over a small plane: ResNet-50's
 * 1024->256 at 14x14, 2048->512 at 7x7) took 2-3x its forward (docs/arch/autograd_training.md "CNN
 * training speed"); strided ones scatter W^T dy[n] into a zeroed dx (oneDNN's col2im took 2-3x).
 * PADDLE_C_CONV_PW lists the modes that take this path: 0 forward, 1 data gradient, 2 filter
 * gradient, 3 every mode of a 1x1 input plane (one GEMM over the batch); default "13"; "none" =
 * oneDNN for all, as before. */
static int g_pw_modes = -1;
static int pw_modes(void) {
  if (g_pw_modes < 0) {
    const char *e = getenv("PADDLE_C_CONV_PW");
    int m = 0;
    if (!e) m = 2 | 8;
    else
      for (const char *c = e; *c; c++)
        if (*c >= '0' && *c <= '3') m |= 1 << (*c - '0');
    g_pw_modes = m;
  }
  return g_pw_modes;
}

static int pw_gemm(const pd_conv_geom *g, int mode, float *x, float *w, float *y) {
  if (g->G != 1 || g->N <= 0 || g->C <= 0 || g->O <= 0) return 0;
  const int flat = g->in[0] * g->in[1] * g->in[2] == 1 && g->out[0] * g->out[1] * g->out[2] == 1; /* NCHW = NHWC */
  if ((g->nhwc && !flat) || !(pw_modes() & (1 << mode) || (flat && pw_modes() & 8))) return 0;
  int64_t S = 1, So = 1;
  int strided = 0;
  for (int i = 0; i < 3; i++) {
    if (g->k[i] != 1 || g->s[i] < 1 || g->pl[i] || g->pr[i] || g->out[i] != (g->in[i] - 1) / g->s[i] + 1) return 0;
    if (g->s[i] != 1) strided = 1;
    S *= g->in[i];
    So *= g->out[i];
  }
  if (S <= 0 || (strided && mode != 1)) return 0;
  const int64_t C = g->C, O = g->O, N = g->N;
  if (S == 1 && !strided) {
    /* a 1x1 plane (squeeze-and-excitation, pooled heads): one GEMM over the batch for every mode,
     * x [N, C], y [N, O], W [O, C] (oneDNN ran N matrix-vector products) */
    if (mode == 0) pd_gemm(PD_FLOAT32, 0, 1, N, O, C, x, C, w, C, y, O);
    else if (mode == 1) pd_gemm(PD_FLOAT32, 0, 0, N, C, O, y, O, w, C, x, C);
    else pd_gemm(PD_FLOAT32, 1, 0, O, C, N, y, O, x, C, w, C);
    return 1;
  }
  if (mode == 0) {
    for (int64_t n = 0; n < N; n++) pd_gemm(PD_FLOAT32, 0, 0, O, S, C, w, C, x + n * C * S, S, y + n * O * S, S);
  } else if (mode == 1 && !strided) {
    for (int64_t n = 0; n < N; n++) pd_gemm(PD_FLOAT32, 1, 0, C, S, O, w, C, y + n * O * S, S, x + n * C * S, S);
  } else if (mode == 1) {
    /* strided: dx is zero except at the sampled positions, which get W^T dy[n] */
    float *t = (float *)pd_alloc((size_t)(C * So) * sizeof(float));
    if (!t) return 0;
    const int64_t i1 = g->in[1], i2 = g->in[2], o0 = g->out[0], o1 = g->out[1], o2 = g->out[2];
    const int64_t s0 = g->s[0], s1 = g->s[1], s2 = g->s[2];
    for (int64_t n = 0; n < N; n++) {
      pd_gemm(PD_FLOAT32, 1, 0, C, So, O, w, C, y + n * O * So, So, t, So);
      float *dx = x + n * C * S;
#pragma omp parallel for if (C * S > 32768)
      for (int64_t c = 0; c < C; c++) {
        float *dp = dx + c * S;
        const float *tp = t + c * So;
        memset(dp, 0, (size_t)S * sizeof(float));
        for (int64_t a = 0; a < o0; a++)
          for (int64_t b = 0; b < o1; b++) {
            float *row = dp + (a * s0 * i1 + b * s1) * i2;
            const float *src = tp + (a * o1 + b) * o2;
            for (int64_t e = 0; e < o2; e++) row[e * s2] = src[e];
          }
      }
    }
    pd_free(t);
  } else {
    /* one GEMM per batch item accumulating into dW (beta 1 after the first) */
    for (int64_t n = 0; n < N; n++)
      if (dnnl_sgemm('N', 'T', O, C, S, 1.0f, y + n * O * S, S, x + n * C * S, S, n ? 1.0f : 0.0f, w, C) !=
          dnnl_success)
        return 0;
  }
  return 1;
}

/* Depthwise filter gradient (groups = C = O, NCHW, 1-D/2-D, any stride / padding / dilation, kernel
 * up to 64 taps): dW[c, kh, kw] = sum over n and the output plane of dy * x at the tap's shifted
 * position, one channel per thread. oneDNN 2.6's depthwise
 * backward-weights kernel takes only 3x3 windows on AVX2; its fallback for MobileNetV3's 5x5
 * depthwise layers was the GEMM convolution per group, ~45% of the MobileNetV3-small training
 * step ([32,240,14,14] 5x5: 36 -> 8 ms, [32,576,7,7]: 31 -> 6 ms, [32,96,28,28] 5x5/2: 21 -> 4 ms, one
 * thread). PADDLE_C_CONV_DW=dnnl leaves it to oneDNN. */
static int dw_bwd_w(const pd_conv_geom *g, const float *x, float *dw, const float *dy) {
  static int env = -1;
  if (env < 0) {
    const char *e = getenv("PADDLE_C_CONV_DW");
    env = !(e && !strcmp(e, "dnnl"));
  }
  /* spatial dims come first in the geometry (2-D: H, W, 1) */
  if (!env || g->nhwc || g->G != g->C || g->O != g->C || g->nsp > 2 || g->in[2] != 1 || g->out[2] != 1 ||
      g->k[2] != 1 || g->k[0] * g->k[1] > 64 || g->N <= 0 || g->C <= 0 || (g->k[0] == 3 && g->k[1] == 3))
    return 0; /* 3x3: oneDNN's jit_dw kernel (as fast as ours) */
  const int64_t H = g->in[0], W = g->in[1], OH = g->out[0], OW = g->out[1], KH = g->k[0], KW = g->k[1];
  const int64_t s0 = g->s[0], s1 = g->s[1], p0 = g->pl[0], p1 = g->pl[1], d0 = g->d[0], d1 = g->d[1];
  const int64_t C = g->C, N = g->N;
  if (H <= 0 || W <= 0 || OH <= 0 || OW <= 0 || s0 < 1 || s1 < 1 || d0 < 1 || d1 < 1) return 0;
  if (KW <= 8 && KH <= 8 && d1 == 1) {
    /* taps of a window row side by side in one 8-lane vector: per output and window row, one
     * multiply-add of dy by the 8 input values from the tap's start, on a zero-padded copy of the
     * plane (rows Hp, width Wp: every vector load stays inside) */
    typedef float v8 __attribute__((vector_size(32), aligned(4)));
    const int64_t Hp = (OH - 1) * s0 + (KH - 1) * d0 + 1, Wp = (OW - 1) * s1 + 8;
    int ok = 1;
#pragma omp parallel if (N * C * OH * OW * KH > 65536)
    {
      float *pad = (float *)malloc(sizeof(float) * (size_t)(Hp * Wp));
      if (!pad) {
#pragma omp atomic write
        ok = 0;
      }
#pragma omp for schedule(static)
      for (int64_t c = 0; c < C; c++) {
        if (!pad) continue;
        v8 acc[8];
        for (int t = 0; t < 8; t++) acc[t] = (v8){0, 0, 0, 0, 0, 0, 0, 0};
        for (int64_t n = 0; n < N; n++) {
          const float *xp = x + (n * C + c) * H * W, *dp = dy + (n * C + c) * OH * OW;
          for (int64_t r = 0; r < Hp; r++) {
            float *pr = pad + r * Wp;
            const int64_t ih = r - p0;
            memset(pr, 0, sizeof(float) * (size_t)Wp);
            if (ih < 0 || ih >= H) continue;
            const int64_t lo = p1 > 0 ? p1 : 0, src0 = p1 > 0 ? 0 : -p1;
            int64_t cnt = W - src0;
            if (lo + cnt > Wp) cnt = Wp - lo;
            if (cnt > 0) memcpy(pr + lo, xp + ih * W + src0, sizeof(float) * (size_t)cnt);
          }
          for (int64_t oh = 0; oh < OH; oh++) {
            const float *dr = dp + oh * OW;
            for (int64_t kh = 0; kh < KH; kh++) {
              const float *xr = pad + (oh * s0 + kh * d0) * Wp;
              v8 a = acc[kh];
              for (int64_t ow = 0; ow < OW; ow++) a += dr[ow] * *(const v8 *)(xr + ow * s1);
              acc[kh] = a;
            }
          }
        }
        for (int64_t kh = 0; kh < KH; kh++)
          for (int64_t kw = 0; kw < KW; kw++) dw[(c * KH + kh) * KW + kw] = acc[kh][kw];
      }
      free(pad);
    }
    return ok;
  }
#pragma omp parallel for schedule(static) if (N * C * OH * OW * KH * KW > 65536)
  for (int64_t c = 0; c < C; c++) {
    float acc[64];
    for (int64_t t = 0; t < KH * KW; t++) acc[t] = 0.0f;
    for (int64_t n = 0; n < N; n++) {
      const float *xp = x + (n * C + c) * H * W, *dp = dy + (n * C + c) * OH * OW;
      for (int64_t kh = 0; kh < KH; kh++) {
        /* output rows whose input row oh*s0 - p0 + kh*d0 lies in [0, H) */
        const int64_t off0 = kh * d0 - p0;
        int64_t oh0 = off0 >= 0 ? 0 : (-off0 + s0 - 1) / s0, oh1 = H - 1 - off0 < 0 ? 0 : (H - 1 - off0) / s0 + 1;
        if (oh1 > OH) oh1 = OH;
        for (int64_t kw = 0; kw < KW; kw++) {
          const int64_t off1 = kw * d1 - p1;
          int64_t ow0 = off1 >= 0 ? 0 : (-off1 + s1 - 1) / s1, ow1 = W - 1 - off1 < 0 ? 0 : (W - 1 - off1) / s1 + 1;
          if (ow1 > OW) ow1 = OW;
          if (oh0 >= oh1 || ow0 >= ow1) continue;
          float a[8] = {0, 0, 0, 0, 0, 0, 0, 0}, r = 0.0f;
          for (int64_t oh = oh0; oh < oh1; oh++) {
            const float *restrict xr = xp + (oh * s0 + off0) * W + off1, *restrict dr = dp + oh * OW;
            int64_t ow = ow0;
            if (s1 == 1) {
              for (; ow + 8 <= ow1; ow += 8)
                for (int j = 0; j < 8; j++) a[j] += dr[ow + j] * xr[ow + j];
            } else {
              for (; ow + 8 <= ow1; ow += 8)
                for (int j = 0; j < 8; j++) a[j] += dr[ow + j] * xr[(ow + j) * s1];
            }
            for (; ow < ow1; ow++) r += dr[ow] * xr[ow * s1];
          }
          for (int j = 0; j < 8; j++) r += a[j];
          acc[kh * KW + kw] += r;
        }
      }
    }
    for (int64_t t = 0; t < KH * KW; t++) dw[c * KH * KW + t] = acc[t];
  }
  return 1;
}

static int infer_dt_for(const pd_conv_geom *g);

int pd_conv_dnnl(const pd_conv_geom *g, int mode, float *x, float *w, float *y, float *bias) {
  if (mode == 0 && infer_dt_for(g)) { /* a predictor's conv2d op (IR passes off) in its bfloat16 mode */
    int r = conv_dnnl_impl(g, 0, x, w, y, bias, NULL, 0, 0, DT_BF16_INFER, 0);
    if (r) return r;
  }
  const int wr = bias ? 0 : pd_conv_winograd_eager(g, mode, x, w, y); /* stride-1 3x3 (conv_winograd.c) */
  if (wr) return wr;
  if (!bias && mode == 2 && dw_bwd_w(g, x, w, y)) return 1;
  if (!bias && pw_gemm(g, mode, x, w, y)) return 1;
  return conv_dnnl_impl(g, mode, x, w, y, bias, NULL, 0, 0, DT_F32, 0);
}

/* oneDNN may use the bf16 units (ONEDNN_MAX_CPU_ISA can cap it below avx512_core_bf16, where it
 * would emulate bf16 slowly; its ISA values are nested bit sets) */
static int dnnl_bf16_isa(void) {
  const unsigned need = (unsigned)dnnl_cpu_isa_avx512_core_bf16;
  return ((unsigned)dnnl_get_effective_cpu_isa() & need) == need;
}

/* bfloat16 pointwise convolutions (1x1, stride 1, no padding, one group, NCHW, no bias) as oneDNN
 * bf16 matmuls on the plain buffers (pd_gemm_bf16: f32 accumulation, one rounding per output):
 * y[n] = W x[n] for all n as one batched product with W broadcast (mode 0), dx[n] = W^T dy[n]
 * (mode 1), dW = sum_n dy[n] x[n]^T (mode 2, below). oneDNN's bf16 convolution primitives want
 * blocked activations (nChw16c), and the reorders of x and y around each one cost about what the
 * 1x1 product itself does in a training step (ResNet-50: [16,256,56,56] -> 64 forward 8.5 ms as a
 * convolution with its reorders, 5.3 ms as the matmul, 2 threads). PADDLE_C_CONV_PW_BF16 lists
 * the modes that take this path (default "012"; "none": oneDNN's convolutions for all), read
 * once. */
/* dW [O, C] = dy [O, N*S] x [C, N*S]^T as ONE product over the batch's positions, dy and x copied
 * channel-major first (rows of S values moved, no transposing): where the plane is small (S = 196 or
 * 49 in ResNet-50's last stages) the per-image products have little depth (K = S) and their float32
 * partials (N x O x C) outgrow the activations; oneDNN's bf16 1x1 filter gradient, used there before,
 * wants both reordered into blocks. Rounded once from oneDNN's float32 accumulation. ResNet-50's
 * batch-16 layers, 2 threads, one process per setting: 256 -> 1024 and 1024 -> 256 at 14x14 2.48 ->
 * 1.86 ms, 512 -> 2048 at 7x7 2.67 -> 1.79, 2048 -> 512 3.38 -> 1.75 (the product ~0.8 TFLOP/s). */
static int pw_bf16_wgrad_rows(int64_t N, int64_t C, int64_t O, int64_t S, const void *x, void *w, const void *y) {
  const int64_t K = N * S;
  uint16_t *xt = (uint16_t *)pd_alloc((size_t)(C * K) * sizeof(uint16_t));
  uint16_t *yt = (uint16_t *)pd_alloc((size_t)(O * K) * sizeof(uint16_t));
  int r = 0;
  if (xt && yt) {
    const size_t row = (size_t)S * sizeof(uint16_t); /* [N, C] rows of S values -> [C, N] */
    pd_permute_nc((const char *)x, (char *)xt, 1, N, C, row);
    pd_permute_nc((const char *)y, (char *)yt, 1, N, O, row);
    r = pd_gemm_bf16(0, 1, 1, O, C, K, yt, K, 0, xt, K, 0, w, C, 0, 0);
  }
  pd_free(xt);
  pd_free(yt);
  return r;
}

/* y [N, O, S] = W [O, C] x [N, C, S] (mode 0) or dx [N, C, S] = W^T dy (mode 1) as one product over
 * the batch's positions: the input copied channel-major, the product into a channel-major buffer,
 * copied back. Where the plane is small the per-image products are narrow (S columns): ResNet-50's
 * 7x7 layers at batch 16, 2 threads, one process per setting: 512 -> 2048 forward 2.58 -> 2.14 ms,
 * data gradient 3.17 -> 2.54; 2048 -> 512 2.73 -> 2.31 and 3.18 -> 2.15. At 14x14 the copies cost
 * more than the wider product gains (256 -> 1024 forward 2.00 -> 2.30-2.67 ms): per image there. */
static int pw_bf16_rows(int64_t N, int64_t Ci, int64_t Co, int64_t S, int trans_w, const void *w, const void *in,
                        void *out) {
  const int64_t K = N * S;
  uint16_t *it = (uint16_t *)pd_alloc((size_t)(Ci * K) * sizeof(uint16_t));
  uint16_t *ot = (uint16_t *)pd_alloc((size_t)(Co * K) * sizeof(uint16_t));
  int r = 0;
  const size_t row = (size_t)S * sizeof(uint16_t);
  if (it && ot) {
    pd_permute_nc((const char *)in, (char *)it, 1, N, Ci, row); /* [N, Ci] rows of S values -> [Ci, N] */
    /* W is [O, C]: mode 0 W (Co = O, Ci = C), mode 1 W^T (Co = C, Ci = O) */
    r = pd_gemm_bf16(trans_w, 0, 1, Co, K, Ci, w, trans_w ? Co : Ci, 0, it, K, 0, ot, K, 0, 0);
    if (r == 1) pd_permute_nc((const char *)ot, (char *)out, 1, Co, N, row); /* and back */
  }
  pd_free(it);
  pd_free(ot);
  return r;
}

static int g_pw_bf16 = -1;
static int pw_bf16(const pd_conv_geom *g, int mode, void *x, void *w, void *y, void *bias) {
  if (g_pw_bf16 < 0) {
    const char *e = getenv("PADDLE_C_CONV_PW_BF16");
    int m = 0;
    if (!e) m = 1 | 2 | 4;
    else
      for (const char *c = e; *c; c++)
        if (*c >= '0' && *c <= '2') m |= 1 << (*c - '0');
    g_pw_bf16 = m;
  }
  if (!(g_pw_bf16 & (1 << mode)) || bias || g->nhwc || g->G != 1 || g->N <= 0 || g->C <= 0 || g->O <= 0) return 0;
  int64_t S = 1;
  for (int i = 0; i < 3; i++) {
    if (g->k[i] != 1 || g->s[i] != 1 || g->pl[i] || g->pr[i] || g->out[i] != g->in[i]) return 0;
    S *= g->in[i];
  }
  const int64_t C = g->C, O = g->O, N = g->N;
  if (N > 1 && S < 100) { /* planes of 7x7 and less: see pw_bf16_rows */
    if (mode == 0) return pw_bf16_rows(N, C, O, S, 0, w, x, y);
    if (mode == 1) return pw_bf16_rows(N, O, C, S, 1, w, y, x);
  }
  if (mode == 0) return pd_gemm_bf16(0, 0, N, O, S, C, w, C, 0, x, S, C * S, y, S, O * S, 0);
  if (mode == 1) return pd_gemm_bf16(1, 0, N, C, S, O, w, C, 0, y, S, O * S, x, S, C * S, 0);
  /* dW = sum_n dy[n] x[n]^T: the N products in float32 side by side, then summed in batch order
   * and rounded once; only where that scratch (N x O x C) is no larger than the activations the
   * convolution would reorder (N x S x (O + C)): planes of 28x28 and up in ResNet-50 */
  if (O * C > S * (O + C)) return pw_bf16_wgrad_rows(N, C, O, S, x, w, y);
  float *t = (float *)pd_alloc((size_t)(N * O * C) * sizeof(float));
  if (!t) return 0;
  int r = pd_gemm_bf16(0, 1, N, O, C, S, y, S, O * S, x, S, C * S, t, C, O * C, 1);
  if (r == 1) {
    uint16_t *dw = (uint16_t *)w;
    const int64_t W = O * C;
#pragma omp parallel for if (N * W > 65536)
    for (int64_t j0 = 0; j0 < W; j0 += 256) {
      const int64_t j1 = j0 + 256 < W ? j0 + 256 : W;
      float acc[256];
      for (int64_t j = j0; j < j1; j++) acc[j - j0] = t[j];
      for (int64_t n = 1; n < N; n++)
        for (int64_t j = j0; j < j1; j++) acc[j - j0] += t[n * W + j];
      for (int64_t j = j0; j < j1; j++) dw[j] = pd_f32_to_bf16_bits(acc[j - j0]);
    }
  }
  pd_free(t);
  return r;
}

int pd_conv_dnnl_bf16(const pd_conv_geom *g, int mode, void *x, void *w, void *y, void *bias) {
  if (!dnnl_bf16_isa()) return 0;
  if (pw_bf16(g, mode, x, w, y, bias)) return 1;
  return conv_dnnl_impl(g, mode, x, w, y, bias, NULL, 0, 0, DT_BF16, 0);
}

static int infer_dt(void) {
  return pd_conv_bf16_infer && pd_bf16_units_enabled() && dnnl_bf16_isa() ? DT_BF16_INFER : DT_F32;
}
/* the predictor's bf16 mode for one convolution: only where a window has 64 or more products per
 * output (input channels per group x taps). The others (the 3-channel image stem, depthwise, thin
 * 1x1 layers) read each input value a few times only, so converting x to bf16 costs about what
 * the units save (MobileNetV3-small ran 1.27x slower with every convolution in bf16). */
static int infer_dt_for(const pd_conv_geom *g) {
  return g->C / g->G * g->k[0] * g->k[1] * g->k[2] < 64 ? DT_F32 : infer_dt();
}
int pd_conv_bf16_infer_on(const pd_conv_geom *g) { return infer_dt_for(g) != DT_F32; }

int pd_conv_dnnl_post(const pd_conv_geom *g, float *x, float *w, float *y, float *bias, const pd_conv_post *post) {
  return conv_dnnl_impl(g, 0, x, w, y, bias, post, 0, 0, infer_dt_for(g), 0);
}

/* PADDLE_C_CONV_BRG: 0 off, 1 on for every eligible convolution; unset: brg_worth_it */
static int brg_env(void) {
  static int v = -2;
  if (v == -2) {
    const char *e = getenv("PADDLE_C_CONV_BRG");
    v = e && !strcmp(e, "0") ? 0 : e && !strcmp(e, "1") ? 1 : -1;
  }
  return v;
}

/* A predictor's float32 convolution with a spatial kernel, one group, x and y in whole 16-lane
 * blocks and no sum post-op: oneDNN 3.2 runs it as jit:avx512_core on nChw16c, while its brgconv
 * on channels-last activations (what Paddle Inference 2.6.2 runs) is faster at stride 2 and at
 * few output positions; the activations are reordered nChw16c -> nhwc -> nChw16c around it
 * (docs/arch/inference.md "brgconv for the spatial layers"). 1x1 layers stay on jit_1x1 (as fast as
 * brgconv_1x1 here; stride-2 1x1 layers lost, brg_worth_it), depthwise ones on jit_dw; Winograd
 * takes the stride-1 3x3 layers it wants before this. */
static int brg_eligible(const pd_conv_geom *g, const pd_conv_post *post, int xblk, int yblk, int dt) {
  if (dt != DT_F32 || xblk != 16 || yblk != 16 || pd_layout_nhwc() || g->G != 1 || g->nsp != 2) return 0;
  if (g->C % 16 || g->O % 16 || (post && post->sum) || (g->k[0] == 1 && g->k[1] == 1)) return 0;
  return dnnl_get_effective_cpu_isa() >= dnnl_cpu_isa_avx512_core;
}

/* where brgconv and its two reorders measured faster: 1x1 -> this layer -> 1x1 in a predictor, all
 * blocked, one thread, AVX-512 EPYC, process CPU time of the whole run, min of 6-40, jit vs brg
 * (ms): batch 16, stride 2, 128 at 56 -> 28 29.9-30.2 vs 29.4, 256 at 28 -> 14 36.0 vs 25.4,
 * 512 at 14 -> 7 27.7-28.7 vs 23.8-24.0, 64 at 112 -> 56 39.1-40.8 vs 40.1-41.2 (a tie at 50176
 * output positions); batch 1: 128 at 56 -> 28 1.59-1.69 vs 1.50, 512 -> 512 at 7x7 stride 1
 * 1.28-1.43 vs 0.89. Few input channels lose the reorders' cost: 16 -> 64 stride 2 at 64 -> 32
 * batch 4 0.49 vs 0.54, 16 -> 16 at 28 batch 1 0.035 vs 0.038. 1x1 stride-2 layers lost too
 * (256 -> 512 at 56 batch 16: 49.4 vs 56.4), so they are not eligible. */
static int brg_worth_it(const pd_conv_geom *g) { return g->C >= 64 && g->N * g->out[0] * g->out[1] <= 16384; }

int pd_conv_dnnl_blocked(const pd_conv_geom *g, float *x, float *w, float *y, float *bias, const pd_conv_post *post,
                         int xblk, int yblk) {
  if (g->nsp != 2 || g->nhwc) return 0;
  /* padded channel blocks (C or O not a multiple of the block, layout_dnnl.h): oneDNN pads the
   * channels of x, y and the weights itself; grouped convolutions other than depthwise ones would
   * split groups across blocks, so those need whole blocks */
  const int padded = (xblk && g->C % xblk) || (yblk && g->O % yblk);
  if (padded && g->G > 1 && !(g->G == g->C && g->G == g->O)) return 0;
  const int dt = infer_dt_for(g);
  const int brg = brg_env() != 0 && brg_eligible(g, post, xblk, yblk, dt) && (brg_env() == 1 || brg_worth_it(g));
  return conv_dnnl_impl(g, 0, x, w, y, bias, post, xblk, yblk, dt, brg);
}

int pd_dnnl_context(dnnl_engine_t *eng, dnnl_stream_t *stream) {
  pthread_once(&g_once, eng_init);
  if (!g_eng_ok) return 0;
  if (!t_stream && dnnl_stream_create(&t_stream, g_eng, dnnl_stream_default_flags) != dnnl_success) {
    t_stream = NULL;
    return 0;
  }
  *eng = g_eng;
  *stream = t_stream;
  return 1;
}
