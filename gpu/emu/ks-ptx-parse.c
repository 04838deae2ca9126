/* ks-ptx-parse.c: PTX tokens as a module: the directives, the variables with
 * their initializers, the functions with their parameters, registers,
 * labels and .loc lines, and the instructions, which the decoder turns into
 * the emulator's (ks-emu-decode.c).
 *
 * Names are scoped as PTX scopes them: the module, a function, and every
 * { } block inside it (NVRTC declares the parameters of each call in a block
 * of its own, and inline assembly its registers), so that the same name in
 * two blocks is two registers. */
#include "config.h"

#include "ks-error.h"
#include "ks-ptx-parse-private.h"

/* ---- functions ------------------------------------------------------------- */

/* The loc entry for a position, made (without a parent) when the position
 * was not seen in a .loc yet. */
static guint32
loc_of (Parser *p, guint file, guint line, guint column, guint32 parent)
{
  KsEmuModule *m = p->b.module;
  guint64 key = ((guint64) file << 44) | ((guint64) (line & 0xfffffff) << 16) | (column & 0xffff);
  KsEmuLoc loc = { file, line, parent };

  if (parent == 0)
    {
      gpointer found = g_hash_table_lookup (p->loc_keys, &key);

      if (found != NULL)
        return GPOINTER_TO_UINT (found) - 1;
    }
  g_array_append_val (m->locs, loc);
  g_hash_table_insert (p->loc_keys, g_memdup2 (&key, sizeof key),
                       GUINT_TO_POINTER (m->locs->len));
  return m->locs->len - 1;
}

/* .loc file line column[, function_name label, inlined_at file line column]:
 * the position, and where it was inlined (which the layout follows to the
 * line the user wrote, once the .file names are known). */
static void
parse_loc (Parser *p)
{
  guint64 file, line, column;
  guint32 parent = 0;

  next (p);
  if (!_ks_ptx_parse_uint (p, &file) || !_ks_ptx_parse_uint (p, &line)
      || !_ks_ptx_parse_uint (p, &column))
    return;
  if (accept (p, ","))
    {
      while (peek (p)->kind != KS_PTX_TOK_EOF && !tok_is (peek (p), "inlined_at")
             && peek (p)->line == p->t[p->pos - 1].line)
        next (p);
      if (accept (p, "inlined_at"))
        {
          guint64 ifile, iline, icolumn;

          if (!_ks_ptx_parse_uint (p, &ifile) || !_ks_ptx_parse_uint (p, &iline)
              || !_ks_ptx_parse_uint (p, &icolumn))
            return;
          parent = loc_of (p, (guint) MIN (ifile, 1u << 19), (guint) MIN (iline, G_MAXUINT32),
                           (guint) icolumn, 0);
        }
    }
  _ks_ptx_skip_line (p);
  p->loc_index = loc_of (p, (guint) MIN (file, 1u << 19), (guint) MIN (line, G_MAXUINT32),
                         (guint) column, parent);
}

