/* C unit tests of row-sparse gradients (csrc/autograd/sparse_grad.c, csrc/kernels/cpu/
 * selected_rows.c) against hand-computed values: embedding(sparse=True) accumulating on a leaf
 * over two backward passes, merging, densifying on read, folding with a dense gradient, clearing,
 * and the sgd_sparse_/adam_sparse_ kernels with repeated unsorted rows. The ASan/UBSan build runs
 * it with leak detection, so every reference the sparse path takes is checked to be given back. */
#include <math.h>
#include <string.h>
#include "autograd/pd_autograd.h"
#include "ops/generated/pd_ops_gen.h"
#include "pd_test.h"

static pd_tensor *mk(pd_dtype dt, int ndim, const int64_t *shape, const void *data) {
  pd_tensor *t = NULL;
  if (pd_tensor_empty(dt, ndim, shape, &t) != PD_OK) return NULL;
  memcpy(pd_tensor_data(t), data, pd_dtype_size(dt) * (size_t)t->numel);
  return t;
}

static pd_tensor *run1(int op, const void *args) {
  pd_tensor *buf[4], **o = buf, *r;
  int n = -4;
  if (pd_op_run(op, args, &o, &n) != PD_OK) return NULL;
  r = o[0];
  for (int i = 1; i < n; i++) pd_tensor_release(o[i]);
  return r;
}

static int close_to(const double *a, const double *b, int64_t n) {
  for (int64_t i = 0; i < n; i++)
    if (fabs(a[i] - b[i]) > 1e-12) return 0;
  return 1;
}

/* backward of embedding(ids, w, sparse) with output gradient g (values [n, 2]) */
static pd_status emb_backward(pd_tensor *w, const int64_t *ids, int64_t n, const double *g) {
  int64_t sh[2] = {n, 2};
  pd_tensor *ix = mk(PD_INT64, 1, &n, ids), *gt = mk(PD_FLOAT64, 2, sh, g);
  pd_embedding_args a = {ix, w, -1, 1};
  pd_tensor *out = run1(PD_OP_EMBEDDING, &a);
  pd_status s = out ? pd_autograd_run(&out, &gt, 1, NULL, 0, NULL, 0, 0, 0) : PD_ERR_FATAL;
  pd_tensor_release(out);
  pd_tensor_release(ix);
  pd_tensor_release(gt);
  return s;
}

static void test_leaf_accumulates_row_sparse(void) {
  int64_t sh[2] = {5, 2};
  double w0[10] = {0};
  pd_tensor *w = mk(PD_FLOAT64, 2, sh, w0);
  w->stop_gradient = 0;
  const int64_t ids1[4] = {3, 1, 3, 0}, ids2[2] = {4, 1};
  const double g1[8] = {1, 2, 3, 4, 5, 6, 7, 8}, g2[4] = {10, 20, 30, 40};
  CHECK(emb_backward(w, ids1, 4, g1) == PD_OK);
  CHECK(emb_backward(w, ids2, 2, g2) == PD_OK);
  pd_autograd_meta *m = w->autograd;
  CHECK(m && !m->grad && m->sp_rows && m->sp_rows->numel == 6); /* concatenated, not dense */
  pd_tensor *r, *v;
  CHECK(pd_tensor_sparse_grad(w, &r, &v) == PD_OK);
  const int64_t want_r[4] = {0, 1, 3, 4};
  const double want_v[8] = {7, 8, 3 + 30, 4 + 40, 1 + 5, 2 + 6, 10, 20};
  CHECK(r && r->numel == 4 && !memcmp(pd_tensor_data(r), want_r, sizeof want_r));
  CHECK(v && close_to((const double *)pd_tensor_data(v), want_v, 8));
  pd_tensor_release(r);
  pd_tensor_release(v);
  /* read densifies, keeps the rows: still row-sparse for an optimizer */
  pd_tensor *d = pd_tensor_grad(w);
  const double want_d[10] = {7, 8, 33, 44, 0, 0, 6, 8, 10, 20};
  CHECK(d && close_to((const double *)pd_tensor_data(d), want_d, 10));
  CHECK(pd_tensor_sparse_grad(w, &r, &v) == PD_OK);
  CHECK(r && r->numel == 4 && v && close_to((const double *)pd_tensor_data(v), want_v, 8));
  pd_tensor_release(r);
  pd_tensor_release(v);
  /* a dense gradient folds everything into a dense sum: w + w gives 2 everywhere */
  pd_add_args aa = {w, w};
  pd_tensor *y = run1(PD_OP_ADD, &aa), *ones = NULL;
  CHECK(y != NULL);
  CHECK(pd_tensor_zeros(PD_FLOAT64, 2, sh, &ones) == PD_OK);
  pd_tensor_fill_(ones, 1.0, 0.0);
  CHECK(pd_autograd_run(&y, &ones, 1, NULL, 0, NULL, 0, 0, 0) == PD_OK);
  CHECK(!m->sp_rows && !m->sp_values);
  double want2[10];
  for (int i = 0; i < 10; i++) want2[i] = want_d[i] + 2;
  CHECK(close_to((const double *)pd_tensor_data(pd_tensor_grad(w)), want2, 10));
  /* sparse onto dense adds in place */
  CHECK(emb_backward(w, ids2, 2, g2) == PD_OK);
  want2[8] += 10, want2[9] += 20, want2[2] += 30, want2[3] += 40;
  CHECK(close_to((const double *)pd_tensor_data(pd_tensor_grad(w)), want2, 10));
  pd_tensor_release(y);
  pd_tensor_release(ones);
  /* clear (set_to_zero) keeps an empty row-sparse gradient that reads as zeros */
  CHECK(emb_backward(w, ids1, 4, g1) == PD_OK);
  pd_autograd_meta *m2 = w->autograd;
  CHECK(pd_sparse_grad_clear(m2, w, 1) == PD_OK); /* no-op: w is dense now */
  pd_tensor_release(m2->grad);
  m2->grad = NULL;
  CHECK(emb_backward(w, ids1, 4, g1) == PD_OK);
  CHECK(pd_sparse_grad_clear(m2, w, 1) == PD_OK);
  CHECK(m2->sp_rows && m2->sp_rows->numel == 0 && !m2->grad);
  d = pd_tensor_grad(w);
  CHECK(d && close_to((const double *)pd_tensor_data(d), w0, 10));
  pd_tensor_release(w);
}

