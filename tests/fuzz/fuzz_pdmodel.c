/* libFuzzer target: Paddle's program file reader (csrc/graph/pd_program_io.c). Any input must
 * give a program or a clean error; a program must validate, write, read back, and write again to
 * the same bytes (the writer is a fixed point), and survive cloning, pruning and printing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "graph/pd_program_io.h"
#include "graph/pd_prune.h"

static void fail(const char *what, const char *msg) {
  fprintf(stderr, "fuzz_pdmodel: %s: %s\n", what, msg);
  abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  pd_program *p = NULL;
  if (pd_program_parse(data, size, &p) != PD_OK) {
    if (!pd_last_error()[0]) fail("parse", "an error without a message");
    return 0;
  }
  if (pd_program_validate(p) != PD_OK) fail("validate after parse", pd_last_error());
  uint8_t *a = NULL, *b = NULL;
  size_t na = 0, nb = 0;
  pd_status s = pd_program_serialize(p, &a, &na);
  if (s == PD_OK) {
    pd_program *q = NULL;
    if (pd_program_parse(a, na, &q) != PD_OK) fail("re-parse of written bytes", pd_last_error());
    if (pd_program_serialize(q, &b, &nb) != PD_OK) fail("second write", pd_last_error());
    if (na != nb || memcmp(a, b, na) != 0) fail("idempotence", "write(read(write(read(x)))) != write(read(x))");
    pd_program_release(q);
  } else if (s != PD_ERR_INVALID_ARGUMENT && s != PD_ERR_OUT_OF_RANGE) {
    fail("write", pd_last_error());
  }
  free(a);
  free(b);
  /* the meta tensor (a Python Variable) of every var */
  for (int bi = 0; bi < p->n_blocks; bi++)
    for (int i = 0; i < p->blocks[bi]->n_vars; i++) {
      pd_tensor *t = NULL;
      if (pd_var_tensor(p->blocks[bi]->vars[i], &t) == PD_OK) pd_tensor_release(t);
    }
  pd_program *c = NULL;
  if (pd_program_clone(p, &c) == PD_OK) pd_program_release(c);
  /* prune to the outputs of the last op of block 0, feeding the first op's inputs */
  const pd_block *b0 = p->blocks[0];
  if (b0->n_ops > 0) {
    const pd_opdesc *first = b0->ops[0], *last = b0->ops[b0->n_ops - 1];
    const char *feeds[1] = {first->n_in && first->in[0].n ? first->in[0].args[0] : "x"};
    const char *targets[1] = {last->n_out && last->out[0].n ? last->out[0].args[0] : "y"};
    pd_program *r = NULL;
    if (pd_program_prune(p, 1, feeds, 1, targets, &r) == PD_OK) pd_program_release(r);
  }
  char *text = pd_program_to_string(p);
  free(text);
  pd_program_release(p);
  return 0;
}
