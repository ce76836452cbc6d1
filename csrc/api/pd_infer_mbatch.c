/* Micro-batches (issue 17 speed): a predictor whose program computes every sample on its own
 * (convolutions, pooling, inference batch_norm, elementwise ops, channel concat, resizes, yolo_box,
 * multiclass_nms3 ...) runs a large batch as consecutive chunks of a few samples and concatenates
 * the fetched values along dim 0. Same arithmetic per sample; the chunk's activations stay in the
 * caches between layers (MobileNetV3 / PP-YOLO-tiny at batch 16: 16 x 112 x 112 x 64 floats are
 * 51 MB, a chunk of 4 a quarter of it).
 * pd_infer_mbatch_analyse proves the property on the optimized program (a var kind per variable:
 * constant, batched = dim 0 is the sample, rows = per-sample row groups concatenated in sample
 * order, as multiclass_nms3's Out); anything it does not know makes the program ineligible, and
 * the predictor then always runs the whole batch. PADDLE_C_INFER_MICROBATCH: 0 off, k chunks of
 * k samples, unset: the auto rule below. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pd_infer_internal.h"
#include "../core/pd_device.h"
#include "../kernels/cpu/layout_dnnl.h"

enum { K_UNKNOWN = 0, K_CONST, K_BATCH, K_ROWS };

typedef struct {
  const pd_block *b;
  int n;
  char **names;
  unsigned char *kind;
} kinds;

static int kind_of(const kinds *k, const char *name) {
  for (int i = k->n - 1; i >= 0; i--)
    if (!strcmp(k->names[i], name)) return k->kind[i];
  const pd_var *v = pd_block_find_var(k->b, name);
  return v && v->persistable ? K_CONST : K_UNKNOWN;
}

static int kind_set(kinds *k, const char *name, int kd) {
  char **nn = (char **)realloc(k->names, sizeof(char *) * (size_t)(k->n + 1));
  if (!nn) return 0;
  k->names = nn;
  unsigned char *nk = (unsigned char *)realloc(k->kind, (size_t)(k->n + 1));
  if (!nk) return 0;
  k->kind = nk;
  k->names[k->n] = (char *)name; /* borrowed from the program */
  k->kind[k->n++] = (unsigned char)kd;
  return 1;
}

static const pd_opslot *slot(const pd_opdesc *op, int out, const char *name) {
  const pd_opslot *s = pd_opdesc_slot(op, out, name);
  return s && s->n > 0 ? s : NULL;
}

/* the kind of an op's one-argument input slot (K_CONST when absent) */
static int in_kind(const kinds *k, const pd_opdesc *op, const char *name) {
  const pd_opslot *s = slot(op, 0, name);
  if (!s) return K_CONST;
  if (s->n != 1) return K_UNKNOWN;
  return kind_of(k, s->args[0]);
}

static int var_ndim(const kinds *k, const pd_opdesc *op, const char *name) {
  const pd_opslot *s = slot(op, 0, name);
  const pd_var *v = s && s->n == 1 ? pd_block_find_var(k->b, s->args[0]) : NULL;
  return v ? v->ndim : -1;
}

static const pd_var *in_var(const kinds *k, const pd_opdesc *op, const char *name) {
  const pd_opslot *s = slot(op, 0, name);
  return s && s->n == 1 ? pd_block_find_var(k->b, s->args[0]) : NULL;
}

static int64_t attr_i(const pd_opdesc *op, const char *name, int64_t dflt) {
  const pd_attr *a = pd_opdesc_attr(op, name);
  int64_t v;
  return a && pd_attr_as_int(op, a, &v) == PD_OK ? v : dflt;
}

/* axis (of a rank-nd value) is not the sample axis */
static int not_axis0(int64_t axis, int nd) {
  if (axis < 0) {
    if (nd < 1) return 0;
    axis += nd;
  }
  return axis > 0;
}

static int in_set(const char *t, const char *const *set) {
  for (; *set; set++)
    if (!strcmp(t, *set)) return 1;
  return 0;
}

static const char *const UNARY[] = {"relu", "relu6", "hard_swish", "hardswish", "hard_sigmoid", "sigmoid", "swish",
                                    "silu", "leaky_relu", "tanh", "clip", "scale", "exp", "gelu", "elu", "mish",
                                    "softplus", "abs", "sqrt", "square", "cast", "assign", "logsigmoid", NULL};
static const char *const CONV[] = {"conv2d", "depthwise_conv2d", "fused_conv2d", "conv2d_transpose",
                                   "depthwise_conv2d_transpose", NULL};
static const char *const ELEM[] = {"elementwise_add", "elementwise_sub", "elementwise_mul", "elementwise_div",
                                   "elementwise_max", "elementwise_min", "elementwise_pow",
                                   "fused_elementwise_add", NULL};
static const char *const INTERP[] = {"nearest_interp_v2", "bilinear_interp_v2", "nearest_interp", "bilinear_interp",
                                     NULL};
/* ops without inputs whose output is not a function of their attributes */
static const char *const RANDOM[] = {"uniform_random", "gaussian_random", "randint", "randperm", "dropout",
                                     "truncated_gaussian_random", "bernoulli", "multinomial", "seed", NULL};

