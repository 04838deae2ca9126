/* fuzz-image.c: image files as an opened file reaches ks_image_load — its
 * size and truncation checks, then gdk-pixbuf's decoders.
 *
 * The input is written to one memfd, reused for every input, and loaded as
 * /proc/self/fd/N: the same path calls as a file on disk, without a
 * temporary file per input. The largest side accepted is lowered to
 * FUZZ_MAX_SIDE: legitimately large images would spend libFuzzer's memory
 * limit, and at 128 the pixels of every image fit the sanitizer's
 * small-block allocator (no fresh pages per input); the refusal of larger
 * ones is the same code with another number.
 *
 * The SVG loader is left out of the loaders gdk-pixbuf sees: vector images
 * are rendered by the worker program in a child process, which a fuzzer
 * must not start thousands of times a second, and librsvg is not
 * Kernelscope's code. gdk-pixbuf's own criticals are printed once each and
 * do not stop the run (those seen so far ks_image_load now avoids: see
 * tests/test-fuzz-regressions.c). */
#include "config.h"

#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <glib/gstdio.h>

#include "kernelscope.h"
#include "ks-image-private.h"
#include "ks-fuzz.h"

#define FUZZ_MAX_SIDE 128u

static int memfd = -1;
static char *memfd_path;
static volatile guint32 sink;

/* A copy of gdk-pixbuf's loader cache without the SVG loader's entry. Entries
 * are separated by blank lines and start with the module's quoted path. */
static void
use_loaders_without_svg (void)
{
  const char *cache = g_getenv ("GDK_PIXBUF_MODULE_FILE");
  g_autofree char *contents = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *path = NULL;
  g_auto (GStrv) entries = NULL;
  g_autoptr (GString) kept = g_string_new (NULL);
  g_autoptr (GError) error = NULL;

  if (cache == NULL)
    cache = KS_FUZZ_PIXBUF_CACHE;
  if (!g_file_get_contents (cache, &contents, NULL, &error))
    g_error ("cannot read the gdk-pixbuf loader cache: %s", error->message);
  entries = g_strsplit (contents, "\n\n", -1);
  for (guint i = 0; entries[i] != NULL; i++)
    if (strstr (entries[i], "pixbufloader-svg") == NULL
        && strstr (entries[i], "pixbufloader_svg") == NULL)
      g_string_append_printf (kept, "%s\n\n", entries[i]);
  dir = g_dir_make_tmp ("ks-fuzz-image-XXXXXX", &error);
  if (dir == NULL)
    g_error ("cannot make a temporary folder: %s", error->message);
  path = g_build_filename (dir, "loaders.cache", NULL);
  if (!g_file_set_contents (path, kept->str, kept->len, &error))
    g_error ("cannot write %s: %s", path, error->message);
  /* gdk-pixbuf reads it once, at the first load. */
  g_setenv ("GDK_PIXBUF_MODULE_FILE", path, TRUE);
}

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  ks_fuzz_init_logging ();
  ks_fuzz_tolerate_domain ("GdkPixbuf");
  use_loaders_without_svg ();
  _ks_image_set_max_side (FUZZ_MAX_SIDE);
  memfd = memfd_create ("fuzz-image", MFD_CLOEXEC);
  if (memfd < 0)
    g_error ("memfd_create: %s", g_strerror (errno));
  memfd_path = g_strdup_printf ("/proc/self/fd/%d", memfd);
  return 0;
}

static void
write_input (const uint8_t *data, size_t size)
{
  size_t done = 0;

  if (ftruncate (memfd, 0) != 0)
    g_error ("ftruncate: %s", g_strerror (errno));
  while (done < size)
    {
      ssize_t n = pwrite (memfd, data + done, size - done, (off_t) done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        g_error ("pwrite: %s", g_strerror (errno));
      done += (size_t) n;
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr (KsImage) image = NULL;
  g_autoptr (GError) error = NULL;
  guint32 sum = 0;

  write_input (data, size);
  image = ks_image_load (memfd_path, &error);
  if (image == NULL)
    {
      /* A refusal is a KS_ERROR the window can show as it is. */
      ks_fuzz_check (error != NULL, "ks_image_load failed without an error");
      ks_fuzz_check (error->domain == KS_ERROR, "error from domain %s: %s",
                     g_quark_to_string (error->domain), error->message);
      ks_fuzz_check (error->code == KS_ERROR_IMAGE || error->code == KS_ERROR_TOO_LARGE,
                     "unexpected error code %d: %s", error->code, error->message);
      ks_fuzz_check (error->message[0] != '\0', "empty error message");
      ks_fuzz_check (g_utf8_validate (error->message, -1, NULL),
                     "the error message is not UTF-8");
      return 0;
    }
  ks_fuzz_check (error == NULL, "an image and an error: %s", error->message);
  ks_fuzz_check (image->format == KS_FORMAT_RGBA8, "format %d", image->format);
  ks_fuzz_check (image->width >= 1 && image->height >= 1
                 && image->width <= KS_IMAGE_MAX_SIDE && image->height <= KS_IMAGE_MAX_SIDE,
                 "an image of %u×%u", image->width, image->height);
  ks_fuzz_check (image->stride >= (gsize) image->width * 4, "stride %" G_GSIZE_FORMAT
                 " for width %u", image->stride, image->width);
  /* Every pixel is read: rows shorter than the image says show as a heap
   * overflow here. */
  for (guint y = 0; y < image->height; y++)
    {
      const guint8 *row = ks_image_row (image, y);
      for (gsize x = 0; x < (gsize) image->width * 4; x++)
        sum += row[x];
    }
  sink = sum;
  return 0;
}
