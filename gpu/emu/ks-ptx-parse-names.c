/* ks-ptx-parse-names.c: the parser's messages and numbers, the scopes of
 * names, and the operands of an instruction: registers, special registers,
 * immediates, symbols, addresses, vectors and the lists of a call. */
#include "config.h"

#include "ks-error.h"
#include "ks-ptx-parse-private.h"

void
_ks_ptx_fail (Parser *p, const KsPtxToken *t, const char *format, ...)
{
  va_list args;
  g_autofree char *message = NULL;

  if (p->b.error != NULL)
    return;
  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (&p->b.error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT, "PTX line %u: %s", t->line,
               message);
}

gboolean
_ks_ptx_expect (Parser *p, const char *text)
{
  const KsPtxToken *t = peek (p);

  if (accept (p, text))
    return TRUE;
  if (t->kind == KS_PTX_TOK_EOF)
    _ks_ptx_fail (p, t, "expected “%s” before the end of the text", text);
  else
    _ks_ptx_fail (p, t, "expected “%s”, found “%.*s”", text, (int) MIN (t->len, 40),
                  t->text);
  return FALSE;
}

/* Skips what is left of a directive written on one line (.version, .loc). */
void
_ks_ptx_skip_line (Parser *p)
{
  /* The line of the directive, whose last token is the one just taken. */
  guint line = p->t[p->pos > 0 ? p->pos - 1 : 0].line;

  while (peek (p)->kind != KS_PTX_TOK_EOF && peek (p)->line == line && !tok_is (peek (p), ";"))
    next (p);
}

void
_ks_ptx_skip_statement (Parser *p)
{
  while (peek (p)->kind != KS_PTX_TOK_EOF && !tok_is (peek (p), ";"))
    next (p);
  accept (p, ";");
}

gboolean
_ks_ptx_parse_uint (Parser *p, guint64 *value)
{
  const KsPtxToken *t = peek (p);
  g_autofree char *text = NULL;
  char *end = NULL;

  if (t->kind != KS_PTX_TOK_NUMBER)
    {
      _ks_ptx_fail (p, t, "expected a number");
      return FALSE;
    }
  text = tok_dup (next (p));
  *value = g_ascii_strtoull (text, &end, 0);
  if (*end == 'U' || *end == 'u')
    end++;
  if (*end != '\0')
    {
      _ks_ptx_fail (p, t, "“%s” is not a number", text);
      return FALSE;
    }
  return TRUE;
}

/* A number token as an immediate: integers (decimal, 0x, 0 octal), 0f/0d bit
 * patterns and decimal fractions (f64). */
gboolean
_ks_ptx_number (Parser *p, const KsPtxToken *t, gboolean negative, KsPtxOperand *op)
{
  g_autofree char *text = tok_dup (t);
  char *end = NULL;

  op->kind = KS_PTX_OPND_IMM;
  if (text[0] == '0' && (text[1] == 'f' || text[1] == 'F' || text[1] == 'd' || text[1] == 'D'))
    {
      gboolean f32 = text[1] == 'f' || text[1] == 'F';
      gsize digits = strlen (text + 2);

      if (digits != (f32 ? 8u : 16u) || strspn (text + 2, "0123456789abcdefABCDEF") != digits)
        {
          _ks_ptx_fail (p, t, "“%s” is not a floating-point literal", text);
          return FALSE;
        }
      op->imm_kind = f32 ? KS_PTX_IMM_F32 : KS_PTX_IMM_F64;
      op->bits = g_ascii_strtoull (text + 2, NULL, 16);
      if (negative)
        op->bits ^= f32 ? 0x80000000u : G_GUINT64_CONSTANT (0x8000000000000000);
      return TRUE;
    }
  if (strchr (text, '.') != NULL || ((strchr (text, 'e') != NULL || strchr (text, 'E') != NULL)
                                     && !(text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))))
    {
      double d = g_ascii_strtod (text, &end);

      if (*end != '\0')
        {
          _ks_ptx_fail (p, t, "“%s” is not a number", text);
          return FALSE;
        }
      op->imm_kind = KS_PTX_IMM_F64;
      op->bits = ks_emu_from_f64 (negative ? -d : d);
      return TRUE;
    }
  op->imm_kind = KS_PTX_IMM_INT;
  op->bits = g_ascii_strtoull (text, &end, text[0] == '0' && g_ascii_isdigit (text[1]) ? 8 : 0);
  if (*end == 'U' || *end == 'u')
    end++;
  if (*end != '\0')
    {
      _ks_ptx_fail (p, t, "“%s” is not a number", text);
      return FALSE;
    }
  if (negative)
    op->bits = 0 - op->bits;
  return TRUE;
}

