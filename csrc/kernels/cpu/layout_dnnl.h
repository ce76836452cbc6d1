/* Blocked activations for the inference executor (docs/arch/inference.md, "Blocked activations in
 * the predictor"): a float32 [N, C, H, W] tensor whose `layout` is b (8 or 16) holds oneDNN's
 * nChw<b>c order over ceil(C / b) * b channels (oneDNN's padded dims: when C is not a multiple of
 * b the storage is larger than the plain tensor's and the padding lanes are zero; the shape stays
 * [N, C, H, W]). In NHWC mode the layout is C itself (no padding). Only the executor of a predictor
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
/* the layout a value of C channels and HW pixels per plane takes in the predictor: C (NHWC mode,
 * C a multiple of 8), the block (C a multiple of it, or padded to it: HW > 1 and
 * PADDLE_C_INFER_PAD is not 0) or 0 (stays plain) */
int pd_layout_block_for(int64_t C, int64_t HW);
/* channels a blocked value of C channels stores in layout blk (C rounded up to the block) */
static inline int64_t pd_layout_cpad(int64_t C, int blk) { return blk > 0 ? (C + blk - 1) / blk * blk : C; }
/* 1 when t is blocked with padding lanes (C not a multiple of its block) */
static inline int pd_layout_padded(const pd_tensor *t) {
  return t->layout > 0 && t->ndim == 4 && t->shape[1] % t->layout != 0;
}
/* elements t's data takes (the padded count for a padded blocked t, else numel) */
int64_t pd_layout_numel(const pd_tensor *t);
/* makes *o (float32 [N, C, H, W], contiguous) able to hold layout blk: when its storage is too
 * small for the padded channels, *o is released and replaced by a new tensor of the same shape
 * over a storage of the padded size */
pd_status pd_layout_reserve(pd_tensor **o, int blk);
/* zeroes t's padding lanes (nothing when t is not padded) */
void pd_layout_zero_pad(pd_tensor *t);
/* 1 when t's padding lanes are all zero (or t has none) */
int pd_layout_pad_clean(const pd_tensor *t);
/* a plain (NCHW, contiguous) copy of blocked t; a new reference to t itself when t is plain */
pd_status pd_layout_to_plain(pd_tensor *t, pd_tensor **out);
/* copies float32 [N, C, H, W] t (either layout) into dst in layout blk (0 plain, else nChw<blk>c:
 * dst holds the padded channel count, the padding lanes written zero): a memcpy when the layouts
 * agree (nothing when dst is t's own data), else the reorder */
void pd_layout_copy(const pd_tensor *t, float *dst, int blk);
/* pool2d on a blocked x (*out allocated by the caller, plain-shaped [N, C, OH, OW]; replaced by
 * pd_layout_reserve where the padded output needs more room): global / adaptive-to-1 pooling
 * reads the blocks directly and writes a plain [N, C, 1, 1], windowed max/avg runs oneDNN's
 * pooling on nChw<b>c and leaves *out blocked. *done = 0 when the geometry is not one of those
 * (the caller converts x and runs the plain kernel). */
pd_status pd_layout_pool2d(const pd_pool_geom *g, pd_tensor *x, pd_tensor **out, int *done);
/* conv_dnnl.c's engine and this thread's stream (0 when oneDNN is off) */
int pd_dnnl_context(dnnl_engine_t *eng, dnnl_stream_t *stream);
#endif