/* the kinds of the outputs of one op, or 0 (ineligible) */
static int op_rule(kinds *k, const pd_opdesc *op) {
  const char *t = op->type;
  for (int a = 0; a < op->n_attrs; a++) {
    pd_attr_type at = op->attrs[a].type;
    if (at == PD_AT_BLOCK || at == PD_AT_BLOCKS || at == PD_AT_VAR || at == PD_AT_VARS) return 0;
  }
  int any_b = 0;
  for (int i = 0; i < op->n_in; i++)
    for (int j = 0; j < op->in[i].n; j++) {
      int kd = kind_of(k, op->in[i].args[j]);
      if (kd == K_UNKNOWN || kd == K_ROWS) return 0;
      any_b |= kd == K_BATCH;
    }
  if (!any_b) { /* a function of constants only */
    if (in_set(t, RANDOM)) return 0;
    for (int i = 0; i < op->n_out; i++)
      for (int j = 0; j < op->out[i].n; j++)
        if (!kind_set(k, op->out[i].args[j], K_CONST)) return 0;
    return 1;
  }
  /* the one output slot the rule produces batched; other output slots become K_UNKNOWN */
  const char *out_b = "Out", *out_r = NULL, *out_b2 = NULL;
  if (in_set(t, UNARY)) {
    if (in_kind(k, op, "X") != K_BATCH) return 0;
  } else if (in_set(t, CONV)) {
    if (in_kind(k, op, "Input") != K_BATCH || in_kind(k, op, "Filter") != K_CONST || in_kind(k, op, "Bias") != K_CONST)
      return 0;
    int r = in_kind(k, op, "ResidualData");
    if (r != K_CONST && r != K_BATCH) return 0;
    if (r == K_CONST && slot(op, 0, "ResidualData")) return 0; /* a broadcast residual */
    out_b = "Output";
  } else if (!strcmp(t, "pool2d")) {
    if (in_kind(k, op, "X") != K_BATCH) return 0;
  } else if (!strcmp(t, "batch_norm")) {
    if (in_kind(k, op, "X") != K_BATCH || !(attr_i(op, "is_test", 0) || attr_i(op, "use_global_stats", 0))) return 0;
    if (in_kind(k, op, "Scale") != K_CONST || in_kind(k, op, "Bias") != K_CONST || in_kind(k, op, "Mean") != K_CONST ||
        in_kind(k, op, "Variance") != K_CONST)
      return 0;
    out_b = "Y";
  } else if (in_set(t, ELEM)) {
    int kx = in_kind(k, op, "X"), ky = in_kind(k, op, "Y");
    int nx = var_ndim(k, op, "X"), ny = var_ndim(k, op, "Y");
    int64_t axis = attr_i(op, "axis", -1);
    if (nx < 1 || ny < 1) return 0;
    if (kx == K_BATCH && ky == K_BATCH) {
      if (nx != ny) return 0;
    } else {
      /* the constant operand must not reach the sample axis: fewer dims, aligned after it, or
       * a static extent 1 there */
      const pd_var *cv = in_var(k, op, kx == K_BATCH ? "Y" : "X");
      int nb = kx == K_BATCH ? nx : ny, nc = kx == K_BATCH ? ny : nx;
      if (!cv) return 0;
      if (nc == nb) {
        if (cv->dims[0] != 1) return 0;
      } else if (nc > nb) {
        return 0;
      } else if (kx == K_BATCH ? axis == 0 : 0) {
        return 0;
      }
    }
  } else if (!strcmp(t, "concat")) {
    if (slot(op, 0, "AxisTensor")) return 0;
    const pd_opslot *s = slot(op, 0, "X");
    const pd_var *v0 = s ? pd_block_find_var(k->b, s->args[0]) : NULL;
    if (!v0 || !not_axis0(attr_i(op, "axis", 0), v0->ndim)) return 0;
    for (int j = 0; j < s->n; j++)
      if (kind_of(k, s->args[j]) != K_BATCH) return 0;
  } else if (in_set(t, INTERP)) {
    if (in_kind(k, op, "X") != K_BATCH || slot(op, 0, "OutSize") || slot(op, 0, "SizeTensor") || slot(op, 0, "Scale"))
      return 0;
  } else if (!strcmp(t, "flatten_contiguous_range")) {
    if (in_kind(k, op, "X") != K_BATCH || !not_axis0(attr_i(op, "start_axis", 1), var_ndim(k, op, "X"))) return 0;
  } else if (!strcmp(t, "reshape2") || !strcmp(t, "reshape")) {
    const pd_attr *a = pd_opdesc_attr(op, "shape");
    const pd_var *x = in_var(k, op, "X");
    if (in_kind(k, op, "X") != K_BATCH || slot(op, 0, "Shape") || slot(op, 0, "ShapeTensor") || !a || !x ||
        a->n < 1 || x->ndim < 1)
      return 0;
    if (a->ints[0] != 0) { /* -1 at the sample axis: the rest must hold exactly one sample */
      if (a->ints[0] != -1) return 0;
      int64_t px = 1, ps = 1;
      for (int d = 1; d < x->ndim; d++) {
        if (x->dims[d] <= 0) return 0;
        px *= x->dims[d];
      }
      for (int64_t d = 1; d < a->n; d++) {
        int64_t e = a->ints[d] == 0 && d < x->ndim ? x->dims[d] : a->ints[d];
        if (e <= 0) return 0;
        ps *= e;
      }
      if (px != ps) return 0;
    }
  } else if (!strcmp(t, "transpose2") || !strcmp(t, "transpose")) {
    const pd_attr *a = pd_opdesc_attr(op, "axis");
    if (in_kind(k, op, "X") != K_BATCH || !a || a->n < 1 || a->ints[0] != 0) return 0;
  } else if (!strcmp(t, "softmax") || !strcmp(t, "log_softmax")) {
    if (in_kind(k, op, "X") != K_BATCH || !not_axis0(attr_i(op, "axis", -1), var_ndim(k, op, "X"))) return 0;
  } else if (!strcmp(t, "matmul_v2") || !strcmp(t, "matmul")) {
    int ny = var_ndim(k, op, "Y");
    if (in_kind(k, op, "X") != K_BATCH || in_kind(k, op, "Y") != K_CONST || ny != 2 || var_ndim(k, op, "X") < 2 ||
        attr_i(op, "trans_x", 0) || attr_i(op, "transpose_X", 0))
      return 0;
  } else if (!strcmp(t, "fc")) {
    if (in_kind(k, op, "Input") != K_BATCH || in_kind(k, op, "W") != K_CONST || in_kind(k, op, "Bias") != K_CONST ||
        attr_i(op, "in_num_col_dims", 1) < 1)
      return 0;
  } else if (!strcmp(t, "mul")) {
    if (in_kind(k, op, "X") != K_BATCH || in_kind(k, op, "Y") != K_CONST || attr_i(op, "x_num_col_dims", 1) < 1)
      return 0;
  } else if (!strcmp(t, "yolo_box")) {
    if (in_kind(k, op, "X") != K_BATCH || in_kind(k, op, "ImgSize") != K_BATCH) return 0;
    out_b = "Boxes", out_b2 = "Scores";
  } else if (!strcmp(t, "multiclass_nms3")) {
    /* the 3-D form: BBoxes [N, M, 4], Scores [N, C, M]; Out holds each sample's rows in order,
     * NmsRoisNum one count per sample; Index (offsets into the whole batch) is left unknown */
    if (in_kind(k, op, "BBoxes") != K_BATCH || in_kind(k, op, "Scores") != K_BATCH || slot(op, 0, "RoisNum") ||
        var_ndim(k, op, "Scores") != 3)
      return 0;
    out_b = "NmsRoisNum", out_r = "Out";
  } else {
    return 0;
  }
  for (int i = 0; i < op->n_out; i++) {
    const pd_opslot *s = &op->out[i];
    int kd = !strcmp(s->name, out_b) || (out_b2 && !strcmp(s->name, out_b2)) ? K_BATCH
             : out_r && !strcmp(s->name, out_r)                              ? K_ROWS
                                                                             : K_UNKNOWN;
    if (kd != K_UNKNOWN && s->n != 1) return 0;
    for (int j = 0; j < s->n; j++)
      if (!kind_set(k, s->args[j], kd)) return 0;
  }
  return 1;
}

