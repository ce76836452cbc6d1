/* Program files and tensor streams in C (csrc/graph/pd_program_io.c, pd_prune.c,
 * pd_tensor_stream.c): a program with every attribute type written and read back to a fixed
 * point, presence of optional fields kept, hostile inputs refused with errors, pruning, and the
 * LoD of tensor streams. Run plain and under ASan/UBSan by `make test-c`. */
#include <stdlib.h>
#include <string.h>
#include "graph/pd_program_io.h"
#include "graph/pd_prune.h"
#include "graph/pd_tensor_stream.h"
#include "pd_test.h"

static pd_program *sample(void) {
  pd_program *p;
  if (pd_program_new(&p) != PD_OK) return NULL;
  pd_block *b0 = p->blocks[0], *b1;
  pd_program_append_block(p, 0, &b1);
  pd_var *x, *w, *y, *z;
  pd_block_var(b0, "x", &x);
  int64_t dx[2] = {-1, 4}, dw[2] = {4, 3};
  pd_var_set_shape(x, 2, dx);
  x->need_check_feed = 1;
  x->lod_level = 1;
  pd_block_var(b0, "w", &w);
  pd_var_set_shape(w, 2, dw);
  w->persistable = w->is_parameter = 1;
  pd_block_var(b0, "y", &y);
  pd_block_var(b0, "unused", &z);
  pd_opdesc *op;
  pd_block_append_op(b0, &op);
  pd_opdesc_set_type(op, "matmul_v2");
  const char *xs[1] = {"x"}, *ws[1] = {"w"}, *ys[1] = {"y"};
  pd_opdesc_set_slot(op, 0, "X", 1, xs);
  pd_opdesc_set_slot(op, 0, "Y", 1, ws);
  pd_opdesc_set_slot(op, 1, "Out", 1, ys);
  int64_t ints[3] = {1, -2, 3}, longs[2] = {(int64_t)1 << 40, -1};
  double fl[2] = {0.5, 0.1};
  const char *strs[2] = {"a", "b"};
  pd_opdesc_set_attr_int(op, "i", PD_AT_INT, -7);
  pd_opdesc_set_attr_float(op, "f", PD_AT_FLOAT, 0.1);
  pd_opdesc_set_attr_float(op, "f64", PD_AT_FLOAT64, 0.1);
  pd_opdesc_set_attr_str(op, "s", "text");
  pd_opdesc_set_attr_ints(op, "ints", PD_AT_INTS, 3, ints);
  pd_opdesc_set_attr_ints(op, "longs", PD_AT_LONGS, 2, longs);
  pd_opdesc_set_attr_ints(op, "bools", PD_AT_BOOLEANS, 3, ints);
  pd_opdesc_set_attr_floats(op, "floats", PD_AT_FLOATS, 2, fl);
  pd_opdesc_set_attr_floats(op, "f64s", PD_AT_FLOAT64S, 2, fl);
  pd_opdesc_set_attr_strs(op, "strs", PD_AT_STRINGS, 2, strs);
  pd_opdesc_set_attr_int(op, "b", PD_AT_BOOLEAN, 1);
  pd_opdesc_set_attr_int(op, "l", PD_AT_LONG, (int64_t)1 << 40);
  pd_opdesc_set_attr_int(op, "blk", PD_AT_BLOCK, 1);
  pd_attr sc;
  memset(&sc, 0, sizeof sc);
  sc.name = "sc";
  sc.type = PD_AT_SCALAR;
  sc.sc.kind = PD_SCALAR_COMPLEX;
  sc.sc.f = 1.5;
  sc.sc.imag = -2;
  pd_opdesc_set_attr(op, &sc);
  pd_opdesc *op2;
  pd_block_append_op(b0, &op2);
  pd_opdesc_set_type(op2, "relu");
  const char *zs[1] = {"unused"};
  pd_opdesc_set_slot(op2, 0, "X", 1, xs);
  pd_opdesc_set_slot(op2, 1, "Out", 1, zs);
  p->has_version = 1;
  p->version = 2003000;
  pd_program_set_op_version(p, "matmul_v2", 1);
  return p;
}

static void test_roundtrip_fixed_point(void) {
  pd_program *p = sample();
  CHECK(p != NULL);
  uint8_t *a, *b;
  size_t na, nb;
  CHECK(pd_program_serialize(p, &a, &na) == PD_OK);
  pd_program *q;
  CHECK(pd_program_parse(a, na, &q) == PD_OK);
  CHECK(pd_program_serialize(q, &b, &nb) == PD_OK);
  CHECK(na == nb && memcmp(a, b, na) == 0);
  CHECK(q->n_blocks == 2 && q->blocks[1]->parent_idx == 0 && q->version == 2003000);
  CHECK(q->n_op_versions == 1 && strcmp(q->op_version_names[0], "matmul_v2") == 0);
  pd_var *x = pd_block_find_var(q->blocks[0], "x"), *w = pd_block_find_var(q->blocks[0], "w");
  CHECK(x && x->ndim == 2 && x->dims[0] == -1 && x->dims[1] == 4 && x->lod_level == 1 && x->need_check_feed);
  CHECK(w && w->persistable && w->is_parameter && w->dtype == PD_FLOAT32);
  const pd_opdesc *op = q->blocks[0]->ops[0];
  CHECK(pd_opdesc_attr(op, "i")->i == -7);
  CHECK(pd_opdesc_attr(op, "f")->f == (double)(float)0.1);
  CHECK(pd_opdesc_attr(op, "f64")->f == 0.1);
  CHECK(pd_opdesc_attr(op, "longs")->ints[0] == (int64_t)1 << 40);
  CHECK(pd_opdesc_attr(op, "bools")->ints[1] == 1);
  CHECK(strcmp(pd_opdesc_attr(op, "strs")->strings[1], "b") == 0);
  CHECK(pd_opdesc_attr(op, "blk")->type == PD_AT_BLOCK && pd_opdesc_attr(op, "blk")->i == 1);
  const pd_attr *s = pd_opdesc_attr(op, "sc");
  CHECK(s && s->sc.kind == PD_SCALAR_COMPLEX && s->sc.f == 1.5 && s->sc.imag == -2);
  /* presence: a var read back keeps which optional fields it had */
  CHECK(x->pb_has & PD_PB_PERSISTABLE);
  CHECK(!(x->pb_has & PD_PB_IS_PARAMETER));
  free(a);
  free(b);
  pd_program_release(q);
  pd_program_release(p);
}

