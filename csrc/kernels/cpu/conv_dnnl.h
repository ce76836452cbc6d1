/* float32 convolution through oneDNN primitives (conv_dnnl.c): forward (optional fused bias),
 * backward-data (= transposed convolution) and backward-weights (optional bias gradient), with an
 * LRU cache of primitives keyed by the geometry. conv.c calls these and falls back to im2col. */
#ifndef PD_CONV_DNNL_H
#define PD_CONV_DNNL_H
#include "conv_geom.h"

/* mode 0: y = conv(x, w) [+ bias]; 1: x = conv_data_grad(y, w); 2: w = conv_filter_grad(x, y)
 * [and bias = sum of y over N and space]. Buffers are contiguous in the geometry's layout (NCHW or
 * NHWC), w is [O, C/G, *k]. Returns 1 when oneDNN ran, 0 when it declined (use the fallback), or
 * -1 with the error set. */
int pd_conv_dnnl(const pd_conv_geom *g, int mode, float *x, float *w, float *y, float *bias);

/* pd_conv_dnnl on bfloat16 buffers (x, w, y and the bias all bfloat16; float32 accumulation, one
 * rounding of each output) through oneDNN's bf16 primitives; the caller checks
 * pd_bf16_units_enabled() (without the units oneDNN would emulate them slowly). Same returns. */
int pd_conv_dnnl_bf16(const pd_conv_geom *g, int mode, void *x, void *w, void *y, void *bias);

/* Non-zero while a predictor with EnableMkldnnBfloat16 runs (set by the executor around its
 * instructions): pd_conv_dnnl_post / pd_conv_dnnl_blocked then run bfloat16 primitives on the
 * float32 buffers where pd_bf16_units_enabled() (x and w converted by the reorders in, w once per
 * instruction through its weight cache; y written in float32). */
extern _Thread_local int pd_conv_bf16_infer;
/* the convolution of g runs in bf16 now: pd_conv_bf16_infer, pd_bf16_units_enabled() and a window
 * of 64 or more products (input channels per group x taps; the thinner ones stay float32) */
int pd_conv_bf16_infer_on(const pd_conv_geom *g);

/* Inference forward with oneDNN post-ops (fused_conv2d): y = act(conv(x, w) + bias), act a chain of
 * up to two eltwise post-ops (alg: a dnnl_alg_kind_t eltwise kind, alpha, beta as oneDNN defines
 * them), bias folded into the primitive. Same return convention as pd_conv_dnnl, plus 2: it ran
 * with the bias but without the post-ops (the caller applies them; oneDNN's GEMM convolution
 * applies post-ops slowly). */
typedef struct {
  int n;
  int alg[2];
  float alpha[2], beta[2];
  int sum; /* 1: y holds an addend on entry, added before the eltwise post-ops (oneDNN's sum post-op;
            * the residual connection of fused_conv2d); only where y needs no reorder (the
            * primitive writes the caller's layout), else declined (0) with y untouched. The plain
            * pointwise path (return 2) never applies it. */
} pd_conv_post;
int pd_conv_dnnl_post(const pd_conv_geom *g, float *x, float *w, float *y, float *bias, const pd_conv_post *post);

/* pd_conv_dnnl_post (post may be NULL) with x and/or y in oneDNN's blocked layout nChw<b>c (xblk /
 * yblk = b, 8 or 16; 0: plain NCHW): the inference executor's blocked activations (layout_dnnl.h).
 * 2-D NCHW geometries only; C (xblk) / O (yblk) not a multiple of the block is padded (y then
 * needs ceil(O / b) * b channels of room, written with zero padding lanes; grouped convolutions
 * other than depthwise ones need whole blocks); 0 when declined. */
/* Reordered weights kept between calls: the inference executor points pd_conv_wcache_cur at an
 * instruction's own cache while its forward convolution runs (the filter is a read-only
 * persistable of a loaded model that outlives the plan); the weights' reorder then runs once per
 * (filter buffer, primitive weight layout) instead of every call. NULL (eager, training): none. */
typedef struct pd_conv_wcache pd_conv_wcache;
extern _Thread_local pd_conv_wcache **pd_conv_wcache_cur;
void pd_conv_wcache_free(pd_conv_wcache *c);
int64_t pd_conv_wcache_bytes(const pd_conv_wcache *c);
/* One store of those weights per loaded model, shared by its predictor's plans (one per input shape),
 * its clones and the parts of a batch split across threads (pd_infer_predictor.c pred_run sets
 * pd_conv_wstore_cur for a run; the executor sets pd_conv_wstore_on for the instructions whose
 * filter is a persistable). An instruction's cache takes a stored copy where one exists; a copy it
 * makes itself is published once complete (a reorder at once, a pd_conv_wcache_aux transform on the
 * instruction's next call, after its caller filled it), or dropped for one another thread published
 * first. Stored copies are immutable and live as long as the store. */
typedef struct pd_conv_wstore pd_conv_wstore;
extern _Thread_local pd_conv_wstore *pd_conv_wstore_cur;
extern _Thread_local int pd_conv_wstore_on;
pd_conv_wstore *pd_conv_wstore_new(void);
void pd_conv_wstore_free(pd_conv_wstore *s);
/* the bytes stored; *taken (if not NULL): how many times a cache took a stored copy */
int64_t pd_conv_wstore_bytes(pd_conv_wstore *s, int64_t *taken);
/* a second transform of the running instruction's filter w kept in its cache (conv_winograd.c's
 * transformed filter): size bytes, 64-byte aligned, identified by (w, key, size); *fresh = 1 when
 * newly allocated (the caller fills it). NULL without a cache (eager, training) or memory. */
float *pd_conv_wcache_aux(const void *w, int64_t key, size_t size, int *fresh);

/* The pre-read: each thread of the calling parallel region reads one float per 64-byte line of
 * [p, p + bytes) in order, before a kernel whose own reads of those bytes are scattered (oneDNN's
 * convolutions, conv_pw_small.c's 7-position rows 3 KB apart, the Winograd GEMM's shared V read
 * tile-major), so the lines arrive by the hardware's sequential prefetch, not one miss at a time.
 * The two vCPUs of these machines sit on one core complex or on two (a line between them 42 or
 * 185 ns one way, alternating for minutes): on two, half of each layer's input, written by the
 * other core, comes from the far L3. ResNet-50 batch 1 in the predictor, two predictors
 * alternated in one process, 2 threads: pw_small's input 0.977-0.988 of the time, the shared V
 * 0.99, oneDNN's source up to 1 MB 0.971-0.983 across complexes and 0.995 on one (all of stage
 * 1's 3.2 MB ones too: 1.03 on one). pd_conv_pretouch_on: the predictor (a weight cache is
 * current), bytes up to 1 MB (which 1: oneDNN's source) or 4 MB (2: pw_small's input, 4: the
 * Winograd V); PADDLE_C_PRETOUCH (read per call, for A/B runs): unset all, else the bits to keep. */
int pd_conv_pretouch_on(size_t bytes, int which);
void pd_conv_pretouch(const void *p, size_t bytes);

int pd_conv_dnnl_blocked(const pd_conv_geom *g, float *x, float *w, float *y, float *bias, const pd_conv_post *post,
                         int xblk, int yblk);
#endif