static void
parse_instruction (Parser *p)
{
  const KsPtxToken *start = peek (p);
  g_autofree char *text = NULL;
  g_auto(GStrv) parts = NULL;
  g_autoptr(GArray) ops = g_array_new (FALSE, TRUE, sizeof (KsPtxOperand));
  KsPtxInsn pi = { 0 };
  KsEmuInsn insn = { 0 };
  guint32 guard = 0;
  gboolean guard_neg = FALSE;

  if (accept (p, "@"))
    {
      KsPtxOperand g = { 0 };

      if (!_ks_ptx_parse_operand (p, &g, 0) || g.kind != KS_PTX_OPND_PRED)
        {
          _ks_ptx_fail (p, start, "a guard must be a predicate");
          _ks_ptx_operand_clear (&g);
          return;
        }
      guard = g.pred + 1;
      guard_neg = g.negated;
    }
  start = next (p);
  if (start->kind != KS_PTX_TOK_WORD)
    {
      _ks_ptx_fail (p, start, "expected an instruction");
      return;
    }
  text = tok_dup (start);
  parts = g_strsplit (text, ".", KS_PTX_MAX_PARTS);
  if (g_strv_length (parts) >= KS_PTX_MAX_PARTS)
    {
      _ks_ptx_fail (p, start, "“%s” has too many modifiers", text);
      return;
    }
  if (!tok_is (peek (p), ";"))
    do
      {
        KsPtxOperand op = { 0 };

        if (!_ks_ptx_parse_operand (p, &op, 0))
          {
            _ks_ptx_operand_clear (&op);
            break;
          }
        g_array_append_val (ops, op);
      }
    while (ops->len < 16 && accept (p, ","));
  if (!failed (p))
    _ks_ptx_expect (p, ";");
  if (!failed (p))
    {
      pi.text = text;
      for (guint i = 0; parts[i] != NULL; i++)
        pi.parts[pi.n_parts++] = parts[i];
      pi.ops = (KsPtxOperand *) (void *) ops->data;
      pi.n_ops = ops->len;
      pi.line = start->line;
      p->b.line = start->line;
      insn.guard = (guint16) guard;
      insn.guard_neg = (guint8) guard_neg;
      insn.func = p->b.func_index;
      insn.loc = p->loc_index;
      if (guard > G_MAXUINT16)
        _ks_ptx_fail (p, start, "too many predicates");
      else if (_ks_emu_decode (&p->b, &pi, &insn))
        g_array_append_val (p->b.code, insn);
    }
  for (guint i = 0; i < ops->len; i++)
    _ks_ptx_operand_clear (&g_array_index (ops, KsPtxOperand, i));
}

static void
parse_body (Parser *p)
{
  guint depth = 1;

  while (!failed (p) && depth > 0)
    {
      const KsPtxToken *t = peek (p);

      if (t->kind == KS_PTX_TOK_EOF)
        {
          _ks_ptx_fail (p, t, "the function “%s” does not end", p->b.func->name);
          return;
        }
      if (tok_is (t, "{"))
        {
          next (p);
          _ks_ptx_push_scope (p);
          depth++;
        }
      else if (tok_is (t, "}"))
        {
          next (p);
          _ks_ptx_pop_scope (p);
          depth--;
        }
      else if (tok_is (t, ";"))
        next (p);
      else if (t->kind == KS_PTX_TOK_WORD && tok_is (peek_at (p, 1), ":"))
        {
          g_autofree char *name = tok_dup (t);

          next (p);
          next (p);
          if (g_hash_table_contains (p->labels, name))
            _ks_ptx_fail (p, t, "the label %s is defined twice", name);
          g_hash_table_insert (p->labels, g_steal_pointer (&name),
                               GUINT_TO_POINTER (p->b.code->len + 1));
          /* A prototype for indirect calls: not needed for direct ones. */
          if (tok_is (peek (p), ".callprototype"))
            _ks_ptx_skip_statement (p);
        }
      else if (tok_is (t, ".reg"))
        _ks_ptx_parse_reg_decl (p);
      else if (tok_is (t, ".local") || tok_is (t, ".shared") || tok_is (t, ".param")
               || tok_is (t, ".const") || tok_is (t, ".global"))
        _ks_ptx_parse_var_decl (p, FALSE, FALSE, NULL);
      else if (tok_is (t, ".loc"))
        parse_loc (p);
      else if (tok_is (t, ".pragma"))
        _ks_ptx_skip_statement (p);
      else if (t->kind == KS_PTX_TOK_WORD && t->text[0] == '.')
        _ks_ptx_fail (p, t, "unknown directive %.*s in a function", (int) MIN (t->len, 40),
                      t->text);
      else
        parse_instruction (p);
    }
}