static void test_hostile_inputs(void) {
  pd_program *p = NULL;
  /* truncated: every prefix of a valid file is an error or a program, never a crash */
  pd_program *s = sample();
  uint8_t *a;
  size_t na;
  CHECK(pd_program_serialize(s, &a, &na) == PD_OK);
  for (size_t n = 0; n < na; n += 3) {
    pd_status st = pd_program_parse(a, n, &p);
    if (st == PD_OK) pd_program_release(p);
    else CHECK(pd_last_error()[0] != 0);
  }
  /* a length field claiming 2^40 bytes */
  const uint8_t huge[] = {0x0a, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20, 0x08, 0x00};
  CHECK(pd_program_parse(huge, sizeof huge, &p) == PD_ERR_INVALID_ARGUMENT);
  /* blocks: 0 (parent -1), 1 (parent 2), 2 (parent 1): a cycle */
  const uint8_t cyc[] = {0x0a, 0x0d, 0x08, 0x00, 0x10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
                         0x0a, 0x04, 0x08, 0x01, 0x10, 0x02, 0x0a, 0x04, 0x08, 0x02, 0x10, 0x01};
  CHECK(pd_program_parse(cyc, sizeof cyc, &p) == PD_ERR_INVALID_ARGUMENT);
  CHECK(strstr(pd_last_error(), "cycle") != NULL);
  /* a parent beyond the last block reached through another block's parent */
  const uint8_t far[] = {0x0a, 0x0d, 0x08, 0x00, 0x10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
                         0x0a, 0x04, 0x08, 0x01, 0x10, 0x02, 0x0a, 0x04, 0x08, 0x02, 0x10, 0x63};
  CHECK(pd_program_parse(far, sizeof far, &p) == PD_ERR_INVALID_ARGUMENT);
  /* an empty file: no blocks */
  CHECK(pd_program_parse(a, 0, &p) == PD_ERR_INVALID_ARGUMENT);
  free(a);
  pd_program_release(s);
}

static void test_prune(void) {
  pd_program *p = sample(), *q;
  const char *feeds[1] = {"x"}, *targets[1] = {"y"};
  CHECK(pd_program_prune(p, 1, feeds, 1, targets, &q) == PD_OK);
  CHECK(q->blocks[0]->n_ops == 1 && strcmp(q->blocks[0]->ops[0]->type, "matmul_v2") == 0);
  CHECK(pd_block_find_var(q->blocks[0], "unused") == NULL && pd_block_find_var(q->blocks[0], "w") != NULL);
  CHECK(p->blocks[0]->n_ops == 2); /* the original is untouched */
  pd_program_release(q);
  pd_program_release(p);
}

static void test_tensor_stream_lod(void) {
  int64_t shape[2] = {6, 1};
  pd_tensor *t;
  CHECK(pd_tensor_empty(PD_FLOAT32, 2, shape, &t) == PD_OK);
  float *d = (float *)pd_tensor_data(t);
  for (int i = 0; i < 6; i++) d[i] = (float)i;
  int64_t l0[3] = {0, 1, 2}, l1[3] = {0, 4, 6};
  int64_t lens[2] = {3, 3};
  int64_t *offs[2] = {l0, l1};
  pd_lod lod = {2, lens, offs};
  size_t n = pd_tensor_stream_size_lod(t, &lod), w;
  uint8_t *buf = (uint8_t *)malloc(n);
  CHECK(pd_tensor_stream_write_lod(t, &lod, buf, n, &w) == PD_OK && w == n);
  size_t pos = 0;
  pd_tensor *u;
  pd_lod back;
  CHECK(pd_tensor_stream_read_lod(buf, n, &pos, "t", &u, &back) == PD_OK && pos == n);
  CHECK(back.n == 2 && back.len[1] == 3 && back.offs[1][1] == 4);
  CHECK(u->shape[0] == 6 && ((float *)pd_tensor_data(u))[5] == 5.0f);
  pd_lod_clear(&back);
  pd_tensor_release(u);
  /* every truncation fails cleanly and leaves the position alone */
  for (size_t k = 0; k < n; k++) {
    pos = 0;
    CHECK(pd_tensor_stream_read_lod(buf, k, &pos, "t", &u, &back) != PD_OK && pos == 0);
  }
  /* a LoD that does not fit the tensor is refused when writing */
  l1[2] = 5;
  CHECK(pd_tensor_stream_write_lod(t, &lod, buf, n, &w) == PD_ERR_INVALID_ARGUMENT);
  free(buf);
  pd_tensor_release(t);
}

int main(void) {
  printf("test_program_io\n");
  RUN(test_roundtrip_fixed_point);
  RUN(test_hostile_inputs);
  RUN(test_prune);
  RUN(test_tensor_stream_lod);
  return PD_TEST_RESULT();
}
