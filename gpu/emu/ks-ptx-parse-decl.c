/* ks-ptx-parse-decl.c: declarations: registers (.reg .b32 %r<12>) and
 * variables of every state space, with their alignment, array sizes and
 * initializers, placed where they live (module memory, the frame, the
 * parameter buffers, shared memory by slot). */
#include "config.h"

#include "ks-error.h"
#include "ks-ptx-parse-private.h"

static void
declare_register (Parser *p, const KsPtxToken *where, const char *name, KsPtxType type)
{
  Sym *sym = g_new0 (Sym, 1);
  KsEmuModule *m = p->b.module;

  sym->type = type;
  if (type == KS_PTX_PRED)
    {
      sym->kind = SYM_PRED;
      sym->index = m->n_preds++;
      p->b.func->pred_count++;
    }
  else
    {
      sym->kind = SYM_REG;
      sym->index = m->n_slots++;
      g_array_append_val (p->b.func->reg_slots, sym->index);
    }
  _ks_ptx_declare (p, where, name, sym);
}

/* .reg .b32 %r<12>, %x; */
void
_ks_ptx_parse_reg_decl (Parser *p)
{
  const KsPtxToken *start = next (p);
  KsPtxType type = KS_PTX_NONE;

  while (peek (p)->kind == KS_PTX_TOK_WORD && peek (p)->text[0] == '.')
    {
      const KsPtxToken *t = next (p);
      g_autofree char *mod = g_strndup (t->text + 1, t->len - 1);

      if (g_str_has_prefix (mod, "v"))
        {
          _ks_ptx_fail (p, t, "vector registers (.reg .%s) are not supported", mod);
          return;
        }
      if (strcmp (mod, "align") == 0)
        {
          guint64 ignored;

          if (!_ks_ptx_parse_uint (p, &ignored))
            return;
          continue;
        }
      type = _ks_ptx_type_from_name (mod);
      if (type == KS_PTX_NONE)
        {
          _ks_ptx_fail (p, t, "unknown register type .%s", mod);
          return;
        }
    }
  if (type == KS_PTX_NONE)
    {
      _ks_ptx_fail (p, start, ".reg without a type");
      return;
    }
  do
    {
      const KsPtxToken *t = next (p);
      g_autofree char *name = NULL;

      if (t->kind != KS_PTX_TOK_WORD)
        {
          _ks_ptx_fail (p, t, "expected a register name");
          return;
        }
      name = tok_dup (t);
      if (accept (p, "<"))
        {
          guint64 count;
          guint64 have = type == KS_PTX_PRED ? p->b.module->n_preds : p->b.module->n_slots;
          guint64 limit = type == KS_PTX_PRED ? KS_EMU_MAX_PREDS : KS_EMU_MAX_SLOTS;

          if (!_ks_ptx_parse_uint (p, &count) || !_ks_ptx_expect (p, ">"))
            return;
          /* The module's limits (checked again by its layout), before a
           * garbled count has a million names made. */
          if (count > limit - MIN (have, limit))
            {
              _ks_ptx_fail (p, t, "%" G_GUINT64_FORMAT " registers are too many", count);
              return;
            }
          for (guint64 i = 0; i < count && !failed (p); i++)
            {
              g_autofree char *one = g_strdup_printf ("%s%" G_GUINT64_FORMAT, name, i);

              declare_register (p, t, one, type);
            }
        }
      else
        declare_register (p, t, name, type);
    }
  while (!failed (p) && accept (p, ","));
  _ks_ptx_expect (p, ";");
}

/* ---- variables ------------------------------------------------------------- */

typedef struct
{
  KsEmuSpace space;
  guint64 align;
  KsPtxType type;
  guint vec;
  gboolean is_extern;
} VarSpec;

static gboolean
space_from_directive (const KsPtxToken *t, KsEmuSpace *space)
{
  static const struct { const char *name; KsEmuSpace space; } spaces[] = {
    { ".global", KS_EMU_SPACE_GLOBAL }, { ".const", KS_EMU_SPACE_CONST },
    { ".shared", KS_EMU_SPACE_SHARED }, { ".local", KS_EMU_SPACE_LOCAL },
    { ".param", KS_EMU_SPACE_PARAM },
  };

  for (guint i = 0; i < G_N_ELEMENTS (spaces); i++)
    if (tok_is (t, spaces[i].name))
      {
        *space = spaces[i].space;
        return TRUE;
      }
  return FALSE;
}

