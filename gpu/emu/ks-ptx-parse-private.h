/* ks-ptx-parse-private.h: what the three files of the PTX parser share:
 * the parser's state over the tokens, the scopes of names, and the
 * functions each file gives the others (ks-ptx-parse-names.c: messages,
 * numbers, scopes and operands; ks-ptx-parse-decl.c: registers and
 * variables; ks-ptx-parse.c: functions, instructions and the module). */
#pragma once

#include "ks-emu-private.h"

G_BEGIN_DECLS

typedef enum
{
  SYM_REG,
  SYM_PRED,
  SYM_VAR,
} SymKind;

typedef struct
{
  SymKind kind;
  KsPtxType type;
  guint32 index;     /* slot or predicate */
  KsEmuVar *var;
} Sym;

typedef struct
{
  const KsPtxToken *t;
  guint n;
  guint pos;
  KsEmuBuild b;
  GPtrArray *scopes;       /* GHashTable: name → Sym, innermost last */
  GHashTable *module_vars; /* name → KsEmuVar */
  GHashTable *labels;      /* name → pc + 1, of the function being parsed */
  GHashTable *loc_keys;    /* file, line and column → locs index + 1 */
  guint32 loc_index;       /* of the instructions that follow */
} Parser;

static inline const KsPtxToken *
peek (Parser *p)
{
  return &p->t[p->pos];
}

static inline const KsPtxToken *
peek_at (Parser *p, guint ahead)
{
  return &p->t[MIN (p->pos + ahead, p->n - 1)];
}

static inline const KsPtxToken *
next (Parser *p)
{
  const KsPtxToken *t = &p->t[p->pos];

  if (t->kind != KS_PTX_TOK_EOF)
    p->pos++;
  return t;
}

static inline gboolean
tok_is (const KsPtxToken *t, const char *text)
{
  return t->kind != KS_PTX_TOK_EOF && t->kind != KS_PTX_TOK_STRING
         && t->len == strlen (text) && memcmp (t->text, text, t->len) == 0;
}

static inline gboolean
accept (Parser *p, const char *text)
{
  if (!tok_is (peek (p), text))
    return FALSE;
  next (p);
  return TRUE;
}

static inline char *
tok_dup (const KsPtxToken *t)
{
  return g_strndup (t->text, t->len);
}

static inline gboolean
failed (Parser *p)
{
  return p->b.error != NULL;
}

void          _ks_ptx_fail               (Parser *p, const KsPtxToken *t, const char *format,
                                          ...) G_GNUC_PRINTF (3, 4);
gboolean      _ks_ptx_expect             (Parser *p, const char *text);
/* Skips what is left of a directive written on one line (.version, .loc). */
void          _ks_ptx_skip_line          (Parser *p);
void          _ks_ptx_skip_statement     (Parser *p);
gboolean      _ks_ptx_parse_uint         (Parser *p, guint64 *value);
gboolean      _ks_ptx_number             (Parser *p, const KsPtxToken *t, gboolean negative,
                                          KsPtxOperand *op);
Sym          *_ks_ptx_lookup             (Parser *p, const char *name);
void          _ks_ptx_push_scope         (Parser *p);
void          _ks_ptx_pop_scope          (Parser *p);
/* Takes sym. */
void          _ks_ptx_declare            (Parser *p, const KsPtxToken *where, const char *name,
                                          Sym *sym);
gboolean      _ks_ptx_parse_operand      (Parser *p, KsPtxOperand *op, guint depth);
void          _ks_ptx_operand_clear      (KsPtxOperand *op);
void          _ks_ptx_parse_reg_decl     (Parser *p);
/* A variable declaration at p (the space's directive). A parameter
 * (out != NULL) declares one name and no “;”; kernel_param places it in the
 * entry's parameter buffer. */
void          _ks_ptx_parse_var_decl     (Parser *p, gboolean is_extern, gboolean kernel_param,
                                          KsEmuVar **out);

G_END_DECLS
