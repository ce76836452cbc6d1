/* Loading an inference model for the C API: finds the files (combined .pdmodel + .pdiparams, a
 * directory in Paddle 1.x's layout, or buffers), parses and validates the program, reads every
 * persistable variable (sorted-name order, dtype and dims checked against the program, no bytes
 * left over), finds the feed/fetch targets, then runs the analysis passes (pd_pass.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "../kernels/cpu/conv_dnnl.h"
#include "pd_infer_internal.h"
#include "../graph/pd_pass.h"
#include "../graph/pd_program_io.h"
#include "../graph/pd_tensor_stream.h"
#include "../core/pd_device.h"

static pd_status oom(void) { return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory loading a model"); }

static int is_file(const char *p) {
  struct stat st;
  return p && stat(p, &st) == 0 && S_ISREG(st.st_mode);
}
static int is_dir(const char *p) {
  struct stat st;
  return p && stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static pd_status read_file(const char *path, const char *what, size_t limit, uint8_t **buf, size_t *len) {
  *buf = NULL;
  *len = 0;
  struct stat st;
  if (stat(path, &st) != 0)
    return pd_set_error(PD_ERR_NOT_FOUND, "cannot open the %s %s: %s", what, path, strerror(errno));
  if (!S_ISREG(st.st_mode)) return pd_set_error(PD_ERR_INVALID_ARGUMENT, "the %s %s is not a regular file", what, path);
  if ((uint64_t)st.st_size > (uint64_t)limit)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "the %s %s has %lld bytes, more than the %zu a %s may have", what,
                        path, (long long)st.st_size, limit, what);
  FILE *f = fopen(path, "rb");
  if (!f) return pd_set_error(PD_ERR_NOT_FOUND, "cannot open the %s %s: %s", what, path, strerror(errno));
  size_t n = (size_t)st.st_size;
  uint8_t *b = (uint8_t *)malloc(n ? n : 1);
  if (!b) {
    fclose(f);
    return oom();
  }
  size_t got = n ? fread(b, 1, n, f) : 0;
  int err = ferror(f);
  fclose(f);
  if (got != n || err) {
    free(b);
    return pd_set_error(PD_ERR_EXTERNAL, "reading the %s %s failed (%zu of %zu bytes)", what, path, got, n);
  }
  *buf = b;
  *len = n;
  return PD_OK;
}

static char *join(const char *dir, const char *name) {
  size_t a = strlen(dir), b = strlen(name);
  char *p = (char *)malloc(a + b + 2);
  if (!p) return NULL;
  memcpy(p, dir, a);
  p[a] = '/';
  memcpy(p + a + 1, name, b + 1);
  return p;
}

/* ---------------------------------------------------------------- persistables */
static int is_loaded_var(const pd_var *v) {
  return v->persistable && v->type == PD_VT_LOD_TENSOR;
}

static int cmp_name(const void *a, const void *b) {
  return strcmp((*(pd_var *const *)a)->name, (*(pd_var *const *)b)->name);
}

/* the persistable tensors of every block, one per name, sorted by name */
static pd_status persistables(const pd_program *p, pd_var ***out, int *n) {
  int cap = 0;
  for (int b = 0; b < p->n_blocks; b++) cap += p->blocks[b]->n_vars;
  pd_var **v = (pd_var **)malloc(sizeof(pd_var *) * (size_t)(cap ? cap : 1));
  if (!v) return oom();
  int k = 0;
  for (int b = 0; b < p->n_blocks; b++)
    for (int i = 0; i < p->blocks[b]->n_vars; i++)
      if (is_loaded_var(p->blocks[b]->vars[i])) v[k++] = p->blocks[b]->vars[i];
  qsort(v, (size_t)k, sizeof(pd_var *), cmp_name);
  int w = 0;
  for (int i = 0; i < k; i++)
    if (!w || strcmp(v[w - 1]->name, v[i]->name) != 0) v[w++] = v[i];
  *out = v;
  *n = w;
  return PD_OK;
}