/* PADDLE_C_INFER_LAYOUT=trace also prints the micro-batch decisions */
int pd_infer_trace_on(void) {
  const char *e = getenv("PADDLE_C_INFER_LAYOUT");
  return e && !strcmp(e, "trace");
}

/* what the analysis decides: the chunk size (0: whole batches) and the split point (0: none) */
typedef struct {
  int k, cut;
} mb_plan;

static void plan_chunks(const pd_infer_model *m, const kinds *k, int forced_k, mb_plan *pl);

/* 1 when every sample of m's program is computed on its own (see the top of the file); sets the
 * outputs' kinds (1 batched, 2 rows) in out_kind[m->n_out] and the plan */
static int analyse(const pd_infer_model *m, unsigned char *out_kind, int forced_k, mb_plan *pl) {
  if (!m->prog || m->prog->n_blocks != 1 || m->n_in < 1 || m->n_out < 1) return 0;
  const pd_block *b = m->prog->blocks[0];
  kinds k = {b, 0, NULL, NULL};
  int ok = 1;
  for (int i = 0; ok && i < m->n_in; i++) ok = kind_set(&k, m->in_names[i], K_BATCH);
  for (int i = 0; ok && i < b->n_ops; i++) {
    const pd_opdesc *op = b->ops[i];
    if (!strcmp(op->type, "feed") || !strcmp(op->type, "fetch")) continue;
    ok = op_rule(&k, op);
    if (!ok && pd_infer_trace_on()) fprintf(stderr, "[mbatch] whole batches only: %s\n", op->type);
  }
  for (int i = 0; ok && i < m->n_out; i++) {
    int kd = kind_of(&k, m->out_names[i]);
    ok = kd == K_BATCH || kd == K_ROWS;
    out_kind[i] = (unsigned char)(kd == K_ROWS ? 2 : 1);
  }
  if (ok) plan_chunks(m, &k, forced_k, pl);
  free(k.names);
  free(k.kind);
  return ok;
}

