/* The sequence (LoD) ops under Paddle's names (ops/sequence_compat.yaml): our ops take each
 * input's offsets as an input `<x>_lod` (slot XLod ...). A program leaves it empty (the executor
 * binds the value's own LoD, pd_executor.c "LoD"), and then this writer drops the empty slot, so
 * the op reads as Paddle's; offsets a backward rule passes explicitly stay. Reading, only
 * sequence_concat (a list of offsets) needs more than the generic loader. */
#include <string.h>
#include "pd_compat.h"
#include "../ops/generated/pd_ops_gen.h"

pd_status pd_cv_save_seq(int our_op, const void *args, pd_opdesc *op, const char *const *in_names,
                         const char *const *out_names) {
  (void)our_op;
  (void)args;
  (void)in_names;
  (void)out_names;
  for (int i = op->n_in - 1; i >= 0; i--) {
    const pd_opslot *s = &op->in[i];
    size_t L = strlen(s->name);
    if (s->n == 0 && L > 3 && strcmp(s->name + L - 3, "Lod") == 0) PD_TRY(pd_opdesc_remove_slot(op, 0, s->name));
  }
  return PD_OK;
}

/* sequence_concat as Paddle writes it (X only, no offsets): each input's offsets come from its
 * value's LoD through sequence_lod (forward only: a backward replay would need them as variables) */
pd_status pd_cv_load_sequence_concat(pd_convert_ctx *c) {
  int our;
  const pd_compat_def *def = pd_cv_def(c, &our);
  int n = pd_cv_in_count(c, "X");
  if (pd_cv_in_count(c, "XLod") == n) return pd_cv_generic(c, def, our);
  pd_tensor **x = (pd_tensor **)pd_cv_alloc(c, sizeof(pd_tensor *) * (size_t)(n + 1));
  pd_tensor **l = (pd_tensor **)pd_cv_alloc(c, sizeof(pd_tensor *) * (size_t)(n + 1));
  if (!x || !l) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  pd_status s = PD_OK;
  int made = 0;
  for (int i = 0; s == PD_OK && i < n; i++) {
    x[i] = pd_cv_in(c, "X", i);
    if (!x[i]) {
      s = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[sequence_concat] input X[%d] names no variable", i);
      break;
    }
    pd_sequence_lod_args a = {.x = x[i], .x_lod = NULL, .x_lod_level = -1};
    int k = 0;
    s = pd_cv_run(c, PD_OP_SEQUENCE_LOD, &a, &l[i], 1, &k);
    if (s == PD_OK) made++;
  }
  pd_tensor *o[2] = {NULL, NULL};
  int no = 0;
  if (s == PD_OK) {
    pd_sequence_concat_args a = {.x = {x, n}, .x_lod = {l, n}};
    s = pd_cv_run(c, PD_OP_SEQUENCE_CONCAT, &a, o, 2, &no);
  }
  if (s == PD_OK && no > 0) s = pd_cv_out(c, "Out", 0, o[0]);
  if (s == PD_OK && no > 1) s = pd_cv_out(c, "OutLod", 0, o[1]);
  for (int i = 0; i < no; i++) pd_tensor_release(o[i]);
  for (int i = 0; i < made; i++) pd_tensor_release(l[i]);
  return s;
}