static pd_status check_loaded(const pd_var *v, const pd_tensor *t, const char *where) {
  char a[160], b[160];
  if (pd_dtype_is_valid(v->dtype) && v->dtype != (int)t->dtype)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "%s: variable %s is %s in the program, but the file holds %s (the "
                        "parameters do not belong to this program)", where, v->name, pd_dtype_name((pd_dtype)v->dtype),
                        pd_dtype_name(t->dtype));
  if (v->ndim < 0) return PD_OK;
  int same = v->ndim == t->ndim;
  for (int d = 0; same && d < v->ndim; d++) same = v->dims[d] < 0 || v->dims[d] == t->shape[d];
  if (!same && !(v->ndim == 0 && t->ndim == 1 && t->shape[0] == 1))
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "%s: variable %s has shape %s in the program, but the file holds %s "
                        "(the parameters do not belong to this program)", where, v->name,
                        pd_shape_str(v->ndim, v->dims, a, sizeof a), pd_shape_str(t->ndim, t->shape, b, sizeof b));
  return PD_OK;
}

static pd_status put(pd_scope *s, const char *name, pd_tensor *t, pd_lod *lod) {
  pd_value *v;
  pd_status st = pd_scope_var(s, name, &v);
  if (st != PD_OK) {
    pd_tensor_release(t);
    return st;
  }
  pd_value_set(v, t);
  pd_lod_clear(&v->lod);
  v->lod = *lod;
  memset(lod, 0, sizeof *lod);
  return PD_OK;
}

static pd_status load_combined(pd_var **vars, int n, const uint8_t *buf, size_t len, const char *where, pd_scope *s) {
  size_t pos = 0;
  for (int i = 0; i < n; i++) {
    if (pos >= len)
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "%s: the file ends after %d tensors, but the program has %d "
                          "persistable variables (next: %s); it does not belong to this program", where, i, n,
                          vars[i]->name);
    pd_tensor *t;
    pd_lod lod;
    memset(&lod, 0, sizeof lod);
    pd_status st = pd_tensor_stream_read_lod(buf, len, &pos, where, &t, &lod);
    if (st != PD_OK) {
      char m[1024];
      snprintf(m, sizeof m, "%s", pd_last_error());
      return pd_set_error(st, "%s (reading variable %s, #%d of %d in sorted-name order)", m, vars[i]->name, i + 1, n);
    }
    st = check_loaded(vars[i], t, where);
    if (st == PD_OK) st = put(s, vars[i]->name, t, &lod);
    else pd_tensor_release(t);
    pd_lod_clear(&lod);
    PD_TRY(st);
  }
  if (pos != len)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "%s: %zu bytes are left after the %d variables the program loads (the "
                        "file does not belong to this program, or is corrupt)", where, len - pos, n);
  return PD_OK;
}

static pd_status load_separate(pd_var **vars, int n, const char *dir, pd_scope *s) {
  for (int i = 0; i < n; i++) {
    char *path = join(dir, vars[i]->name);
    if (!path) return oom();
    uint8_t *buf;
    size_t len;
    pd_status st = read_file(path, "parameter file", (size_t)-1 / 2, &buf, &len);
    if (st != PD_OK) {
      char m[1024];
      snprintf(m, sizeof m, "%s", pd_last_error());
      free(path);
      return pd_set_error(st, "%s (the saved value of variable %s)", m, vars[i]->name);
    }
    size_t pos = 0;
    pd_tensor *t = NULL;
    pd_lod lod;
    memset(&lod, 0, sizeof lod);
    st = pd_tensor_stream_read_lod(buf, len, &pos, path, &t, &lod);
    if (st == PD_OK && pos != len) {
      pd_tensor_release(t);
      st = pd_set_error(PD_ERR_INVALID_ARGUMENT, "%s: %zu bytes are left after the tensor of %s", path, len - pos,
                        vars[i]->name);
    } else if (st == PD_OK) {
      st = check_loaded(vars[i], t, path);
      if (st == PD_OK) st = put(s, vars[i]->name, t, &lod);
      else pd_tensor_release(t);
    }
    pd_lod_clear(&lod);
    free(buf);
    free(path);
    PD_TRY(st);
  }
  return PD_OK;
}