/* per-sample bytes of a batched variable with static extents after dim 0, or -1 */
static int64_t sample_bytes(const pd_var *v) {
  if (!v || v->ndim < 1 || v->dtype < 0) return -1;
  int64_t n = (int64_t)pd_dtype_size((pd_dtype)v->dtype);
  for (int d = 1; d < v->ndim; d++) {
    if (v->dims[d] <= 0) return -1;
    n *= v->dims[d];
  }
  return n;
}

/* bytes of a persistable (static extents; a dynamic one counts 1) */
static int64_t const_bytes(const pd_var *v) {
  if (!v || v->dtype < 0 || v->ndim < 0) return 0;
  int64_t n = (int64_t)pd_dtype_size((pd_dtype)v->dtype);
  for (int d = 0; d < v->ndim; d++) n *= v->dims[d] > 0 ? v->dims[d] : 1;
  return n;
}

/* The last-level cache the rules size against: cpu0's level-3 cache as sysfs reports it (glibc's
 * sysconf answers 384 MB on this 32 MB EPYC VM), else 32 MB; PADDLE_C_INFER_MICROBATCH_L3 (bytes)
 * overrides it (tests, experiments). */
static int64_t l3_bytes(void) {
  const char *e = getenv("PADDLE_C_INFER_MICROBATCH_L3");
  if (e && *e && atoll(e) > 0) return atoll(e);
  for (int i = 0; i < 8; i++) {
    char path[96], buf[32];
    int level = 0;
    long long size = 0;
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
    FILE *f = fopen(path, "r");
    if (!f) break;
    if (fgets(buf, sizeof buf, f)) level = atoi(buf);
    fclose(f);
    if (level != 3) continue;
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
    if (!(f = fopen(path, "r"))) break;
    char unit = 0;
    if (fgets(buf, sizeof buf, f) && sscanf(buf, "%lld%c", &size, &unit) >= 1)
      size *= unit == 'K' ? 1024 : unit == 'M' ? 1024 * 1024 : 1;
    fclose(f);
    if (size > 0) return size;
  }
  return (int64_t)32 << 20;
}

/* the batch the micro-batches are sized for (issue 17's throughput runs) */
enum { MB_REF_BATCH = 16 };

/* Chunk size and split point. Per op, ws = the per-sample bytes of its batched inputs and outputs
 * (-1 where an extent is dynamic). Chunks pay where a whole batch's ws leaves the last-level cache
 * between layers and a chunk's stays in it; they cost a re-read of the op's weights per chunk.
 * - fw = the first op whose weights outweigh a sample's activations at it (w > ws); t = after the
 *   last op before fw whose ws at MB_REF_BATCH samples fills more than half the L3, or after the
 *   last op of unknown ws. Up to t a whole batch's activations leave the cache and the weights are
 *   small; the large-activation layers past fw also read MBs of weights (ResNet-50's stage-3 1x1s,
 *   1.8 MB a sample: chunking them measured no better).
 * - cut = the first op index c >= t, after at least 8 convolutions, where exactly one value is
 *   live across c (made before, read at or after; a batched activation of static per-sample size,
 *   not fetched; the feeds do not count: they are fed whole to the tail): the join copies one
 *   tensor. A fetched value made before c rules c out.
 * - split only where the ops from the cut on read at least 8 MB of weights (MobileNetV3-large
 *   22 MB: split 42.3-42.9 ms vs 46.0-47.2 chunked throughout at batch 16; ppyolo_tiny's 4 MB:
 *   split 63-67 vs 62-63, re-reading 4 MB from cache is cheap).
 * - k (auto): 4 where the program has at least 8 convolutions (a one-convolution model only pays
 *   for joining its fetched values: lite_simple_conv_bn_relu 3.9 -> 6.9 ms at batch 16) and the
 *   weights the chunks read (the front's when split, else all) are at most 48 MB (ResNet-50 chunked
 *   throughout re-reads 100 MB per chunk: slower); halved to 2 while k chunks' largest ws exceeds
 *   half the L3 (ResNet-50's 56x56 layers: 6.9 MB a sample). */