/* ---- names ----------------------------------------------------------------- */

Sym *
_ks_ptx_lookup (Parser *p, const char *name)
{
  for (guint i = p->scopes->len; i-- > 0;)
    {
      Sym *s = g_hash_table_lookup (g_ptr_array_index (p->scopes, i), name);

      if (s != NULL)
        return s;
    }
  return NULL;
}

void
_ks_ptx_push_scope (Parser *p)
{
  g_ptr_array_add (p->scopes, g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free));
}

void
_ks_ptx_pop_scope (Parser *p)
{
  g_ptr_array_remove_index (p->scopes, p->scopes->len - 1);
}

void
_ks_ptx_declare (Parser *p, const KsPtxToken *where, const char *name, Sym *sym)
{
  GHashTable *scope = g_ptr_array_index (p->scopes, p->scopes->len - 1);

  if (g_hash_table_contains (scope, name))
    {
      _ks_ptx_fail (p, where, "“%s” is declared twice", name);
      g_free (sym);
      return;
    }
  g_hash_table_insert (scope, g_strdup (name), sym);
}

/* ---- operands -------------------------------------------------------------- */

static const struct
{
  const char *name;
  gint special;  /* KsEmuSpecial, or -1 - clock kind */
} special_regs[] = {
  { "%tid.x", KS_EMU_SR_TID_X }, { "%tid.y", KS_EMU_SR_TID_Y }, { "%tid.z", KS_EMU_SR_TID_Z },
  { "%ntid.x", KS_EMU_SR_NTID_X }, { "%ntid.y", KS_EMU_SR_NTID_Y },
  { "%ntid.z", KS_EMU_SR_NTID_Z },
  { "%ctaid.x", KS_EMU_SR_CTAID_X }, { "%ctaid.y", KS_EMU_SR_CTAID_Y },
  { "%ctaid.z", KS_EMU_SR_CTAID_Z },
  { "%nctaid.x", KS_EMU_SR_NCTAID_X }, { "%nctaid.y", KS_EMU_SR_NCTAID_Y },
  { "%nctaid.z", KS_EMU_SR_NCTAID_Z },
  { "%laneid", KS_EMU_SR_LANEID }, { "%warpid", KS_EMU_SR_WARPID },
  { "%nwarpid", KS_EMU_SR_NWARPID },
  { "%lanemask_eq", KS_EMU_SR_LANEMASK_EQ }, { "%lanemask_lt", KS_EMU_SR_LANEMASK_LT },
  { "%lanemask_le", KS_EMU_SR_LANEMASK_LE }, { "%lanemask_gt", KS_EMU_SR_LANEMASK_GT },
  { "%lanemask_ge", KS_EMU_SR_LANEMASK_GE },
  { "%smid", KS_EMU_SR_SMID }, { "%nsmid", KS_EMU_SR_NSMID }, { "%gridid", KS_EMU_SR_GRIDID },
  { "%dynamic_smem_size", KS_EMU_SR_DYNAMIC_SMEM },
  { "%total_smem_size", KS_EMU_SR_TOTAL_SMEM }, { "%aggr_smem_size", KS_EMU_SR_TOTAL_SMEM },
  /* Every block is a cluster of one. */
  { "%clusterid.x", KS_EMU_SR_CTAID_X }, { "%clusterid.y", KS_EMU_SR_CTAID_Y },
  { "%clusterid.z", KS_EMU_SR_CTAID_Z },
  { "%nclusterid.x", KS_EMU_SR_NCTAID_X }, { "%nclusterid.y", KS_EMU_SR_NCTAID_Y },
  { "%nclusterid.z", KS_EMU_SR_NCTAID_Z },
  { "%cluster_ctaid.x", KS_EMU_SR_ZERO }, { "%cluster_ctaid.y", KS_EMU_SR_ZERO },
  { "%cluster_ctaid.z", KS_EMU_SR_ZERO },
  { "%cluster_nctaid.x", KS_EMU_SR_ONE }, { "%cluster_nctaid.y", KS_EMU_SR_ONE },
  { "%cluster_nctaid.z", KS_EMU_SR_ONE },
  { "%cluster_ctarank", KS_EMU_SR_ZERO }, { "%cluster_nctarank", KS_EMU_SR_ONE },
  { "%is_explicit_cluster", KS_EMU_SR_ZERO },
  { "%clock", -1 }, { "%clock_hi", -2 }, { "%clock64", -3 }, { "%globaltimer", -4 },
  { "%globaltimer_lo", -5 }, { "%globaltimer_hi", -6 },
};