/* ---------------------------------------------------------------- feed / fetch targets */
static pd_status targets(const pd_program *p, int fetch, char ***names, int *n) {
  const pd_block *b = p->blocks[0];
  const char *type = fetch ? "fetch" : "feed";
  int cnt = 0;
  for (int i = 0; i < b->n_ops; i++) cnt += strcmp(b->ops[i]->type, type) == 0;
  char **v = (char **)calloc((size_t)(cnt ? cnt : 1), sizeof(char *));
  if (!v) return oom();
  *names = v;
  *n = cnt;
  for (int i = 0; i < b->n_ops; i++) {
    const pd_opdesc *op = b->ops[i];
    if (strcmp(op->type, type) != 0) continue;
    const pd_attr *a = pd_opdesc_attr(op, "col");
    int64_t col = 0;
    if (a) PD_TRY(pd_attr_as_int(op, a, &col));
    const pd_opslot *s = pd_opdesc_slot(op, fetch ? 0 : 1, fetch ? "X" : "Out");
    if (col < 0 || col >= cnt || !s || s->n != 1 || v[col])
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "the program's %s op #%d has col %lld (%d %s ops) or no single %s "
                          "variable: it is not a valid inference program", type, i, (long long)col, cnt, type,
                          fetch ? "X" : "Out");
    if (!pd_block_find_var(b, s->args[0]))
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "the program's %s op names variable %s, which the block does not "
                          "declare", type, s->args[0]);
    if (!(v[col] = pd_api_strdup(s->args[0]))) return oom();
  }
  return PD_OK;
}

/* ---------------------------------------------------------------- the model */
void pd_infer_model_release(pd_infer_model *m) {
  if (!m || atomic_fetch_sub_explicit(&m->ref, 1, memory_order_acq_rel) != 1) return;
  pd_program_release(m->prog);
  pd_scope_release(m->scope);
  for (int i = 0; i < m->n_in; i++) free(m->in_names[i]);
  for (int i = 0; i < m->n_out; i++) free(m->out_names[i]);
  for (int i = 0; i < m->n_written; i++) free(m->written[i]);
  free(m->in_names);
  free(m->out_names);
  free(m->written);
  pthread_mutex_destroy(&m->mu);
  pd_conv_wstore_free(m->wstore);
  free(m);
}

static pd_status find_files(const PD_Config *c, char **prog, char **params, char **sep_dir) {
  *prog = *params = *sep_dir = NULL;
  if (c->prog_file && c->prog_file[0]) {
    *prog = pd_api_strdup(c->prog_file);
    if (c->params_file && c->params_file[0]) *params = pd_api_strdup(c->params_file);
    else if (c->model_dir && c->model_dir[0]) *sep_dir = pd_api_strdup(c->model_dir);
    return PD_OK;
  }
  const char *d = c->model_dir;
  if (!d || !d[0])
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "the config names no model: call PD_ConfigSetModel (program and "
                        "parameters files), PD_ConfigSetModelDir or PD_ConfigSetModelBuffer");
  if (!is_dir(d)) return pd_set_error(PD_ERR_NOT_FOUND, "the model directory %s does not exist", d);
  static const char *const layouts[][2] = {{"__model__", "__params__"},
                                           {"inference.pdmodel", "inference.pdiparams"},
                                           {"model.pdmodel", "model.pdiparams"}};
  for (int i = 0; i < 3; i++) {
    char *pm = join(d, layouts[i][0]);
    if (!pm) return oom();
    if (!is_file(pm)) {
      free(pm);
      continue;
    }
    *prog = pm;
    char *pp = join(d, layouts[i][1]);
    if (!pp) return oom();
    if (is_file(pp)) *params = pp;
    else {
      free(pp);
      *sep_dir = pd_api_strdup(d);
    }
    return PD_OK;
  }
  return pd_set_error(PD_ERR_NOT_FOUND, "the model directory %s holds no __model__, inference.pdmodel or model.pdmodel", d);
}

static pd_status load_params(const PD_Config *c, pd_program *prog, const char *params, const char *sep_dir,
                             pd_scope *scope) {
  pd_var **vars = NULL;
  int n = 0;
  PD_TRY(persistables(prog, &vars, &n));
  pd_status st = PD_OK;
  if (c->from_memory) {
    if (n || c->params_len) st = load_combined(vars, n, c->params_buf, c->params_len, "the parameters buffer", scope);
  } else if (params) {
    uint8_t *buf;
    size_t len;
    st = read_file(params, "parameters file", (size_t)-1 / 2, &buf, &len);
    if (st == PD_OK) {
      st = load_combined(vars, n, buf, len, params, scope);
      free(buf);
    }
  } else if (n && sep_dir) {
    st = load_separate(vars, n, sep_dir, scope);
  } else if (n) {
    st = pd_set_error(PD_ERR_INVALID_ARGUMENT, "the program has %d persistable variables (%s ...) but the config names "
                      "no parameters file (PD_ConfigSetModel's second path)", n, vars[0]->name);
  }
  free(vars);
  return st;
}