/* The directives between the space and the name: .align N, .vN, the type,
 * and attributes that change nothing here (.ptr, .attribute(…)). */
static gboolean
parse_var_mods (Parser *p, VarSpec *spec)
{
  spec->vec = 1;
  while (peek (p)->kind == KS_PTX_TOK_WORD && peek (p)->text[0] == '.')
    {
      const KsPtxToken *t = next (p);
      g_autofree char *mod = g_strndup (t->text + 1, t->len - 1);
      KsPtxType type;
      KsEmuSpace ignored;

      if (strcmp (mod, "align") == 0)
        {
          if (!_ks_ptx_parse_uint (p, &spec->align))
            return FALSE;
          if (spec->align == 0 || (spec->align & (spec->align - 1)) != 0 || spec->align > 4096)
            {
              _ks_ptx_fail (p, t, "alignment %" G_GUINT64_FORMAT
                            " is not a power of two up to 4096",
                       spec->align);
              return FALSE;
            }
        }
      else if (strcmp (mod, "v2") == 0 || strcmp (mod, "v4") == 0 || strcmp (mod, "v8") == 0)
        spec->vec = (guint) (mod[1] - '0');
      else if (strcmp (mod, "ptr") == 0 || space_from_directive (t, &ignored))
        ; /* a kernel parameter's pointer attributes */
      else if (strcmp (mod, "attribute") == 0)
        {
          if (accept (p, "("))
            while (peek (p)->kind != KS_PTX_TOK_EOF && !accept (p, ")"))
              next (p);
        }
      else if ((type = _ks_ptx_type_from_name (mod)) != KS_PTX_NONE)
        spec->type = type;
      else
        {
          _ks_ptx_fail (p, t, "unknown variable attribute .%s", mod);
          return FALSE;
        }
    }
  if (spec->type == KS_PTX_NONE || spec->type == KS_PTX_PRED)
    {
      _ks_ptx_fail (p, peek (p), "a variable without a type");
      return FALSE;
    }
  return TRUE;
}

/* Writes one initializer value at element index i of var. */
static void
init_element (Parser *p, KsEmuVar *var, guint elem_size, guint64 i, const KsPtxOperand *value)
{
  guint64 bits = value->bits;

  if (i >= var->size / elem_size)
    {
      _ks_ptx_fail (p, peek (p), "more initializers than “%s” has elements", var->name);
      return;
    }
  if (value->kind == KS_PTX_OPND_IMM)
    {
      if (var->type == KS_PTX_F32 && value->imm_kind == KS_PTX_IMM_F64)
        bits = ks_emu_from_f32 ((float) ks_emu_f64 (bits));
      else if (var->type == KS_PTX_F64 && value->imm_kind == KS_PTX_IMM_F32)
        bits = ks_emu_from_f64 (ks_emu_f32 (bits));
      else if (var->type == KS_PTX_F32 && value->imm_kind == KS_PTX_IMM_INT)
        bits = ks_emu_from_f32 ((float) (gint64) bits);
      else if (var->type == KS_PTX_F64 && value->imm_kind == KS_PTX_IMM_INT)
        bits = ks_emu_from_f64 ((double) (gint64) bits);
    }
  if (var->init == NULL)
    var->init = g_malloc0 (var->size);
  /* Little-endian, as the device is. */
  for (guint b = 0; b < elem_size && b < 8; b++)
    var->init[i * elem_size + b] = (guint8) (bits >> (8 * b));
}

/* One initializer value: a number, a variable's address (name, name+4,
 * generic(name)). */
