/* Writing the sequence (LoD) ops under Paddle's names (ops/sequence_compat.yaml): our ops take
 * each input's offsets as an input `<x>_lod` (slot XLod ...). A program leaves it empty (the
 * executor binds the value's own LoD, pd_executor.c "LoD"), and then this writer drops the
 * empty slot, so the op reads as Paddle's; offsets a backward rule passes explicitly stay. */
#include <string.h>
#include "pd_compat.h"

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