/* persistables some op writes (each predictor gets a private copy) */
static pd_status written_persistables(pd_infer_model *m) {
  const pd_program *p = m->prog;
  for (int bi = 0; bi < p->n_blocks; bi++) {
    const pd_block *b = p->blocks[bi];
    for (int i = 0; i < b->n_ops; i++) {
      const pd_opdesc *op = b->ops[i];
      if (!strcmp(op->type, "feed") || !strcmp(op->type, "fetch")) continue;
      for (int s = 0; s < op->n_out; s++)
        for (int k = 0; k < op->out[s].n; k++) {
          const char *nm = op->out[s].args[k];
          const pd_var *v = pd_block_find_var_recursive(b, nm);
          if (!v || !v->persistable || v->type != PD_VT_LOD_TENSOR) continue;
          int dup = 0;
          for (int j = 0; j < m->n_written && !dup; j++) dup = !strcmp(m->written[j], nm);
          if (dup) continue;
          char **nw = (char **)realloc(m->written, sizeof(char *) * (size_t)(m->n_written + 1));
          if (!nw) return oom();
          m->written = nw;
          if (!(nw[m->n_written] = pd_api_strdup(nm))) return oom();
          m->n_written++;
        }
    }
  }
  return PD_OK;
}

static pd_status debug_dir(const PD_Config *c, const char *prog_path, char **out) {
  const char *env = getenv("PADDLE_C_IR_DEBUG_DIR");
  *out = NULL;
  if (env && env[0]) {
    *out = pd_api_strdup(env);
  } else {
    const char *base = c->opt_cache_dir && c->opt_cache_dir[0] ? c->opt_cache_dir : NULL;
    char *dir = NULL;
    if (!base && prog_path) {
      dir = pd_api_strdup(prog_path);
      if (!dir) return oom();
      char *sl = strrchr(dir, '/');
      if (sl) *sl = 0;
      else strcpy(dir, ".");
      base = dir;
    }
    *out = join(base ? base : ".", "ir_debug");
    free(dir);
  }
  return *out ? PD_OK : oom();
}

/* ---------------------------------------------------------------- GPU */
/* Passes that write the fused inference ops (ops/infer_fused.yaml: oneDNN CPU kernels only). A GPU
 * predictor skips them and runs the plain op sequence, whose ops have GPU kernels. */
static int cpu_only_pass(const char *name) {
  static const char *const k[] = {"conv_bias_mkldnn_fuse_pass", "conv_elementwise_add_mkldnn_fuse_pass",
                                  "conv_activation_mkldnn_fuse_pass", "conv_to_fused_pass", "fc_fuse_pass",
                                  "elementwise_act_onednn_fuse_pass"};
  for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
    if (!strcmp(k[i], name)) return 1;
  return 0;
}

static pd_status run_passes(pd_pass_ctx *ctx, const PD_Config *c, int gpu) {
  if (!gpu) return pd_pass_run_list(ctx, c->n_passes, (const char *const *)c->passes);
  const char **keep = (const char **)malloc(sizeof(char *) * (size_t)(c->n_passes ? c->n_passes : 1));
  if (!keep) return oom();
  int n = 0;
  for (int i = 0; i < c->n_passes; i++)
    if (!cpu_only_pass(c->passes[i])) keep[n++] = c->passes[i];
  pd_status st = pd_pass_run_list(ctx, n, keep);
  free(keep);
  return st;
}

/* a GPU model's persistables move to the device once (its predictors then share them read-only) */
static pd_status params_to_device(pd_scope *scope, int dev) {
  for (int i = 0; i < pd_scope_size(scope); i++) {
    pd_value *v = pd_scope_find_local(scope, pd_scope_name_at(scope, i));
    if (!v || v->kind != PD_VAL_TENSOR || !v->t || !v->t->storage || pd_tensor_device(v->t) == dev) continue;
    pd_tensor *g;
    PD_TRY(pd_tensor_to_device(v->t, dev, 0, &g));
    pd_tensor *old = v->t;
    v->t = g;
    pd_tensor_release(old);
  }
  return PD_OK;
}

