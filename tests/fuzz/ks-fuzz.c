/* ks-fuzz.c: what the libFuzzer harnesses share. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ks-fuzz.h"

static const char *tolerated_domain;
static GHashTable *tolerated_seen;

static const char *
field (const GLogField *fields, gsize n_fields, const char *key)
{
  for (gsize i = 0; i < n_fields; i++)
    if (g_str_equal (fields[i].key, key) && fields[i].length < 0)
      return fields[i].value;
  return NULL;
}

/* GLib stops on a fatal message with SIGTRAP, which libFuzzer does not
 * catch: abort() makes it a crash with its input saved. */
static GLogWriterOutput
log_writer_cb (GLogLevelFlags log_level, const GLogField *fields, gsize n_fields,
               gpointer user_data)
{
  const char *domain = field (fields, n_fields, "GLIB_DOMAIN");
  const char *message = field (fields, n_fields, "MESSAGE");

  if (log_level & (G_LOG_LEVEL_DEBUG | G_LOG_LEVEL_INFO))
    return G_LOG_WRITER_HANDLED;
  if (!(log_level & G_LOG_LEVEL_ERROR) && tolerated_domain != NULL
      && g_strcmp0 (domain, tolerated_domain) == 0 && message != NULL)
    {
      if (g_hash_table_add (tolerated_seen, g_strdup (message)))
        fprintf (stderr, "ks-fuzz: tolerated (%s): %s\n", domain, message);
      return G_LOG_WRITER_HANDLED;
    }
  g_log_writer_standard_streams (log_level, fields, n_fields, user_data);
  if (log_level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING))
    abort ();
  return G_LOG_WRITER_HANDLED;
}

void
ks_fuzz_tolerate_domain (const char *domain)
{
  tolerated_domain = domain;
  tolerated_seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}

void
ks_fuzz_init_logging (void)
{
  g_log_set_writer_func (log_writer_cb, NULL, NULL);
}

char *
ks_fuzz_string (const uint8_t *data, size_t size)
{
  const uint8_t *nul = memchr (data, '\0', size);

  return g_strndup ((const char *) data, nul != NULL ? (gsize) (nul - data) : size);
}

char **
ks_fuzz_split (const uint8_t *data, size_t size, char separator, guint max_fields)
{
  GPtrArray *fields = g_ptr_array_new ();
  size_t start = 0;

  g_assert (max_fields > 0);
  for (size_t i = 0; i <= size; i++)
    {
      gboolean last = fields->len + 1 == max_fields;

      if (i == size || (!last && data[i] == (uint8_t) separator))
        {
          g_ptr_array_add (fields, ks_fuzz_string (data + start, i - start));
          start = i + 1;
        }
    }
  g_ptr_array_add (fields, NULL);
  return (char **) g_ptr_array_free (fields, FALSE);
}