static void plan_chunks(const pd_infer_model *m, const kinds *k, int forced_k, mb_plan *pl) {
  const pd_block *b = m->prog->blocks[0];
  const int n = b->n_ops;
  const int64_t l3 = l3_bytes();
  int64_t *ws = (int64_t *)calloc((size_t)(n ? n : 1), sizeof(int64_t));
  int64_t *w = (int64_t *)calloc((size_t)(n ? n : 1), sizeof(int64_t));
  int *made = (int *)malloc(sizeof(int) * (size_t)(k->n ? k->n : 1)); /* op index making kinds var i */
  int *last = (int *)malloc(sizeof(int) * (size_t)(k->n ? k->n : 1));  /* last op index reading it */
  pl->k = pl->cut = 0;
  if (!ws || !w || !made || !last) goto out;
  for (int i = 0; i < k->n; i++) made[i] = last[i] = -1;
  for (int j = 0; j < n; j++) {
    const pd_opdesc *op = b->ops[j];
    for (int io = 0; io < 2; io++)
      for (int s = 0; s < (io ? op->n_out : op->n_in); s++) {
        const pd_opslot *sl = io ? &op->out[s] : &op->in[s];
        for (int a = 0; a < sl->n; a++) {
          const pd_var *v = pd_block_find_var(b, sl->args[a]);
          if (v && v->persistable) {
            if (!io) w[j] += const_bytes(v);
            continue;
          }
          if (kind_of(k, sl->args[a]) != K_BATCH || ws[j] < 0) continue;
          int64_t sb = sample_bytes(v);
          ws[j] = sb < 0 ? -1 : ws[j] + sb;
        }
      }
  }
  /* each variable's maker and last reader (the analysis' names: latest binding wins) */
  for (int i = 0; i < k->n; i++)
    for (int j = 0; j < n; j++) {
      const pd_opdesc *op = b->ops[j];
      for (int s = 0; made[i] < 0 && s < op->n_out; s++)
        for (int a = 0; a < op->out[s].n; a++)
          if (!strcmp(op->out[s].args[a], k->names[i])) made[i] = j;
      if (pd_opdesc_reads(op, k->names[i])) last[i] = j;
    }
  int t = 0, convs = 0, cut = 0, fw = 0;
  while (fw < n && !(ws[fw] >= 0 && w[fw] > ws[fw])) fw++;
  for (int j = 0; j < n; j++)
    if (ws[j] < 0 || (j < fw && ws[j] * MB_REF_BATCH > l3 / 2)) t = j + 1;
  for (int c = 1; c < n && !cut; c++) {
    convs += in_set(b->ops[c - 1]->type, CONV);
    if (convs < 8 || c < t) continue;
    int live = 0, ok = 1;
    for (int i = 0; ok && i < k->n; i++) {
      int is_feed = 0;
      for (int f = 0; f < m->n_in; f++) is_feed |= !strcmp(m->in_names[f], k->names[i]);
      if (is_feed || made[i] < 0 || made[i] >= c) continue; /* fed whole to the tail, or made there */
      for (int f = 0; f < m->n_out; f++)
        if (!strcmp(m->out_names[f], k->names[i])) ok = 0; /* a fetched value made in the front */
      if (last[i] < c) continue;
      live++;
      ok = ok && k->kind[i] == K_BATCH && sample_bytes(pd_block_find_var(b, k->names[i])) > 0;
    }
    if (ok && live == 1) cut = c;
  }
  const char *es = getenv("PADDLE_C_INFER_MICROBATCH_SPLIT");
  if (es && !strcmp(es, "0")) cut = 0;
  int64_t tail_w = 0, front_w = 0, front_ws = 0;
  for (int j = cut ? cut : n; j < n; j++) tail_w += w[j];
  if (cut && pd_infer_trace_on())
    fprintf(stderr, "[mbatch] tail from op %d (%s) reads %lld bytes of weights: %s\n", cut, b->ops[cut]->type,
            (long long)tail_w, tail_w >= ((int64_t)8 << 20) ? "split" : "not split");
  if (tail_w < ((int64_t)8 << 20)) cut = 0;
  if (!cut) /* the chunks read every weight */
    for (int i = 0; i < b->n_vars; i++)
      if (b->vars[i]->persistable) front_w += const_bytes(b->vars[i]);
  for (int j = 0; j < (cut ? cut : n); j++) {
    if (cut) front_w += w[j];
    if (ws[j] > front_ws) front_ws = ws[j];
  }
  int kk = forced_k;
  if (kk < 0) {
    int nconv = 0;
    for (int j = 0; j < n; j++) nconv += in_set(b->ops[j]->type, CONV);
    kk = nconv >= 8 && front_w <= ((int64_t)48 << 20) ? 4 : 0;
    while (kk > 2 && kk * front_ws > l3 / 2) kk /= 2;
    if (pd_infer_trace_on())
      fprintf(stderr, "[mbatch] auto: %d (%d convolutions, %lld bytes of weights per chunk, L3 %lld)\n", kk, nconv,
              (long long)front_w, (long long)l3);
  }
  pl->k = kk;
  pl->cut = kk > 0 ? cut : 0;
out:
  free(ws);
  free(w);
  free(made);
  free(last);
}

int pd_infer_mbatch_analyse(const pd_infer_model *m, unsigned char *out_kind, int *cut, int *indep) {
  const char *e = getenv("PADDLE_C_INFER_MICROBATCH");
  int k = e && *e ? atoi(e) : -1;
  mb_plan pl = {0, 0};
  *cut = 0;
  *indep = m->layout && m->dev < 0 && analyse(m, out_kind, k == 0 ? -1 : k, &pl);
  if (k == 0 || !*indep) return 0;
  *cut = pl.cut;
  return pl.k;
}