static void
parse_param_list (Parser *p, GPtrArray *into, gboolean kernel)
{
  if (!accept (p, "("))
    return;
  if (accept (p, ")"))
    return;
  do
    {
      KsEmuVar *var = NULL;

      if (tok_is (peek (p), ".reg"))
        {
          _ks_ptx_fail (p, peek (p), "register parameters (.reg) are not supported");
          return;
        }
      if (!tok_is (peek (p), ".param"))
        {
          _ks_ptx_fail (p, peek (p), "expected a .param");
          return;
        }
      _ks_ptx_parse_var_decl (p, FALSE, kernel, &var);
      if (var == NULL)
        return;
      if (var->size == 0)
        {
          _ks_ptx_fail (p, peek (p), "the parameter “%s” has no size", var->name);
          return;
        }
      g_ptr_array_add (into, var);
    }
  while (!failed (p) && accept (p, ","));
  _ks_ptx_expect (p, ")");
}

static void
resolve_fixups (Parser *p)
{
  KsEmuInsn *code = (KsEmuInsn *) (void *) p->b.code->data;

  for (guint i = 0; i < p->b.fixups->len; i++)
    {
      KsEmuFixup *fx = &g_array_index (p->b.fixups, KsEmuFixup, i);
      gpointer pc = g_hash_table_lookup (p->labels, fx->label);

      if (pc == NULL && !failed (p))
        g_set_error (&p->b.error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
                     "PTX line %u: the label %s is not defined in %s", fx->line, fx->label,
                     p->b.func->name);
      else if (pc != NULL)
        code[fx->insn].target = GPOINTER_TO_UINT (pc) - 1;
      g_free (fx->label);
    }
  g_array_set_size (p->b.fixups, 0);
  g_hash_table_remove_all (p->labels);
}

/* .entry name (params) [.maxntid …] { … }   .func (rets) name (params) { … } or ; */
static void
parse_function (Parser *p, gboolean is_extern)
{
  gboolean entry = tok_is (next (p), ".entry");
  g_autoptr(GPtrArray) rets = g_ptr_array_new ();
  const KsPtxToken *t;
  g_autofree char *name = NULL;
  KsEmuFunc *f;
  guint32 index;
  gboolean has_rets = !entry && tok_is (peek (p), "(");

  /* The return parameters and the parameters are the function's variables:
   * parse them inside its scope. */
  _ks_ptx_push_scope (p);
  if (!entry && tok_is (peek (p), "("))
    {
      /* The return parameters come before the name: the function is not
       * known yet, so they are placed once it is. */
      guint save = p->pos;

      while (peek (p)->kind != KS_PTX_TOK_EOF && !accept (p, ")"))
        next (p);
      t = next (p);
      name = tok_dup (t);
      f = _ks_emu_module_add_func (p->b.module, name, &index);
      p->pos = save;
    }
  else
    {
      t = next (p);
      name = tok_dup (t);
      f = _ks_emu_module_add_func (p->b.module, name, &index);
    }
  if (t->kind != KS_PTX_TOK_WORD)
    {
      _ks_ptx_fail (p, t, "expected a function name");
      _ks_ptx_pop_scope (p);
      return;
    }
  if (f->defined)
    {
      _ks_ptx_fail (p, t, "the function “%s” is defined twice", name);
      _ks_ptx_pop_scope (p);
      return;
    }
  p->b.func = f;
  p->b.func_index = index;
  f->is_entry = entry;
  /* A declaration seen before has its parameters already: they are the same. */
  if (f->params->len > 0 || f->rets->len > 0 || f->fparam_size > 0 || f->param_size > 0)
    {
      g_ptr_array_set_size (f->params, 0);
      g_ptr_array_set_size (f->rets, 0);
      f->param_size = 0;
    }
  f->fparam_first = p->b.module->fparam_size;
  f->fparam_size = 0;
  f->pred_first = p->b.module->n_preds;
  if (has_rets)
    {
      parse_param_list (p, f->rets, FALSE);
      next (p); /* the name */
    }
  parse_param_list (p, f->params, entry);
  while (!failed (p) && peek (p)->kind == KS_PTX_TOK_WORD && peek (p)->text[0] == '.')
    {
      const KsPtxToken *d = next (p);
      guint32 *dims = tok_is (d, ".maxntid") ? f->maxntid : tok_is (d, ".reqntid") ? f->reqntid
                                                                                 : NULL;

      if (dims != NULL)
        {
          for (guint i = 0; i < 3 && !failed (p); i++)
            {
              guint64 v;

              if (i > 0 && !accept (p, ","))
                break;
              if (_ks_ptx_parse_uint (p, &v))
                dims[i] = (guint32) MIN (v, G_MAXUINT32);
            }
        }
      else if (tok_is (d, ".noreturn") || tok_is (d, ".explicitcluster"))
        ;
      else if (tok_is (d, ".minnctapersm") || tok_is (d, ".maxnctapersm") || tok_is (d, ".maxnreg")
               || tok_is (d, ".maxclusterrank") || tok_is (d, ".reqnctapercluster")
               || tok_is (d, ".pragma"))
        {
          /* Occupancy hints: nothing to emulate. */
          while (peek (p)->kind == KS_PTX_TOK_NUMBER || peek (p)->kind == KS_PTX_TOK_STRING
                 || tok_is (peek (p), ","))
            next (p);
          accept (p, ";");
        }
      else
        _ks_ptx_fail (p, d, "unknown directive %.*s", (int) MIN (d->len, 40), d->text);
    }
  if (!failed (p) && accept (p, "{"))
    {
      if (is_extern)
        _ks_ptx_fail (p, t, "an .extern function has a body");
      f->defined = TRUE;
      f->start = p->b.code->len;
      _ks_ptx_push_scope (p);
      parse_body (p);
      f->end = p->b.code->len;
      resolve_fixups (p);
      if (!failed (p) && f->start == f->end)
        {
          /* An empty function returns at once. */
          KsPtxInsn ret = { .text = (char *) "ret", .parts = { "ret" }, .n_parts = 1 };
          KsEmuInsn insn = { .func = index, .loc = p->loc_index };

          if (_ks_emu_decode (&p->b, &ret, &insn))
            g_array_append_val (p->b.code, insn);
          f->end = p->b.code->len;
        }
    }
  else if (!failed (p))
    _ks_ptx_expect (p, ";");
  while (p->scopes->len > 0)
    _ks_ptx_pop_scope (p);
  f->pred_count = p->b.module->n_preds - f->pred_first;
  p->b.func = NULL;
}

