/* Helpers of the sequence (LoD) kernels (sequence.c, sequence_nn.c): reading offsets and index
 * tensors into int64 arrays with their checks, float64 working copies (the arithmetic kernels
 * compute in double and cast into their float32/float64 outputs) and output creation for the
 * outputs whose shape depends on offset values. */
#ifndef PD_SEQUENCE_UTIL_H
#define PD_SEQUENCE_UTIL_H
#include <stdlib.h>
#include <string.h>
#include "pd_kernel_util.h"

/* n sequences: rows [off[i], off[i + 1]) */
typedef struct {
  int64_t n;
  int64_t *off;
} pd_seq;

static inline void pd_seq_free(pd_seq *s) {
  free(s->off);
  s->off = NULL;
}

/* Every element of an integer tensor (row-major) into a new int64 array (*n elements). */
static inline pd_status pd_seq_ints(const pd_tensor *t, int64_t **out, int64_t *n) {
  *n = 0;
  *out = NULL;
  pd_tensor *c;
  PD_TRY(pd_tensor_contiguous((pd_tensor *)t, &c));
  int64_t *v = (int64_t *)malloc(sizeof(int64_t) * (size_t)(c->numel > 0 ? c->numel : 1));
  if (!v) {
    pd_tensor_release(c);
    return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  }
  const char *p = c->numel ? (const char *)pd_tensor_data(c) : NULL;
  size_t es = pd_dtype_size(c->dtype);
  for (int64_t i = 0; i < c->numel; i++) v[i] = pd_load_as_int64(p + (size_t)i * es, c->dtype);
  *n = c->numel;
  pd_tensor_release(c);
  *out = v;
  return PD_OK;
}

/* Offsets of lod checked against a tensor of `rows` rows (rows < 0: not checked). A missing lod
 * is an error naming the input (a program value fed without a LoD). */
static inline pd_status pd_seq_read(const char *op, const char *name, const pd_tensor *lod, int64_t rows,
                                    pd_seq *s) {
  s->off = NULL;
  s->n = 0;
  if (!lod)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] input %s carries no LoD (sequence offsets): feed a "
                        "LoDTensor (paddle.static create_lod_tensor) or give the offsets", op, name);
  int64_t cnt = 0;
  PD_TRY(pd_seq_ints(lod, &s->off, &cnt));
  s->n = cnt - 1;
  pd_status st = PD_OK;
  if (cnt < 1 || s->off[0] != 0)
    st = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] the offsets of %s must start at 0", op, name);
  for (int64_t i = 0; st == PD_OK && i < s->n; i++)
    if (s->off[i + 1] < s->off[i])
      st = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] the offsets of %s decrease at sequence %lld (%lld -> %lld)",
                        op, name, (long long)i, (long long)s->off[i], (long long)s->off[i + 1]);
  if (st == PD_OK && rows >= 0 && s->off[s->n] != rows)
    st = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] the offsets of %s end at %lld, but %s has %lld rows", op, name,
                      (long long)s->off[s->n], name, (long long)rows);
  if (st != PD_OK) pd_seq_free(s);
  return st;
}

/* Offsets [0, 1, ..., rows]: every row its own sequence. */
static inline pd_status pd_seq_rows(int64_t rows, pd_seq *s) {
  s->n = rows;
  s->off = (int64_t *)malloc(sizeof(int64_t) * (size_t)(rows + 1));
  if (!s->off) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  for (int64_t i = 0; i <= rows; i++) s->off[i] = i;
  return PD_OK;
}

/* Elements per row (the product of the dims after the first). */
static inline int64_t pd_seq_width(const pd_tensor *t) {
  int64_t w = 1;
  for (int d = 1; d < t->ndim; d++) w *= t->shape[d];
  return w;
}

/* A contiguous float64 copy (t itself, retained, when already one). */
static inline pd_status pd_seq_f64(pd_tensor *t, pd_tensor **out) {
  pd_tensor *c;
  PD_TRY(pd_tensor_cast(t, PD_FLOAT64, &c));
  pd_status s = pd_tensor_contiguous(c, out);
  pd_tensor_release(c);
  return s;
}

/* *slot (created with shape/dtype if the runner did not allocate it) := src cast to its dtype. */
static inline pd_status pd_seq_store(pd_tensor **slot, pd_tensor *src, pd_dtype dt) {
  if (!*slot) PD_TRY(pd_tensor_empty(dt, src->ndim, src->shape, slot));
  if (!src->numel) return PD_OK;
  return pd_tensor_copy_(*slot, src);
}

/* Output k created when the runner left it NULL (its shape depends on the data). */
static inline pd_status pd_seq_out(pd_tensor **out, int k, pd_dtype dt, int ndim, const int64_t *shape) {
  if (out[k]) return PD_OK;
  return pd_tensor_empty(dt, ndim, shape, &out[k]);
}

/* An int64 offsets tensor from an array. */
static inline pd_status pd_seq_off_tensor(const int64_t *off, int64_t n, pd_tensor **slot) {
  int64_t len = n;
  if (!*slot) PD_TRY(pd_tensor_empty(PD_INT64, 1, &len, slot));
  if ((*slot)->numel != n)
    return pd_set_error(PD_ERR_FATAL, "sequence kernel: offsets output of %lld elements, expected %lld",
                        (long long)(*slot)->numel, (long long)n);
  if (n) memcpy(pd_tensor_data(*slot), off, sizeof(int64_t) * (size_t)n);
  return PD_OK;
}

#define PD_SEQ_K2(op)                                                                                     \
  pd_status pd_kernel_##op##_f32(const void *a, pd_tensor **o, int n) { return op##_impl(a, o, n); }      \
  pd_status pd_kernel_##op##_f64(const void *a, pd_tensor **o, int n) { return op##_impl(a, o, n); }
#define PD_SEQ_K4(op)                                                                                     \
  PD_SEQ_K2(op)                                                                                           \
  pd_status pd_kernel_##op##_i32(const void *a, pd_tensor **o, int n) { return op##_impl(a, o, n); }      \
  pd_status pd_kernel_##op##_i64(const void *a, pd_tensor **o, int n) { return op##_impl(a, o, n); }

#endif