static int add_name(char ***list, int *n, const char *name) {
  for (int i = 0; i < *n; i++)
    if (!strcmp((*list)[i], name)) return 1;
  char **nl = (char **)realloc(*list, sizeof(char *) * (size_t)(*n + 1));
  if (!nl) return 0;
  *list = nl;
  if (!(nl[*n] = strdup(name))) return 0;
  (*n)++;
  return 1;
}

pd_status pd_infer_mbatch_split(PD_Predictor *p, int cut) {
  pd_infer_model *m = p->io->m;
  const pd_block *b = m->prog->blocks[0];
  int ok = 1;
  /* the values made before the cut that the tail reads; the feeds the tail reads */
  for (int j = 0; ok && j < cut; j++)
    for (int o = 0; ok && o < b->ops[j]->n_out; o++)
      for (int a = 0; ok && a < b->ops[j]->out[o].n; a++) {
        const char *name = b->ops[j]->out[o].args[a];
        for (int i = cut; ok && i < b->n_ops; i++)
          if (pd_opdesc_reads(b->ops[i], name)) {
            ok = add_name(&p->mb_live, &p->mb_nlive, name) && add_name(&p->mb_tin, &p->mb_ntin, name);
            break;
          }
      }
  for (int f = 0; ok && f < m->n_in; f++)
    for (int i = cut; ok && i < b->n_ops; i++)
      if (pd_opdesc_reads(b->ops[i], m->in_names[f])) {
        ok = add_name(&p->mb_tin, &p->mb_ntin, m->in_names[f]);
        break;
      }
  pd_status s = ok ? PD_OK : pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  if (s == PD_OK) s = pd_program_clone(m->prog, &p->mb_front);
  if (s == PD_OK) s = pd_block_remove_ops(p->mb_front->blocks[0], cut, p->mb_front->blocks[0]->n_ops);
  if (s == PD_OK) s = pd_program_clone(m->prog, &p->mb_tail);
  if (s == PD_OK) s = pd_block_remove_ops(p->mb_tail->blocks[0], 0, cut);
  if (s == PD_OK) s = pd_executor_new(&p->mb_fexe);
  if (s == PD_OK) s = pd_executor_new(&p->mb_texe);
  if (s == PD_OK) {
    const char *fe = getenv("PADDLE_C_INFER_FETCH");
    pd_executor_set_memplan(p->mb_fexe, m->memory_optim);
    pd_executor_set_memplan(p->mb_texe, m->memory_optim);
    /* the front leaves its fetched values blocked, the join keeps them so, the tail takes them */
    pd_executor_set_layout(p->mb_fexe, 2);
    pd_executor_set_layout(p->mb_texe, (fe && !strcmp(fe, "plain") ? 1 : 2) | 4);
    s = pd_executor_prepare(p->mb_fexe, p->mb_front, 0, m->n_in, (const char *const *)m->in_names, p->mb_nlive,
                            (const char *const *)p->mb_live);
  }
  if (s == PD_OK)
    s = pd_executor_prepare(p->mb_texe, p->mb_tail, 0, p->mb_ntin, (const char *const *)p->mb_tin, m->n_out,
                            (const char *const *)m->out_names);
  if (s != PD_OK) pd_infer_mbatch_free(p);
  return s;
}

void pd_infer_mbatch_free(PD_Predictor *p) {
  pd_executor_free(p->mb_fexe);
  pd_executor_free(p->mb_texe);
  if (p->mb_front) pd_program_release(p->mb_front);
  if (p->mb_tail) pd_program_release(p->mb_tail);
  for (int i = 0; i < p->mb_nlive; i++) free(p->mb_live[i]);
  for (int i = 0; i < p->mb_ntin; i++) free(p->mb_tin[i]);
  free(p->mb_live);
  free(p->mb_tin);
  p->mb_fexe = p->mb_texe = NULL;
  p->mb_front = p->mb_tail = NULL;
  p->mb_live = p->mb_tin = NULL;
  p->mb_nlive = p->mb_ntin = 0;
}

#define DECLINED ((pd_status)-1)

/* the chunks' values of one output when all are blocked alike (float32 [n_c, C, H, W], one layout,
 * one C, H, W, contiguous from offset 0), joined along dim 0 in that layout into dst: the sample is
 * the outermost dimension of nChw<b>c too, so each chunk's storage (padding lanes included) is one
 * copy. 0 (dst untouched) where they are not. */
