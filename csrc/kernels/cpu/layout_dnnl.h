/* Blocked activations for the inference executor (docs/architecture.md, "Blocked activations in
 * the predictor"): a float32 [N, C, H, W] tensor whose `layout` is b (8 or 16) holds oneDNN's
 * nChw<b>c order (C a multiple of b, so the same bytes as plain). Only the executor of a predictor
 * sets pd_layout_want, around the instructions of layout-aware kernels (fused_conv2d, pool2d)
 * whose output may stay blocked; eager and static training never see a blocked tensor. */
#ifndef PD_LAYOUT_DNNL_H
#define PD_LAYOUT_DNNL_H
#include <oneapi/dnnl/dnnl.h>
#include "conv_geom.h"
#include "pd_kernel_util.h"

/* 1 while the running instruction's output may be written blocked (set by the executor) */
extern _Thread_local int pd_layout_want;
/* the block oneDNN's convolutions use on this CPU: 16 with AVX-512, else 8 */
int pd_layout_block(void);
/* 1 when the predictor keeps activations channels-last (NHWC, oneDNN's acdb: the layout of oneDNN
 * 3's brgconv kernels, which Paddle Inference 2.6 runs): a blocked tensor of C channels then has
 * layout C (nChw<C>c is NHWC). Opt-in (PADDLE_C_INFER_NHWC=1); by default nChw8c/16c blocks. */
int pd_layout_nhwc(void);
/* the layout a value of C channels takes in the predictor: C (NHWC mode, C a multiple of 8), the
 * block (C a multiple of it) or 0 (stays plain) */
int pd_layout_block_for(int64_t C);
/* a plain (NCHW, contiguous) copy of blocked t; a new reference to t itself when t is plain */
pd_status pd_layout_to_plain(pd_tensor *t, pd_tensor **out);
/* copies float32 [N, C, H, W] t (either layout) into dst (t's bytes count) in layout blk (0 plain, else
 * nChw<blk>c with C a multiple of blk): a memcpy when the layouts agree (nothing when dst is t's
 * own data), else the reorder */
void pd_layout_copy(const pd_tensor *t, float *dst, int blk);
/* pool2d on a blocked x (out allocated by the caller, plain-shaped [N, C, OH, OW]): global /
 * adaptive-to-1 pooling reads the blocks directly (the [N, C, 1, 1] result is the same in both
 * layouts), windowed max/avg runs oneDNN's pooling on nChw<b>c and leaves out blocked. *done = 0
 * when the geometry is not one of those (the caller converts x and runs the plain kernel). */
pd_status pd_layout_pool2d(const pd_pool_geom *g, pd_tensor *x, pd_tensor *out, int *done);
/* conv_dnnl.c's engine and this thread's stream (0 when oneDNN is off) */
int pd_dnnl_context(dnnl_engine_t *eng, dnnl_stream_t *stream);
#endif