static gboolean
parse_init_value (Parser *p, KsPtxOperand *value)
{
  const KsPtxToken *t = peek (p);
  gboolean negative = accept (p, "-");
  gboolean generic = FALSE;

  memset (value, 0, sizeof *value);
  t = next (p);
  if (t->kind == KS_PTX_TOK_NUMBER)
    return _ks_ptx_number (p, t, negative, value);
  if (t->kind == KS_PTX_TOK_WORD && !negative)
    {
      g_autofree char *name = NULL;
      KsEmuVar *var;

      if (tok_is (t, "generic") && accept (p, "("))
        {
          generic = TRUE;
          t = next (p);
        }
      name = tok_dup (t);
      var = g_hash_table_lookup (p->module_vars, name);
      if (var == NULL || var->kind != KS_EMU_VAR_GLOBAL)
        {
          _ks_ptx_fail (p, t, "an initializer names “%s”, which is not a .global or .const "
                        "variable",
                   name);
          return FALSE;
        }
      value->kind = KS_PTX_OPND_IMM;
      value->imm_kind = KS_PTX_IMM_INT;
      value->bits = var->address;
      if (generic && !_ks_ptx_expect (p, ")"))
        return FALSE;
      if (accept (p, "+"))
        {
          guint64 offset;

          if (!_ks_ptx_parse_uint (p, &offset))
            return FALSE;
          value->bits += offset;
        }
      return TRUE;
    }
  _ks_ptx_fail (p, t, "expected an initializer value");
  return FALSE;
}

/* The values of an initializer, braces flattened, in order. */
static void
parse_initializer (Parser *p, GArray *values, guint depth)
{
  if (depth > 8)
    {
      _ks_ptx_fail (p, peek (p), "initializer braces nested too deep");
      return;
    }
  if (accept (p, "{"))
    {
      if (accept (p, "}"))
        return;
      do
        parse_initializer (p, values, depth + 1);
      while (!failed (p) && values->len <= (1u << 28) && accept (p, ","));
      _ks_ptx_expect (p, "}");
    }
  else
    {
      KsPtxOperand value;

      if (parse_init_value (p, &value))
        g_array_append_val (values, value);
    }
}

static KsEmuVar *
new_var (Parser *p, char *name, const VarSpec *spec, guint64 size)
{
  KsEmuVar *var = g_new0 (KsEmuVar, 1);

  var->name = name;
  var->space = spec->space;
  var->type = spec->type;
  var->size = size;
  var->align = spec->align != 0 ? spec->align : _ks_ptx_type_size (spec->type) * spec->vec;
  if (var->align == 0)
    var->align = 1;
  var->func = p->b.func != NULL ? (gint) p->b.func_index : -1;
  var->slot = G_MAXUINT32;
  g_ptr_array_add (p->b.module->vars, var);
  return var;
}

/* Gives a variable its place: module memory, the frame, the parameters. */
static void
place_var (Parser *p, KsEmuVar *var, gboolean kernel_param)
{
  KsEmuModule *m = p->b.module;
  KsEmuFunc *f = p->b.func;

  switch (var->space)
    {
    case KS_EMU_SPACE_GLOBAL:
    case KS_EMU_SPACE_CONST:
      var->kind = KS_EMU_VAR_GLOBAL;
      /* A gap before every variable, so that an overrun names the one it
       * left instead of landing in the next. */
      m->global_size = ((m->global_size + 256 + var->align - 1) / var->align) * var->align;
      var->address = KS_EMU_MODULE_BASE + m->global_size;
      m->global_size += var->size;
      break;
    case KS_EMU_SPACE_SHARED:
      var->kind = KS_EMU_VAR_SHARED;
      var->dynamic = var->size == 0;
      var->slot = m->n_slots++;
      break;
    case KS_EMU_SPACE_LOCAL:
      var->kind = KS_EMU_VAR_LOCAL;
      if (f == NULL)
        {
          _ks_ptx_fail (p, peek (p), "module-scope .local variables are not supported");
          return;
        }
      f->local_size = (guint32) (((guint64) f->local_size + var->align - 1) / var->align
                                 * var->align);
      var->address = f->local_size;
      f->local_size += (guint32) var->size;
      f->local_align = MAX (f->local_align, (guint32) var->align);
      break;
    case KS_EMU_SPACE_PARAM:
      if (kernel_param)
        {
          var->kind = KS_EMU_VAR_KPARAM;
          f->param_size = (guint32) (((guint64) f->param_size + var->align - 1) / var->align
                                     * var->align);
          var->address = f->param_size;
          f->param_size += (guint32) var->size;
        }
      else
        {
          /* Each function's parameter bytes are its own, at 8-byte aligned
           * offsets in a lane's parameter memory (offsets keep the variable's
           * alignment relative to that). */
          guint64 at = (m->fparam_size + var->align - 1) / var->align * var->align;

          var->kind = KS_EMU_VAR_FPARAM;
          var->address = at;
          m->fparam_size = (guint32) (at + var->size);
          f->fparam_size = m->fparam_size - f->fparam_first;
        }
      break;
    case KS_EMU_SPACE_GENERIC:
    default:
      g_assert_not_reached ();
    }
}