pd_status pd_infer_model_load(const PD_Config *c, pd_infer_model **out) {
  *out = NULL;
  pd_infer_model *m = (pd_infer_model *)calloc(1, sizeof *m);
  if (!m) return oom();
  atomic_init(&m->ref, 1);
  pthread_mutex_init(&m->mu, NULL);
  /* NULL (PADDLE_C_WSTORE=0, for A/B runs, or no memory): each plan keeps its own copies */
  const char *wse = getenv("PADDLE_C_WSTORE");
  m->wstore = wse && !strcmp(wse, "0") ? NULL : pd_conv_wstore_new();
  m->threads = c->threads;
  m->memory_optim = c->memory_optim;
  {
    const char *e = getenv("PADDLE_C_INFER_LAYOUT"); /* 0: keep every activation plain; trace: print */
    m->layout = !c->use_gpu && c->ir_optim && c->mkldnn && !(e && !strcmp(e, "0"));
  }
  m->dev = c->use_gpu ? c->gpu_device : PD_CPU;
  m->bf16 = c->use_gpu ? 0 : c->bf16; /* oneDNN's bfloat16 mode is the CPU's */
  char *prog_path = NULL, *params = NULL, *sep = NULL, *dbg = NULL;
  uint8_t *buf = NULL;
  size_t len = 0;
  pd_status st = PD_OK;
  if (!c->from_memory) {
    st = find_files(c, &prog_path, &params, &sep);
    if (st == PD_OK) st = read_file(prog_path, "program file", PD_PROGRAM_MAX_BYTES, &buf, &len);
  }
  if (st == PD_OK) {
    st = c->from_memory ? pd_program_parse(c->prog_buf, c->prog_len, &m->prog) : pd_program_parse(buf, len, &m->prog);
    if (st != PD_OK) {
      char msg[1024];
      snprintf(msg, sizeof msg, "%s", pd_last_error());
      st = pd_set_error(st, "%s: not a valid program file: %s", c->from_memory ? "the program buffer" : prog_path, msg);
    }
  }
  free(buf);
  if (st == PD_OK) st = pd_program_validate(m->prog);
  if (st == PD_OK) { /* before the parameters: a program alone says which of its ops are missing */
    char missing[1024];
    int nm = pd_program_unsupported_ops(m->prog, missing, sizeof missing);
    if (nm)
      st = pd_set_error(PD_ERR_UNIMPLEMENTED, "the program uses %d op type%s that Paddle-C does not support: %s "
                        "(a custom operator? load its library first: paddle.utils.cpp_extension.load_op_library, "
                        "or PD_LoadCustomOpLibrary in C)", nm, nm > 1 ? "s" : "", missing);
  }
  if (st == PD_OK) st = pd_scope_new(NULL, &m->scope);
  if (st == PD_OK) st = load_params(c, m->prog, params, sep, m->scope);
  if (st == PD_OK) st = targets(m->prog, 0, &m->in_names, &m->n_in);
  if (st == PD_OK) st = targets(m->prog, 1, &m->out_names, &m->n_out);
  if (st == PD_OK && m->n_out == 0)
    st = pd_set_error(PD_ERR_INVALID_ARGUMENT, "the program has no fetch ops: it is not an inference model (save it "
                      "with paddle.static.save_inference_model or paddle.jit.save)");
  if (st == PD_OK && c->ir_optim && c->ir_debug) st = debug_dir(c, prog_path, &dbg);
  if (st == PD_OK && c->ir_optim) {
    pd_pass_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.prog = m->prog;
    ctx.scope = m->scope;
    ctx.n_feed = m->n_in;
    ctx.feed_names = (const char *const *)m->in_names;
    ctx.n_fetch = m->n_out;
    ctx.fetch_names = (const char *const *)m->out_names;
    ctx.debug_dir = dbg;
    ctx.bf16 = m->bf16;
    st = run_passes(&ctx, c, m->dev >= 0);
  }
  if (st == PD_OK) st = written_persistables(m);
  if (st == PD_OK && m->dev >= 0) st = params_to_device(m->scope, m->dev);
  free(prog_path);
  free(params);
  free(sep);
  free(dbg);
  if (st != PD_OK) {
    pd_infer_model_release(m);
    return st;
  }
  *out = m;
  return PD_OK;
}