static void
clear_elements (GArray *elems)
{
  for (guint i = 0; i < elems->len; i++)
    _ks_ptx_operand_clear (&g_array_index (elems, KsPtxOperand, i));
}

static gboolean
parse_group (Parser *p, KsPtxOperand *op, KsPtxOperandKind kind, const char *close, guint depth)
{
  g_autoptr(GArray) elems = g_array_new (FALSE, TRUE, sizeof (KsPtxOperand));

  op->kind = kind;
  if (!accept (p, close))
    {
      do
        {
          KsPtxOperand e = { 0 };

          if (!_ks_ptx_parse_operand (p, &e, depth + 1) || elems->len >= 64)
            {
              if (!failed (p))
                _ks_ptx_fail (p, peek (p), "too many operands in a group");
              _ks_ptx_operand_clear (&e);
              clear_elements (elems);
              return FALSE;
            }
          g_array_append_val (elems, e);
        }
      while (accept (p, ","));
      if (!_ks_ptx_expect (p, close))
        {
          clear_elements (elems);
          return FALSE;
        }
    }
  op->n_elems = elems->len;
  op->elems = (KsPtxOperand *) (void *) g_array_free (g_steal_pointer (&elems), FALSE);
  return TRUE;
}

/* A name as an operand: a register, a special register, a variable, a
 * function, or a label (a symbol with neither). */
static gboolean
parse_name (Parser *p, const KsPtxToken *t, KsPtxOperand *op)
{
  g_autofree char *name = tok_dup (t);
  Sym *sym;

  if (strcmp (name, "_") == 0)
    {
      op->kind = KS_PTX_OPND_SINK;
      return TRUE;
    }
  sym = _ks_ptx_lookup (p, name);
  if (sym != NULL && sym->kind == SYM_REG)
    {
      op->kind = KS_PTX_OPND_REG;
      op->slot = sym->index;
      return TRUE;
    }
  if (sym != NULL && sym->kind == SYM_PRED)
    {
      op->kind = KS_PTX_OPND_PRED;
      op->pred = sym->index;
      return TRUE;
    }
  if (sym != NULL)
    {
      op->kind = KS_PTX_OPND_SYM;
      op->var = sym->var;
      op->name = g_steal_pointer (&name);
      return TRUE;
    }
  if (name[0] == '%')
    {
      for (guint i = 0; i < G_N_ELEMENTS (special_regs); i++)
        if (strcmp (special_regs[i].name, name) == 0)
          {
            if (special_regs[i].special < 0)
              {
                op->kind = KS_PTX_OPND_CLOCK;
                op->clock = (guint32) -special_regs[i].special;
              }
            else
              {
                op->kind = KS_PTX_OPND_REG;
                op->slot = (guint32) special_regs[i].special;
                p->b.module->specials_used |= 1u << special_regs[i].special;
              }
            return TRUE;
          }
      /* Registers a program may read that tell it nothing here. */
      if (g_str_has_prefix (name, "%envreg") || g_str_has_prefix (name, "%pm")
          || g_str_has_prefix (name, "%reserved_smem"))
        {
          op->kind = KS_PTX_OPND_REG;
          op->slot = KS_EMU_SR_ZERO;
          return TRUE;
        }
      _ks_ptx_fail (p, t, "unknown register %s", name);
      return FALSE;
    }
  op->kind = KS_PTX_OPND_SYM;
  op->var = g_hash_table_lookup (p->module_vars, name);
  op->func = -1;
  if (op->var == NULL)
    {
      gpointer index = g_hash_table_lookup (p->b.module->func_index, name);

      op->func = index != NULL ? GPOINTER_TO_INT (index) - 1 : -1;
    }
  op->name = g_steal_pointer (&name);
  return TRUE;
}