/* ---- the module ------------------------------------------------------------ */

/* A .file's name as the user wrote it: NVRTC puts its working directory
 * before a relative name (#line 1 "user.cu" becomes /cwd/user.cu). */
static char *
source_name (const KsPtxToken *s)
{
  g_autofree char *name = g_strndup (s->text, s->len);
  g_autofree char *cwd = g_get_current_dir ();
  gsize n = strlen (cwd);

  if (n > 1 && strncmp (name, cwd, n) == 0 && name[n] == '/' && name[n + 1] != '\0')
    return g_strdup (name + n + 1);
  return g_steal_pointer (&name);
}

static void
parse_file (Parser *p)
{
  const KsPtxToken *t = next (p);
  guint64 index;
  const KsPtxToken *s;
  GPtrArray *files = p->b.module->files;

  if (!_ks_ptx_parse_uint (p, &index))
    return;
  s = next (p);
  if (s->kind != KS_PTX_TOK_STRING || index > 10000)
    {
      _ks_ptx_fail (p, t, ".file without a name");
      return;
    }
  if (files->len <= index)
    g_ptr_array_set_size (files, (guint) index + 1);
  g_free (g_ptr_array_index (files, index));
  g_ptr_array_index (files, index) = source_name (s);
  _ks_ptx_skip_line (p);
}

static void
skip_section (Parser *p)
{
  guint depth = 0;

  next (p);
  while (peek (p)->kind != KS_PTX_TOK_EOF && !tok_is (peek (p), "{"))
    next (p);
  do
    {
      const KsPtxToken *t = next (p);

      if (tok_is (t, "{"))
        depth++;
      else if (tok_is (t, "}"))
        depth--;
      else if (t->kind == KS_PTX_TOK_EOF)
        {
          _ks_ptx_fail (p, t, "a .section that does not end");
          return;
        }
    }
  while (depth > 0);
}