static int concat_blocked(pd_value *parts, int n, const int64_t *chunk_n, pd_value *dst, pd_status *err) {
  const pd_tensor *f = parts[0].kind == PD_VAL_TENSOR ? parts[0].t : NULL;
  if (!f || !f->layout || f->ndim != 4 || f->dtype != PD_FLOAT32) return 0;
  int64_t rows = 0;
  for (int c = 0; c < n; c++) {
    const pd_tensor *t = parts[c].kind == PD_VAL_TENSOR ? parts[c].t : NULL;
    if (!t || parts[c].lod.n || t->layout != f->layout || t->ndim != 4 || t->dtype != PD_FLOAT32 ||
        t->shape[0] != chunk_n[c] || t->shape[1] != f->shape[1] || t->shape[2] != f->shape[2] ||
        t->shape[3] != f->shape[3] || t->offset || !pd_tensor_is_contiguous(t) || pd_tensor_on_gpu(t))
      return 0;
    rows += t->shape[0];
  }
  int64_t shape[4] = {rows, f->shape[1], f->shape[2], f->shape[3]};
  pd_tensor *o = NULL;
  pd_status s = pd_tensor_empty(PD_FLOAT32, 4, shape, &o);
  if (s == PD_OK) s = pd_layout_reserve(&o, f->layout);
  if (s == PD_OK) {
    o->layout = f->layout;
    char *w = (char *)pd_tensor_data(o);
    for (int c = 0; c < n; c++) {
      size_t nb = (size_t)pd_layout_numel(parts[c].t) * sizeof(float);
      memcpy(w, pd_tensor_data(parts[c].t), nb);
      w += nb;
    }
    pd_value_set(dst, o);
  } else if (o) {
    pd_tensor_release(o);
  }
  *err = s;
  return 1;
}

/* concatenates the chunks' values of one output along dim 0 into dst (plain, contiguous);
 * DECLINED where they are not tensors of one dtype and trailing extents (pd_infer_internal.h) */
pd_status pd_infer_mbatch_join(pd_value *parts, int n, int check_rows, const int64_t *chunk_n,
                               pd_value *dst) {
  pd_tensor *plain[64] = {0};
  int got = 0;
  pd_status s = PD_OK;
  int64_t rows = 0;
  for (int c = 0; c < n && s == PD_OK; c++) {
    pd_tensor *t = parts[c].t;
    if (parts[c].kind != PD_VAL_TENSOR || !t || parts[c].lod.n || t->ndim < 1 || pd_tensor_on_gpu(t)) {
      s = DECLINED;
      break;
    }
    if (check_rows && t->shape[0] != chunk_n[c]) {
      s = DECLINED;
      break;
    }
    pd_tensor *p = NULL;
    if (t->layout) s = pd_layout_to_plain(t, &p);
    else if (!pd_tensor_is_contiguous(t)) s = pd_tensor_contiguous(t, &p);
    else {
      pd_tensor_retain(t);
      p = t;
    }
    if (s != PD_OK) break;
    plain[got++] = p;
    const pd_tensor *f = plain[0];
    if (p->dtype != f->dtype || p->ndim != f->ndim) s = DECLINED;
    for (int d = 1; s == PD_OK && d < p->ndim; d++)
      if (p->shape[d] != f->shape[d]) s = DECLINED;
    rows += p->shape[0];
  }
  pd_tensor *o = NULL;
  if (s == PD_OK && !got) s = DECLINED;
  if (s == PD_OK) {
    int64_t shape[PD_MAX_DIMS];
    memcpy(shape, plain[0]->shape, sizeof shape);
    shape[0] = rows;
    s = pd_tensor_empty(plain[0]->dtype, plain[0]->ndim, shape, &o);
  }
  if (s == PD_OK) {
    char *w = (char *)pd_tensor_data(o);
    for (int c = 0; c < got; c++) {
      size_t nb = (size_t)plain[c]->numel * pd_dtype_size(plain[c]->dtype);
      if (nb) memcpy(w, pd_tensor_data(plain[c]), nb);
      w += nb;
    }
    pd_value_set(dst, o);
  }
  for (int c = 0; c < got; c++) pd_tensor_release(plain[c]);
  return s;
}

int64_t pd_infer_split_batch(const pd_infer_io *io) {
  int64_t N = -1;
  for (int i = 0; i < io->m->n_in; i++) {
    const pd_tensor *t = io->in[i].t;
    if (!t || t->ndim < 1 || t->layout || io->in[i].lod.n || !pd_tensor_is_contiguous(t) || pd_tensor_on_gpu(t))
      return -1;
    if (N < 0) N = t->shape[0];
    if (t->shape[0] != N) return -1;
  }
  return N;
}

/* Runs the predictor's inputs (all of one batch N > k, plain contiguous, no LoD) as chunks of k
 * samples: 1 and *err the run's status, or 0, having changed nothing the caller sees, where the
 * inputs or the fetched values do not allow it (the caller then runs the whole batch; fetched
 * values it cannot join also turn chunking off for the predictor). */