static gboolean
parse_address (Parser *p, KsPtxOperand *op)
{
  const KsPtxToken *t = next (p);

  op->kind = KS_PTX_OPND_ADDR;
  if (t->kind == KS_PTX_TOK_NUMBER)
    {
      KsPtxOperand value = { 0 };

      if (!_ks_ptx_number (p, t, FALSE, &value))
        return FALSE;
      op->bits = value.bits;
    }
  else if (t->kind == KS_PTX_TOK_WORD)
    {
      KsPtxOperand base = { 0 };

      if (!parse_name (p, t, &base))
        return FALSE;
      if (base.kind == KS_PTX_OPND_REG)
        {
          op->addr_reg = TRUE;
          op->slot = base.slot;
        }
      else if (base.kind == KS_PTX_OPND_SYM && base.var != NULL)
        {
          op->var = base.var;
          op->name = base.name;
        }
      else
        {
          _ks_ptx_fail (p, t, "“%.*s” cannot be an address", (int) MIN (t->len, 40), t->text);
          g_free (base.name);
          return FALSE;
        }
    }
  else
    {
      _ks_ptx_fail (p, t, "expected an address");
      return FALSE;
    }
  while (tok_is (peek (p), "+") || tok_is (peek (p), "-"))
    {
      gboolean negative = tok_is (next (p), "-");
      KsPtxOperand value = { 0 };

      negative ^= accept (p, "-");
      t = next (p);
      if (t->kind != KS_PTX_TOK_NUMBER || !_ks_ptx_number (p, t, negative, &value))
        {
          _ks_ptx_fail (p, t, "expected an offset");
          return FALSE;
        }
      op->offset += (gint64) value.bits;
    }
  return _ks_ptx_expect (p, "]");
}

gboolean
_ks_ptx_parse_operand (Parser *p, KsPtxOperand *op, guint depth)
{
  const KsPtxToken *t = peek (p);

  op->pair = G_MAXUINT32;
  op->func = -1;
  if (depth > 4)
    {
      _ks_ptx_fail (p, t, "operands nested too deep");
      return FALSE;
    }
  if (accept (p, "("))
    return parse_group (p, op, KS_PTX_OPND_LIST, ")", depth);
  if (accept (p, "{"))
    return parse_group (p, op, KS_PTX_OPND_VEC, "}", depth);
  if (accept (p, "["))
    return parse_address (p, op);
  if (accept (p, "!"))
    {
      t = next (p);
      if (t->kind != KS_PTX_TOK_WORD || !parse_name (p, t, op) || op->kind != KS_PTX_OPND_PRED)
        {
          _ks_ptx_fail (p, t, "“!” before something other than a predicate");
          return FALSE;
        }
      op->negated = TRUE;
      return TRUE;
    }
  if (accept (p, "-"))
    {
      t = next (p);
      if (t->kind != KS_PTX_TOK_NUMBER)
        {
          _ks_ptx_fail (p, t, "expected a number after “-”");
          return FALSE;
        }
      return _ks_ptx_number (p, t, TRUE, op);
    }
  t = next (p);
  if (t->kind == KS_PTX_TOK_NUMBER)
    return _ks_ptx_number (p, t, FALSE, op);
  if (t->kind != KS_PTX_TOK_WORD)
    {
      _ks_ptx_fail (p, t, "expected an operand");
      return FALSE;
    }
  if (!parse_name (p, t, op))
    return FALSE;
  if ((op->kind == KS_PTX_OPND_REG || op->kind == KS_PTX_OPND_PRED) && accept (p, "|"))
    {
      KsPtxOperand q = { 0 };

      t = next (p);
      if (t->kind != KS_PTX_TOK_WORD || !parse_name (p, t, &q) || q.kind != KS_PTX_OPND_PRED)
        {
          _ks_ptx_fail (p, t, "expected a predicate after “|”");
          return FALSE;
        }
      op->pair = q.pred;
    }
  return TRUE;
}

void
_ks_ptx_operand_clear (KsPtxOperand *op)
{
  for (guint i = 0; i < op->n_elems; i++)
    _ks_ptx_operand_clear (&op->elems[i]);
  g_clear_pointer (&op->elems, g_free);
  g_clear_pointer (&op->name, g_free);
  op->n_elems = 0;
}

