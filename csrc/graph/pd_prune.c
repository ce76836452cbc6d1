/* pd_program_prune (pd_prune.h): a backward walk over the global block with a set of needed
 * variable names. */
#include "pd_prune.h"
#include <stdlib.h>
#include <string.h>

/* a set of borrowed strings (open addressing, power-of-two capacity) */
typedef struct {
  const char **slot;
  size_t cap, n;
} name_set;

static uint64_t hash_str(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++) h = (h ^ (uint8_t)*s) * 1099511628211ull;
  return h;
}

static int set_has(const name_set *st, const char *s) {
  if (!st->cap) return 0;
  for (size_t k = hash_str(s) & (st->cap - 1); st->slot[k]; k = (k + 1) & (st->cap - 1))
    if (strcmp(st->slot[k], s) == 0) return 1;
  return 0;
}

static int set_add(name_set *st, const char *s) {
  if (set_has(st, s)) return 1;
  if ((st->n + 1) * 2 > st->cap) {
    size_t nc = st->cap ? st->cap * 2 : 64;
    const char **ns = (const char **)calloc(nc, sizeof(char *));
    if (!ns) return 0;
    for (size_t i = 0; i < st->cap; i++) {
      if (!st->slot[i]) continue;
      size_t k = hash_str(st->slot[i]) & (nc - 1);
      while (ns[k]) k = (k + 1) & (nc - 1);
      ns[k] = st->slot[i];
    }
    free(st->slot);
    st->slot = ns;
    st->cap = nc;
  }
  size_t k = hash_str(s) & (st->cap - 1);
  while (st->slot[k]) k = (k + 1) & (st->cap - 1);
  st->slot[k] = s;
  st->n++;
  return 1;
}

