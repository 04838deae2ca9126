/* ks-emu-printf.c: the device's printf and assert, which NVRTC turns into
 * calls of vprintf(format, args) and __assertfail(message, file, line,
 * function, size).
 *
 * vprintf's args point to the thread's local memory, where each argument is
 * at the next offset aligned to its size: 4 bytes for int and char (and
 * short, promoted), 8 for long, long long, double (float is promoted),
 * pointers and %s. Conversions are formatted by the host's printf, as the
 * CUDA driver formats a kernel's output; the text goes to the block's
 * output, merged block by block in blockIdx order. */
#include "config.h"

#include "ks-emu-private.h"

/* A block prints at most this much (the GPU's printf buffer is 1 MiB for a
 * whole launch by default); what is left out is marked. */
#define MAX_BLOCK_OUTPUT (1u << 20)

static gboolean
read_arg (KsEmuWarp *w, guint lane, guint64 address, guint size, guint64 *value)
{
  gsize avail;
  const guint8 *p = _ks_emu_host_span (w, lane, address, &avail);

  *value = 0;
  if (p == NULL || avail < size)
    return FALSE;
  memcpy (value, p, size);
  return TRUE;
}

/* The device's format, one conversion at a time, rebuilt for the host's
 * types: the format is the kernel's, not a literal here. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

gint32
_ks_emu_vprintf (KsEmuWarp *w, guint lane, const KsEmuInsn *insn, guint64 format, guint64 args)
{
  KsEmuBlock *b = w->block;
  g_autofree char *fmt = _ks_emu_read_string (w, lane, format, 4096);
  g_autoptr(GString) out = g_string_new (NULL);
  guint64 offset = 0;
  gint32 n_args = 0;

  if (fmt == NULL)
    return -1;
  for (const char *p = fmt; *p != '\0'; p++)
    {
      char spec[64];
      gsize len = 0;
      char conv;
      guint size = 4;
      gboolean is_long = FALSE;
      guint64 v = 0;
      const char *start = p;

      if (*p != '%')
        {
          g_string_append_c (out, *p);
          continue;
        }
      if (p[1] == '%')
        {
          g_string_append_c (out, '%');
          p++;
          continue;
        }
      /* %[flags][width][.precision][length]conversion */
      p++;
      while (*p != '\0' && strchr ("-+ #0", *p) != NULL)
        p++;
      while (g_ascii_isdigit (*p))
        p++;
      if (*p == '.')
        {
          p++;
          while (g_ascii_isdigit (*p))
            p++;
        }
      len = (gsize) (p - start);
      while (*p != '\0' && strchr ("hlLzjt", *p) != NULL)
        {
          if (*p == 'l' || *p == 'L' || *p == 'z' || *p == 'j' || *p == 't')
            is_long = TRUE;
          p++;
        }
      conv = *p;
      if (conv == '\0' || len + 4 >= sizeof spec)
        {
          g_string_append_len (out, start, p - start);
          break;
        }
      memcpy (spec, start, len);
      if (strchr ("diuxXoc", conv) != NULL)
        size = is_long ? 8 : 4;
      else if (strchr ("fFeEgGaAsp", conv) != NULL)
        size = 8;
      else
        {
          /* Not a conversion printf knows: printed as written. */
          g_string_append_len (out, start, p - start + 1);
          continue;
        }
      offset = (offset + size - 1) / size * size;
      if (!read_arg (w, lane, args + offset, size, &v))
        v = 0;
      offset += size;
      n_args++;
      switch (conv)
        {
        case 'd':
        case 'i':
          memcpy (spec + len, "lld", 4);
          g_string_append_printf (out, spec, size == 8 ? (long long) v : (long long) (gint32) v);
          break;
        case 'u':
        case 'x':
        case 'X':
        case 'o':
          spec[len] = 'l';
          spec[len + 1] = 'l';
          spec[len + 2] = conv;
          spec[len + 3] = '\0';
          g_string_append_printf (out, spec, size == 8 ? (unsigned long long) v
                                                       : (unsigned long long) (guint32) v);
          break;
        case 'c':
          spec[len] = 'c';
          spec[len + 1] = '\0';
          g_string_append_printf (out, spec, (int) (guchar) v);
          break;
        case 's':
          {
            g_autofree char *s = v != 0 ? _ks_emu_read_string (w, lane, v, 65536) : NULL;

            spec[len] = 's';
            spec[len + 1] = '\0';
            g_string_append_printf (out, spec, s != NULL ? s : "(null)");
            break;
          }
        case 'p':
          spec[len] = 'p';
          spec[len + 1] = '\0';
          g_string_append_printf (out, spec, (void *) (guintptr) v);
          break;
        default:
          spec[len] = conv;
          spec[len + 1] = '\0';
          g_string_append_printf (out, spec, ks_emu_f64 (v));
          break;
        }
    }
  if (b->printf_out == NULL)
    b->printf_out = g_string_new (NULL);
  if (b->printf_out->len + out->len > MAX_BLOCK_OUTPUT)
    {
      if (b->printf_out->len <= MAX_BLOCK_OUTPUT)
        {
          g_string_append (b->printf_out, "[printf output of this block cut off at 1 MiB]\n");
          b->printf_lines++;
        }
      return n_args;
    }
  for (gsize i = 0; i < out->len; i++)
    b->printf_lines += out->str[i] == '\n';
  g_string_append_len (b->printf_out, out->str, (gssize) out->len);
  return n_args;
}

#pragma GCC diagnostic pop

void
_ks_emu_assertfail (KsEmuWarp *w, guint lane, const KsEmuInsn *insn, guint64 message,
                    guint64 file, guint32 line, guint64 function)
{
  g_autofree char *msg = _ks_emu_read_string (w, lane, message, 4096);
  g_autofree char *src = _ks_emu_read_string (w, lane, file, 4096);
  g_autofree char *fn = _ks_emu_read_string (w, lane, function, 4096);
  KsEmuFinding *f = _ks_emu_finding_new (w, lane, insn, KS_EMU_FINDING_TRAP);
  g_autofree char *where = NULL;

  if (line != 0 && f->line == 0)
    f->line = line;
  where = _ks_emu_finding_where (w->block->module, f);
  /* The line CUDA's device assert prints, then where. */
  f->message = g_strdup_printf ("%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion "
                                "`%s` failed.\n%s", src != NULL ? src : "?", line,
                                fn != NULL ? fn : "?", f->block.x, f->block.y, f->block.z,
                                f->thread.x, f->thread.y, f->thread.z,
                                msg != NULL ? msg : "?", where);
  _ks_emu_block_fault (w->block, f);
  _ks_emu_exit_lanes (w, w->alive);
}