static void
parse_module (Parser *p)
{
  gboolean seen_version = FALSE;

  while (!failed (p) && peek (p)->kind != KS_PTX_TOK_EOF)
    {
      const KsPtxToken *t = peek (p);
      gboolean is_extern = FALSE;

      if (tok_is (t, ".version"))
        {
          seen_version = TRUE;
          next (p);
          _ks_ptx_skip_line (p);
          continue;
        }
      if (!seen_version)
        {
          _ks_ptx_fail (p, t, "this is not PTX: it does not start with .version");
          return;
        }
      if (tok_is (t, ".target") || tok_is (t, ".address_size"))
        {
          next (p);
          if (tok_is (t, ".address_size") && !tok_is (peek (p), "64"))
            _ks_ptx_fail (p, t, "only 64-bit PTX (.address_size 64) is supported");
          _ks_ptx_skip_line (p);
          continue;
        }
      if (tok_is (t, ".file"))
        {
          parse_file (p);
          continue;
        }
      if (tok_is (t, ".section"))
        {
          skip_section (p);
          continue;
        }
      if (tok_is (t, ".pragma") || tok_is (t, ".alias"))
        {
          _ks_ptx_skip_statement (p);
          continue;
        }
      while (tok_is (peek (p), ".visible") || tok_is (peek (p), ".extern")
             || tok_is (peek (p), ".weak") || tok_is (peek (p), ".common"))
        is_extern |= tok_is (next (p), ".extern");
      t = peek (p);
      if (tok_is (t, ".entry") || tok_is (t, ".func"))
        parse_function (p, is_extern);
      else if (tok_is (t, ".global") || tok_is (t, ".const") || tok_is (t, ".shared"))
        _ks_ptx_parse_var_decl (p, is_extern, FALSE, NULL);
      else
        _ks_ptx_fail (p, t, "unexpected “%.*s” at module scope", (int) MIN (t->len, 40),
                      t->text);
    }
  if (!seen_version && !failed (p))
    _ks_ptx_fail (p, peek (p), "this is not PTX: it does not start with .version");
}

KsEmuModule *
_ks_ptx_parse (const char *ptx, GError **error)
{
  g_autoptr(GArray) tokens = _ks_ptx_lex (ptx, error);
  Parser p = { 0 };
  KsEmuModule *m;

  if (tokens == NULL)
    return NULL;
  m = _ks_emu_module_alloc ();
  /* locs[0]: no line. */
  g_array_set_size (m->locs, 1);

  p.t = (const KsPtxToken *) (void *) tokens->data;
  p.n = tokens->len;
  p.b.module = m;
  p.b.const_slots = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  p.b.code = g_array_new (FALSE, TRUE, sizeof (KsEmuInsn));
  p.b.fixups = g_array_new (FALSE, FALSE, sizeof (KsEmuFixup));
  p.scopes = g_ptr_array_new_with_free_func ((GDestroyNotify) g_hash_table_unref);
  p.module_vars = g_hash_table_new (g_str_hash, g_str_equal);
  p.labels = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  p.loc_keys = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);

  parse_module (&p);

  for (guint i = 0; i < p.b.fixups->len; i++)
    g_free (g_array_index (p.b.fixups, KsEmuFixup, i).label);
  g_array_unref (p.b.fixups);
  g_hash_table_unref (p.b.const_slots);
  g_ptr_array_unref (p.scopes);
  g_hash_table_unref (p.module_vars);
  g_hash_table_unref (p.labels);
  g_hash_table_unref (p.loc_keys);
  m->n_code = p.b.code->len;
  m->code = (KsEmuInsn *) (void *) g_array_free (p.b.code, FALSE);
  if (p.b.error != NULL)
    {
      g_propagate_error (error, p.b.error);
      _ks_emu_module_destroy (m);
      return NULL;
    }
  return m;
}