/* .global .align 4 .b8 name[24] = {…};  .shared .f32 a[16][16];  extern .shared … d[]; */
void
_ks_ptx_parse_var_decl (Parser *p, gboolean is_extern, gboolean kernel_param, KsEmuVar **out)
{
  const KsPtxToken *start = next (p);
  VarSpec spec = { 0 };

  if (out != NULL)
    *out = NULL;
  spec.is_extern = is_extern;
  if (!space_from_directive (start, &spec.space))
    {
      _ks_ptx_fail (p, start, "expected a state space");
      return;
    }
  if (!parse_var_mods (p, &spec))
    return;
  do
    {
      const KsPtxToken *t = next (p);
      guint elem_size = _ks_ptx_type_size (spec.type) * spec.vec;
      guint64 count = 1;
      gboolean unsized = FALSE;
      KsEmuVar *var;
      char *name;

      if (t->kind != KS_PTX_TOK_WORD)
        {
          _ks_ptx_fail (p, t, "expected a variable name");
          return;
        }
      name = tok_dup (t);
      while (accept (p, "["))
        {
          guint64 n = 0;

          if (tok_is (peek (p), "]"))
            unsized = TRUE;
          else if (!_ks_ptx_parse_uint (p, &n))
            {
              g_free (name);
              return;
            }
          if (!_ks_ptx_expect (p, "]"))
            {
              g_free (name);
              return;
            }
          if (n != 0 && count > (G_GUINT64_CONSTANT (1) << 40) / n)
            count = G_GUINT64_CONSTANT (1) << 40;
          else
            count *= n;
        }
      if (count * elem_size > (G_GUINT64_CONSTANT (256) << 20))
        {
          _ks_ptx_fail (p, t, "“%s” is larger than 256 MiB", name);
          g_free (name);
          return;
        }
      var = new_var (p, name, &spec, unsized ? 0 : count * elem_size);
      if (accept (p, "="))
        {
          g_autoptr(GArray) values = g_array_new (FALSE, TRUE, sizeof (KsPtxOperand));

          if (var->space != KS_EMU_SPACE_GLOBAL && var->space != KS_EMU_SPACE_CONST)
            {
              _ks_ptx_fail (p, t, "only .global and .const variables have initializers");
              return;
            }
          parse_initializer (p, values, 0);
          if (failed (p))
            return;
          if (unsized)
            var->size = MAX (values->len, 1u) * (guint64) elem_size;
          for (guint i = 0; i < values->len && !failed (p); i++)
            init_element (p, var, elem_size, i, &g_array_index (values, KsPtxOperand, i));
          if (failed (p))
            return;
        }
      else if (unsized && var->space != KS_EMU_SPACE_SHARED)
        {
          _ks_ptx_fail (p, t, "“%s” has no size", var->name);
          return;
        }
      place_var (p, var, kernel_param);
      if (failed (p))
        return;
      if (p->scopes->len == 0)
        {
          KsEmuVar *before = g_hash_table_lookup (p->module_vars, var->name);

          /* An extern declaration of a variable named again is the same one. */
          if (before != NULL && !(is_extern && before->dynamic && var->dynamic))
            {
              _ks_ptx_fail (p, t, "“%s” is declared twice", var->name);
              return;
            }
          if (before == NULL)
            g_hash_table_insert (p->module_vars, var->name, var);
        }
      else
        {
          Sym *sym = g_new0 (Sym, 1);

          sym->kind = SYM_VAR;
          sym->var = var;
          _ks_ptx_declare (p, t, var->name, sym);
        }
      if (out != NULL)
        {
          *out = var;
          return; /* a parameter: one name */
        }
    }
  while (!failed (p) && accept (p, ","));
  _ks_ptx_expect (p, ";");
}