static pd_status oom(void) { return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[prune] out of memory"); }

/* the variables a VAR / VARS attribute names (Paddle's attributes given as variables: arg_max's
 * axis ...) are read by the op: added to st unless fed */
static pd_status add_var_attr(const pd_attr *at, const name_set *fed, name_set *st) {
  if (at->type == PD_AT_VAR && at->s && !set_has(fed, at->s) && !set_add(st, at->s)) return oom();
  for (int64_t j = 0; at->type == PD_AT_VARS && j < at->n; j++)
    if (!set_has(fed, at->strings[j]) && !set_add(st, at->strings[j])) return oom();
  return PD_OK;
}

/* adds every argument of the ops of block bi and of the blocks their attributes name (each block
 * once: seen[]) to st, except fed names */
static pd_status add_block_uses(const pd_program *p, int bi, const name_set *fed, name_set *st,
                                unsigned char *seen) {
  if (bi < 0 || bi >= p->n_blocks || seen[bi]) return PD_OK;
  seen[bi] = 1;
  const pd_block *b = p->blocks[bi];
  for (int i = 0; i < b->n_ops; i++) {
    const pd_opdesc *op = b->ops[i];
    for (int w = 0; w < 2; w++) {
      const pd_opslot *l = w ? op->out : op->in;
      int n = w ? op->n_out : op->n_in;
      for (int k = 0; k < n; k++)
        for (int j = 0; j < l[k].n; j++)
          if (!set_has(fed, l[k].args[j]) && !set_add(st, l[k].args[j])) return oom();
    }
    for (int a = 0; a < op->n_attrs; a++) {
      const pd_attr *at = &op->attrs[a];
      PD_TRY(add_var_attr(at, fed, st));
      if (at->type == PD_AT_BLOCK) PD_TRY(add_block_uses(p, (int)at->i, fed, st, seen));
      if (at->type == PD_AT_BLOCKS)
        for (int64_t j = 0; j < at->n; j++) PD_TRY(add_block_uses(p, (int)at->ints[j], fed, st, seen));
    }
  }
  return PD_OK;
}

static int is_optimize(const pd_opdesc *op) {
  const pd_attr *a = pd_opdesc_attr(op, "op_role");
  int64_t role = 0;
  if (!a || pd_attr_as_int(op, a, &role) != PD_OK) return 0;
  return (role & 2) != 0;
}

static pd_status prune(pd_program *c, int n_feed, const char *const *feeds, int n_targets,
                       const char *const *targets) {
  pd_block *b = c->blocks[0];
  name_set fed = {0}, need = {0}, used = {0};
  unsigned char *keep = NULL, *seen = NULL, *keep_var = NULL;
  pd_status s = PD_OK;
  for (int i = 0; i < n_feed; i++)
    if (!set_add(&fed, feeds[i])) s = oom();
  for (int i = 0; s == PD_OK && i < n_targets; i++)
    if (!set_has(&fed, targets[i]) && !set_add(&need, targets[i])) s = oom();
  keep = (unsigned char *)calloc((size_t)b->n_ops + 1, 1);
  seen = (unsigned char *)calloc((size_t)c->n_blocks + 1, 1);
  keep_var = (unsigned char *)calloc((size_t)b->n_vars + 1, 1);
  if (!keep || !seen || !keep_var) s = oom();
  for (int i = b->n_ops - 1; s == PD_OK && i >= 0; i--) {
    const pd_opdesc *op = b->ops[i];
    int k = op->is_target;
    if (!k && !is_optimize(op))
      for (int o = 0; !k && o < op->n_out; o++)
        for (int j = 0; !k && j < op->out[o].n; j++) k = set_has(&need, op->out[o].args[j]);
    if (!k) continue;
    keep[i] = 1;
    for (int o = 0; s == PD_OK && o < op->n_in; o++)
      for (int j = 0; s == PD_OK && j < op->in[o].n; j++)
        if (!set_has(&fed, op->in[o].args[j]) && !set_add(&need, op->in[o].args[j])) s = oom();
    for (int a = 0; s == PD_OK && a < op->n_attrs; a++) {
      const pd_attr *at = &op->attrs[a];
      s = add_var_attr(at, &fed, &need);
      memset(seen, 0, (size_t)c->n_blocks + 1);
      seen[0] = 1;
      if (at->type == PD_AT_BLOCK) s = add_block_uses(c, (int)at->i, &fed, &need, seen);
      for (int64_t j = 0; s == PD_OK && at->type == PD_AT_BLOCKS && j < at->n; j++)
        s = add_block_uses(c, (int)at->ints[j], &fed, &need, seen);
    }
  }
  /* the ops that stay, and the variables they (and their sub-blocks) use */
  if (s == PD_OK) {
    int nk = 0;
    for (int i = 0; i < b->n_ops; i++) nk += keep[i];
    pd_opdesc **dead = (pd_opdesc **)realloc(c->dead, sizeof(pd_opdesc *) * (size_t)(c->n_dead + b->n_ops - nk + 1));
    if (!dead) s = oom();
    else c->dead = dead;
  }
  if (s == PD_OK) {
    int j = 0;
    for (int i = 0; i < b->n_ops; i++) {
      if (keep[i]) b->ops[j++] = b->ops[i];
      else c->dead[c->n_dead++] = b->ops[i];
    }
    b->n_ops = j;
    pd_program_touch(c);
    memset(seen, 0, (size_t)c->n_blocks + 1);
    name_set none = {0};
    s = add_block_uses(c, 0, &none, &used, seen);
  }
  if (s == PD_OK) {
    for (int i = 0; i < b->n_vars; i++) keep_var[i] = set_has(&used, b->vars[i]->name) != 0;
    s = pd_block_retain_vars(b, keep_var);
  }
  free(fed.slot);
  free(need.slot);
  free(used.slot);
  free(keep);
  free(seen);
  free(keep_var);
  return s;
}

pd_status pd_program_prune(const pd_program *p, int n_feed, const char *const *feeds, int n_targets,
                           const char *const *targets, pd_program **out) {
  pd_program *c;
  PD_TRY(pd_program_validate(p));
  PD_TRY(pd_program_clone(p, &c));
  pd_status s = prune(c, n_feed, feeds, n_targets, targets);
  if (s != PD_OK) {
    pd_program_release(c);
    return s;
  }
  *out = c;
  return PD_OK;
}