static void test_sparse_updates(void) {
  int64_t sh[2] = {4, 2}, n = 3, vs[2] = {3, 2}, one = 1;
  const double p0[8] = {1, 2, 3, 4, 5, 6, 7, 8}, vals[6] = {1, 1, 2, 2, 4, 4};
  const int64_t rows[3] = {2, 0, 2};
  pd_tensor *p = mk(PD_FLOAT64, 2, sh, p0), *r = mk(PD_INT64, 1, &n, rows);
  pd_tensor *v = mk(PD_FLOAT64, 2, vs, vals);
  pd_sgd_sparse__args sa = {p, r, v, 0.5};
  pd_tensor *o = run1(PD_OP_SGD_SPARSE_, &sa);
  const double want[8] = {1 - 1, 2 - 1, 3, 4, 5 - 2.5, 6 - 2.5, 7, 8}; /* row 2: 0.5 (1 + 4) */
  CHECK(o == p && close_to((const double *)pd_tensor_data(p), want, 8));
  pd_tensor_release(o);
  /* adam, lazy: only rows 0 and 2 (merged: 1 + 4 = 5) move; first step, zero moments */
  pd_tensor *m1 = NULL, *m2 = NULL;
  double b1v = 0.9, b2v = 0.999;
  pd_tensor *b1 = mk(PD_FLOAT64, 1, &one, &b1v), *b2 = mk(PD_FLOAT64, 1, &one, &b2v);
  pd_tensor_zeros(PD_FLOAT64, 2, sh, &m1);
  pd_tensor_zeros(PD_FLOAT64, 2, sh, &m2);
  pd_adam_sparse__args aa = {p, r, v, m1, m2, b1, b2, 0.1, 0.9, 0.999, 0.0, 1, 0.0};
  double before[8];
  memcpy(before, pd_tensor_data(p), sizeof before);
  o = run1(PD_OP_ADAM_SPARSE_, &aa);
  CHECK(o == p);
  pd_tensor_release(o);
  const double *pd = (const double *)pd_tensor_data(p), *md = (const double *)pd_tensor_data(m1);
  /* step 1, eps 0: update = lr sqrt(1-b2)/(1-b1) * (1-b1) g / sqrt((1-b2) g^2) = lr sign(g) */
  CHECK(fabs(pd[0] - (before[0] - 0.1)) < 1e-12 && fabs(pd[4] - (before[4] - 0.1)) < 1e-12);
  CHECK(pd[2] == before[2] && pd[6] == before[6] && md[2] == 0 && fabs(md[4] - 0.5) < 1e-12);
  CHECK(fabs(*(double *)pd_tensor_data(b1) - 0.81) < 1e-15);
  /* not lazy: row 1 has a moment of 0 and stays; rows with moments move with zero gradient */
  double m1_row0 = md[0];
  aa.lazy_mode = 0;
  aa.epsilon = 1e-8; /* rows 1 and 3 have zero moments: 0 / eps */
  memcpy(before, pd_tensor_data(p), sizeof before);
  o = run1(PD_OP_ADAM_SPARSE_, &aa);
  pd_tensor_release(o);
  CHECK(pd[2] == before[2] && pd[6] == before[6] && md[0] != m1_row0);
  pd_tensor *bad = mk(PD_INT64, 1, &n, (const int64_t[]){0, 9, 1});
  aa.rows = bad;
  CHECK(run1(PD_OP_ADAM_SPARSE_, &aa) == NULL && pd_last_status() == PD_ERR_OUT_OF_RANGE);
  pd_tensor *objs[] = {p, r, v, m1, m2, b1, b2, bad};
  for (size_t i = 0; i < sizeof objs / sizeof *objs; i++) pd_tensor_release(objs[i]);
}

int main(void) {
  pd_autograd_init();
  RUN(test_leaf_accumulates_row_sparse);
  RUN(test_sparse_updates);
  return PD_TEST_RESULT();
}
