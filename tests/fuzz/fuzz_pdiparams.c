/* libFuzzer target: Paddle's LoDTensor stream reader (csrc/graph/pd_tensor_stream.c), the layout
 * of .pdiparams files and single-variable files. Tensors are read one after another, with their
 * LoD, until the input ends or a clean error; each tensor read is written back with its LoD and
 * must read back the same (dtype, dims, data, LoD). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "graph/pd_tensor_stream.h"

static void fail(const char *what, const char *msg) {
  fprintf(stderr, "fuzz_pdiparams: %s: %s\n", what, msg);
  abort();
}

static int same_lod(const pd_lod *a, const pd_lod *b) {
  if (a->n != b->n) return 0;
  for (int i = 0; i < a->n; i++) {
    if (a->len[i] != b->len[i]) return 0;
    if (a->len[i] && memcmp(a->offs[i], b->offs[i], sizeof(int64_t) * (size_t)a->len[i]) != 0) return 0;
  }
  return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  size_t pos = 0;
  for (int k = 0; k < 64 && pos < size; k++) {
    pd_tensor *t = NULL;
    pd_lod lod;
    size_t before = pos;
    if (pd_tensor_stream_read_lod(data, size, &pos, "fuzz", &t, &lod) != PD_OK) {
      if (pos != before) fail("read", "position moved on error");
      if (!pd_last_error()[0]) fail("read", "an error without a message");
      break;
    }
    if (pos <= before || pos > size) fail("read", "bad position");
    size_t n = pd_tensor_stream_size_lod(t, &lod), w = 0;
    uint8_t *buf = (uint8_t *)malloc(n ? n : 1);
    if (!buf) abort();
    if (pd_tensor_stream_write_lod(t, &lod, buf, n, &w) != PD_OK || w != n) fail("write", pd_last_error());
    size_t p2 = 0;
    pd_tensor *u = NULL;
    pd_lod lod2;
    if (pd_tensor_stream_read_lod(buf, n, &p2, "again", &u, &lod2) != PD_OK || p2 != n) fail("re-read", pd_last_error());
    size_t nbytes = (size_t)t->numel * pd_dtype_size(t->dtype);
    if (u->dtype != t->dtype || u->ndim != t->ndim || memcmp(u->shape, t->shape, sizeof(int64_t) * (size_t)t->ndim) ||
        (nbytes && memcmp(pd_tensor_data(u), pd_tensor_data(t), nbytes)) || !same_lod(&lod, &lod2))
      fail("round trip", "the tensor read back differs");
    pd_lod_clear(&lod);
    pd_lod_clear(&lod2);
    pd_tensor_release(t);
    pd_tensor_release(u);
    free(buf);
  }
  return 0;
}
