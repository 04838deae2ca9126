/* ks-emu-decode.c: a parsed instruction as the emulator's: its modifiers
 * sorted, and the decoder of its instruction group (ks-emu-exec-*.c), which
 * picks the handler and turns the operands into slots (ks-emu-operand.c). */
#include "config.h"

#include "ks-error.h"
#include "ks-emu-private.h"

/* ---- modifiers -------------------------------------------------------------- */

static const struct
{
  const char *name;
  KsEmuSpace space;
} space_mods[] = {
  { "global", KS_EMU_SPACE_GLOBAL }, { "shared", KS_EMU_SPACE_SHARED },
  { "shared::cta", KS_EMU_SPACE_SHARED }, { "shared::cluster", KS_EMU_SPACE_SHARED },
  { "local", KS_EMU_SPACE_LOCAL }, { "const", KS_EMU_SPACE_CONST },
  { "param", KS_EMU_SPACE_PARAM }, { "param::entry", KS_EMU_SPACE_PARAM },
  { "param::func", KS_EMU_SPACE_PARAM },
};

static const struct
{
  const char *name;
  KsPtxRounding rounding;
} rounding_mods[] = {
  { "rn", KS_PTX_RND_RN }, { "rz", KS_PTX_RND_RZ }, { "rm", KS_PTX_RND_RM },
  { "rp", KS_PTX_RND_RP }, { "rni", KS_PTX_RND_RNI }, { "rzi", KS_PTX_RND_RZI },
  { "rmi", KS_PTX_RND_RMI }, { "rpi", KS_PTX_RND_RPI }, { "rna", KS_PTX_RND_RNA },
};

static void
parse_mods (const KsPtxInsn *pi, KsPtxMods *m)
{
  memset (m, 0, sizeof *m);
  m->vec = 1;
  for (guint i = 1; i < pi->n_parts; i++)
    {
      const char *part = pi->parts[i];
      KsPtxType type = _ks_ptx_type_from_name (part);
      gboolean known = FALSE;

      if (type != KS_PTX_NONE && m->n_types < G_N_ELEMENTS (m->types))
        {
          m->types[m->n_types++] = type;
          continue;
        }
      for (guint j = 0; j < G_N_ELEMENTS (space_mods) && !known; j++)
        if (strcmp (part, space_mods[j].name) == 0)
          {
            m->has_space = TRUE;
            m->space = space_mods[j].space;
            known = TRUE;
          }
      for (guint j = 0; j < G_N_ELEMENTS (rounding_mods) && !known; j++)
        if (strcmp (part, rounding_mods[j].name) == 0)
          {
            m->rounding = rounding_mods[j].rounding;
            known = TRUE;
          }
      if (!known && (strcmp (part, "v2") == 0 || strcmp (part, "v4") == 0
                     || strcmp (part, "v8") == 0))
        {
          m->vec = (guint) (part[1] - '0');
          known = TRUE;
        }
      if (!known && m->n_rest < G_N_ELEMENTS (m->rest))
        m->rest[m->n_rest++] = part;
    }
}

void
_ks_ptx_drop_ignorable (KsPtxMods *m)
{
  /* Cache operators, eviction priorities, memory orders and scopes: the
   * emulator's memory is coherent and every access happens in order. */
  static const char *const ignorable[] = {
    "ca", "cg", "cs", "lu", "cv", "wb", "wt", "nc", "volatile", "relaxed", "acquire", "release",
    "acq_rel", "sc", "weak", "mmio", "cta", "gpu", "sys", "cluster", "aligned", "uni",
    "unified",
  };
  guint kept = 0;

  for (guint i = 0; i < m->n_rest; i++)
    {
      const char *r = m->rest[i];
      gboolean drop = g_str_has_prefix (r, "L1::") || g_str_has_prefix (r, "L2::")
                      || g_str_has_prefix (r, "evict_") || g_str_has_prefix (r, "level::");

      for (guint j = 0; j < G_N_ELEMENTS (ignorable) && !drop; j++)
        drop = strcmp (r, ignorable[j]) == 0;
      if (strcmp (r, "L2::cache_hint") == 0)
        drop = FALSE; /* it adds an operand */
      if (!drop)
        m->rest[kept++] = r;
    }
  m->n_rest = kept;
}

/* ---- the decoders ----------------------------------------------------------- */

static gpointer
build_table (gpointer data)
{
  static const KsEmuDecoder *const groups[] = {
    _ks_emu_decoders_int, _ks_emu_decoders_cmp, _ks_emu_decoders_bits, _ks_emu_decoders_float,
    _ks_emu_decoders_cvt,
    _ks_emu_decoders_mem, _ks_emu_decoders_control, _ks_emu_decoders_warp,
  };
  GHashTable *table = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = 0; i < G_N_ELEMENTS (groups); i++)
    for (const KsEmuDecoder *d = groups[i]; d->base != NULL; d++)
      {
        g_assert (!g_hash_table_contains (table, d->base));
        g_hash_table_insert (table, (gpointer) d->base, (gpointer) d);
      }
  return table;
}

gboolean
_ks_emu_decode (KsEmuBuild *b, const KsPtxInsn *pi, KsEmuInsn *insn)
{
  static GOnce once = G_ONCE_INIT;
  GHashTable *table = g_once (&once, build_table, NULL);
  const KsEmuDecoder *decoder = g_hash_table_lookup (table, pi->parts[0]);
  KsPtxMods m;

  if (decoder == NULL)
    {
      _ks_emu_build_error (b, "the instruction “%s” is not supported by the emulator",
                           pi->text);
      return FALSE;
    }
  parse_mods (pi, &m);
  _ks_ptx_drop_ignorable (&m);
  if (!decoder->decode (b, pi, &m, insn))
    {
      _ks_emu_build_error (b, "the instruction “%s” is not supported by the emulator (in this "
                           "form)", pi->text);
      return FALSE;
    }
  if (b->error != NULL)
    return FALSE;
  if (m.n_rest > 0)
    {
      _ks_emu_build_error (b, "the modifier .%s of “%s” is not supported by the emulator",
                           m.rest[0], pi->text);
      return FALSE;
    }
  for (guint i = 0; i < G_N_ELEMENTS (insn->o); i++)
    if (insn->o[i] == G_MAXUINT32)
      {
        _ks_emu_build_error (b, "“%s”: an operand cannot be used", pi->text);
        return FALSE;
      }
  g_assert (insn->fn != NULL);
  return TRUE;
}