int pd_infer_mbatch_run(PD_Predictor *p, int k, pd_status *err) {
  pd_infer_io *io = p->io;
  pd_infer_model *m = io->m;
  const int64_t N = pd_infer_split_batch(io);
  if (N <= k) return 0;
  int nc = (int)((N + k - 1) / k);
  if (nc > 64) return 0;
  /* split: the chunks run the front and fetch the values live across the cut */
  const int split = p->mb_fexe != NULL;
  pd_executor *ex = split ? p->mb_fexe : p->exe;
  pd_program *prog = split ? p->mb_front : m->prog;
  const int nf = split ? p->mb_nlive : m->n_out;
  const char *const *fnames = (const char *const *)(split ? p->mb_live : m->out_names);
  pd_feed *feeds = (pd_feed *)calloc((size_t)m->n_in, sizeof(pd_feed));
  pd_tensor **views = (pd_tensor **)calloc((size_t)m->n_in, sizeof(pd_tensor *));
  pd_value *parts = (pd_value *)calloc((size_t)nc * (size_t)nf, sizeof(pd_value));
  pd_fetch *fetched = (pd_fetch *)calloc((size_t)(nf > m->n_out ? nf : m->n_out), sizeof(pd_fetch));
  int64_t chunk_n[64];
  pd_status s = feeds && views && parts && fetched ? PD_OK : pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  /* even chunks: 16 by 4 -> 4 x 4; 10 by 4 -> 4 + 3 + 3 (at most two shapes, two plans) */
  int64_t start = 0;
  for (int c = 0; s == PD_OK && c < nc; c++) {
    int64_t cn = N / nc + (c < N % nc ? 1 : 0);
    chunk_n[c] = cn;
    for (int i = 0; s == PD_OK && i < m->n_in; i++) {
      pd_tensor *t = io->in[i].t;
      int64_t shape[PD_MAX_DIMS];
      memcpy(shape, t->shape, sizeof shape);
      shape[0] = cn;
      pd_tensor_release(views[i]);
      views[i] = NULL;
      s = pd_tensor_view(t, t->ndim, shape, t->strides, t->offset + start * t->strides[0], &views[i]);
      feeds[i].name = m->in_names[i];
      feeds[i].t = views[i];
      feeds[i].lod = NULL;
    }
    if (s == PD_OK && pd_infer_trace_on()) fprintf(stderr, "[mbatch] chunk %d: %lld of %lld\n", c, (long long)cn, (long long)N);
    if (s == PD_OK)
      s = pd_executor_run(ex, prog, 0, p->local, m->n_in, feeds, nf, fnames, fetched);
    for (int o = 0; o < nf; o++) {
      if (s == PD_OK) parts[(size_t)o * (size_t)nc + (size_t)c] = fetched[o].v; /* moved */
      else pd_value_clear(&fetched[o].v);
    }
    memset(fetched, 0, sizeof(pd_fetch) * (size_t)nf);
    start += cn;
  }
  pd_value *outs = s == PD_OK ? (pd_value *)calloc((size_t)nf, sizeof(pd_value)) : NULL;
  if (s == PD_OK && !outs) s = pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  for (int o = 0; s == PD_OK && o < nf; o++)
    if (!(split && concat_blocked(parts + (size_t)o * (size_t)nc, nc, chunk_n, &outs[o], &s)))
      s = pd_infer_mbatch_join(parts + (size_t)o * (size_t)nc, nc, split || p->mb_kind[o] == 1, chunk_n, &outs[o]);
  if (s == PD_OK && split) { /* the tail on the whole batch: the joined values and the feeds it reads */
    pd_feed *tf = (pd_feed *)calloc((size_t)p->mb_ntin, sizeof(pd_feed));
    if (!tf) s = pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
    for (int t = 0; s == PD_OK && t < p->mb_ntin; t++) {
      tf[t].name = p->mb_tin[t];
      for (int o = 0; o < nf; o++)
        if (!strcmp(p->mb_live[o], p->mb_tin[t])) tf[t].t = outs[o].t;
      for (int i = 0; i < m->n_in; i++)
        if (!strcmp(m->in_names[i], p->mb_tin[t])) tf[t].t = io->in[i].t;
    }
    if (s == PD_OK && pd_infer_trace_on()) fprintf(stderr, "[mbatch] tail: %lld\n", (long long)N);
    if (s == PD_OK)
      s = pd_executor_run(p->mb_texe, p->mb_tail, 0, p->local, p->mb_ntin, tf, m->n_out,
                          (const char *const *)m->out_names, fetched);
    for (int o = 0; o < m->n_out; o++) {
      if (s == PD_OK) {
        pd_value_clear(&io->out[o]);
        io->out[o] = fetched[o].v; /* moved */
      } else {
        pd_value_clear(&fetched[o].v);
      }
    }
    free(tf);
    for (int o = 0; o < nf; o++) pd_value_clear(&outs[o]);
  } else if (s == PD_OK) {
    for (int o = 0; o < nf; o++) {
      pd_value_clear(&io->out[o]);
      io->out[o] = outs[o]; /* moved */
    }
  } else if (outs) {
    for (int o = 0; o < nf; o++) pd_value_clear(&outs[o]);
  }
  free(outs);
  for (int i = 0; views && i < m->n_in; i++) pd_tensor_release(views[i]);
  for (size_t j = 0; parts && j < (size_t)nc * (size_t)nf; j++) pd_value_clear(&parts[j]);
  free(feeds);
  free(views);
  free(parts);
  free(fetched);
  if (s == DECLINED) {
    if (pd_infer_trace_on()) fprintf(stderr, "[mbatch] fetched values not joinable: whole batches from now on\n");
    p->mb = 0;
    return 0;
  }
  *err = s;
  return 1;
}
