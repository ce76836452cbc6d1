/* How LoD flows through a program's kernels at run time (the rules are listed in pd_executor.c,
 * "LoD", where instructions get their LoD bindings): the offsets tensor bound to an empty
 * `<x>_lod` argument, and the LoD the outputs of a kernel instruction receive. */
#include <stdlib.h>
#include <string.h>
#include "pd_exec_internal.h"
#include "../core/pd_device.h"
#include "../ops/generated/pd_ops_gen.h"

/* LoD rule 1: level `level` of v's LoD as an int64 tensor (NULL when v has no LoD) */
pd_status pd_exec_lod_tensor(const pd_value *v, int level, const pd_instr *in, pd_tensor **out) {
  *out = NULL;
  if (!v || v->kind != PD_VAL_TENSOR || v->lod.n == 0) return PD_OK;
  int l = level < 0 ? v->lod.n + level : level;
  if (l < 0 || l >= v->lod.n)
    return pd_set_error(PD_ERR_OUT_OF_RANGE, "[%s] LoD level %d is out of range: the input has %d level%s",
                        in->desc ? in->desc->type : pd_op_defs[in->op].name, level, v->lod.n, v->lod.n > 1 ? "s" : "");
  int64_t len = v->lod.len[l];
  PD_TRY(pd_tensor_empty(PD_INT64, 1, &len, out));
  memcpy(pd_tensor_data(*out), v->lod.offs[l], sizeof(int64_t) * (size_t)len);
  return PD_OK;
}

static pd_status lod_fill(pd_lod *dst, const pd_lod *src, int keep, const pd_tensor *off, int n);

/* the first `keep` levels of src, then (if off) the offsets in off */
static pd_status lod_make(pd_lod *dst, const pd_lod *src, int keep, const pd_tensor *off) {
  int n = keep + (off != NULL);
  memset(dst, 0, sizeof *dst);
  if (!n) return PD_OK;
  pd_tensor *host = NULL;
  if (off && pd_tensor_on_gpu(off)) { /* offsets a GPU plan computed are read on the host */
    PD_TRY(pd_tensor_to_device((pd_tensor *)off, PD_CPU, 0, &host));
    off = host;
  }
  pd_status st = lod_fill(dst, src, keep, off, n);
  pd_tensor_release(host);
  return st;
}

static pd_status lod_fill(pd_lod *dst, const pd_lod *src, int keep, const pd_tensor *off, int n) {
  dst->len = (int64_t *)calloc((size_t)n, sizeof(int64_t));
  dst->offs = (int64_t **)calloc((size_t)n, sizeof(int64_t *));
  if (!dst->len || !dst->offs) {
    free(dst->len);
    free(dst->offs);
    memset(dst, 0, sizeof *dst);
    return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  }
  dst->n = n;
  for (int i = 0; i < n; i++) {
    int64_t len = i < keep ? src->len[i] : off->numel;
    dst->len[i] = len;
    dst->offs[i] = (int64_t *)malloc(sizeof(int64_t) * (size_t)(len > 0 ? len : 1));
    if (!dst->offs[i]) {
      pd_lod_clear(dst);
      return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
    }
    if (i < keep) memcpy(dst->offs[i], src->offs[i], sizeof(int64_t) * (size_t)len);
    else
      for (int64_t k = 0; k < len; k++)
        dst->offs[i][k] = pd_load_as_int64((const char *)pd_tensor_data(off) + k * off->strides[0] * (int64_t)pd_dtype_size(off->dtype), off->dtype);
  }
  return PD_OK;
}

/* LoD rules 2 and 3, after a kernel instruction set its outputs. first: the LoD its first input
 * had (a copy), seq: the value of its first LoD input (rule 1) or NULL */
pd_status pd_exec_lod_flow(pd_exec *r, const pd_instr *in, pd_tensor **o, int n, const pd_lod *first, int64_t first_rows,
                          const pd_value *seq) {
  const pd_lod *sl = seq && seq->lod.n ? &seq->lod : NULL;
  for (int k = 0; k < n && k < in->n_out; k++) {
    if (in->out[k] < 0 || !o[k]) continue;
    pd_value *v = r->bound[in->out[k]];
    if (in->lod_out) {
      if (in->lod_out[k] >= 0) continue; /* an offsets output itself carries none */
      int from = -1;
      for (int j = 0; j < n; j++)
        if (in->lod_out[j] == k) from = j;
      if (from >= 0) {
        const pd_tensor *off = o[from];
        if (!off || off->numel == 0 || off->ndim != 1) continue;
        /* outer levels of the sequence input when its last level has as many sequences */
        int keep = sl && sl->n >= 2 && sl->offs[sl->n - 2][sl->len[sl->n - 2] - 1] == off->numel - 1 ? sl->n - 1 : 0;
        pd_lod l;
        PD_TRY(lod_make(&l, sl, keep, off));
        pd_lod_clear(&v->lod);
        v->lod = l;
        continue;
      }
    }
    int64_t rows = o[k]->ndim ? o[k]->shape[0] : -1;
    if (first && first->n && rows == first_rows) {
      PD_TRY(pd_lod_copy(&v->lod, first));
    } else if (sl && sl->n >= 2 && rows == sl->len[sl->n - 1] - 1) {
      pd_lod l;
      PD_TRY(lod_make(&l, sl, sl->n - 1, NULL));
      pd_lod_clear(&v->lod);
      v->lod = l;
    }
  }
  return PD_OK;
}
