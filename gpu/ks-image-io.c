#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <glib/gstdio.h>
#include <gdk-pixbuf/gdk-pixbuf.h>
#include <gio/gio.h>

#include "ks-error.h"
#include "ks-file.h"
#include "ks-image.h"
#include "ks-image-private.h"
#include "ks-worker-private.h"

/* What ks_image_load accepts on either side (_ks_image_set_max_side). */
static guint max_side = KS_IMAGE_MAX_SIDE;

void
_ks_image_set_max_side (guint side)
{
  max_side = side != 0 ? MIN (side, KS_IMAGE_MAX_SIDE) : KS_IMAGE_MAX_SIDE;
}

typedef struct
{
  int width;
  int height;
  gboolean too_large;
} SizeCheck;

/* Decoding a 100000×100000 header would allocate 40 GB before failing: refuse
 * in size-prepared, before the loader allocates the pixbuf. */
static void
on_size_prepared_cb (GdkPixbufLoader *loader, int width, int height, gpointer user_data)
{
  SizeCheck *check = user_data;

  check->width = width;
  check->height = height;
  if (width <= 0 || height <= 0 || (guint) width > KS_IMAGE_MAX_SIDE
      || (guint) height > KS_IMAGE_MAX_SIDE)
    {
      check->too_large = TRUE;
      /* A 1×1 target keeps the loader from allocating the full size. */
      gdk_pixbuf_loader_set_size (loader, 1, 1);
    }
}

static KsImage *
image_from_pixbuf (GdkPixbuf *pixbuf, GError **error)
{
  int w = gdk_pixbuf_get_width (pixbuf), h = gdk_pixbuf_get_height (pixbuf);
  int n_channels = gdk_pixbuf_get_n_channels (pixbuf);
  int rowstride = gdk_pixbuf_get_rowstride (pixbuf);
  gboolean alpha = gdk_pixbuf_get_has_alpha (pixbuf);
  const guint8 *pixels = gdk_pixbuf_read_pixels (pixbuf);
  KsImage *image;

  if (gdk_pixbuf_get_bits_per_sample (pixbuf) != 8 || n_channels < 3)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_IMAGE,
                   "Unsupported pixel layout (%d bits per sample, %d channels)",
                   gdk_pixbuf_get_bits_per_sample (pixbuf), n_channels);
      return NULL;
    }
  image = ks_image_new (KS_FORMAT_RGBA8, w, h, error);
  if (image == NULL)
    return NULL;
  for (int y = 0; y < h; y++)
    {
      const guint8 *src = pixels + (gsize) y * rowstride;
      guint8 *dst = ks_image_row (image, y);
      if (alpha && n_channels == 4)
        memcpy (dst, src, (gsize) w * 4);
      else
        for (int x = 0; x < w; x++)
          {
            dst[4 * x + 0] = src[n_channels * x + 0];
            dst[4 * x + 1] = src[n_channels * x + 1];
            dst[4 * x + 2] = src[n_channels * x + 2];
            dst[4 * x + 3] = 255;
          }
    }
  return image;
}

static KsImage *
load_data (const guint8 *data, gsize len, const char *what, GError **error)
{
  g_autoptr (GdkPixbufLoader) loader = NULL;
  g_autoptr (GError) local_error = NULL;
  SizeCheck check = { 0, 0, FALSE };
  gboolean ok;
  GdkPixbuf *pixbuf;

  if (len == 0)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_IMAGE, "%s is empty", what);
      return NULL;
    }
  loader = gdk_pixbuf_loader_new ();
  g_signal_connect (loader, "size-prepared", G_CALLBACK (on_size_prepared_cb), &check);
  ok = gdk_pixbuf_loader_write (loader, data, len, &local_error);
  /* close() must run even after a failed write, or the loader warns on finalize. */
  if (!gdk_pixbuf_loader_close (loader, ok ? &local_error : NULL))
    ok = FALSE;
  if (check.too_large)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_TOO_LARGE,
                   "%s is %d×%d pixels; Kernelscope opens images up to %u×%u",
                   what, check.width, check.height, KS_IMAGE_MAX_SIDE, KS_IMAGE_MAX_SIDE);
      return NULL;
    }
  if (!ok)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_IMAGE, "%s could not be read: %s", what,
                   local_error != NULL ? local_error->message : "the data is incomplete");
      return NULL;
    }
  pixbuf = gdk_pixbuf_loader_get_pixbuf (loader);
  if (pixbuf == NULL)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_IMAGE, "%s is not an image Kernelscope can read",
                   what);
      return NULL;
    }
  return image_from_pixbuf (pixbuf, error);
}

static guint32
read_le32 (const guint8 *p)
{
  return (guint32) p[0] | (guint32) p[1] << 8 | (guint32) p[2] << 16 | (guint32) p[3] << 24;
}

/* Whether a JPEG or BMP file holds all the data its header promises. Their
 * decoders recover from a file cut short — gray or black where the data
 * ended, and no error — so a truncated download would open as an image. A
 * JPEG ends with an end-of-image marker (FF D9; some writers append padding
 * after it, so the last 4 KiB are searched); a BMP's uncompressed pixel rows
 * have a size its header gives. */
static gboolean
check_complete (const char *path, const char *display, const char *format, goffset size,
                GError **error)
{
  g_autoptr (GFile) file = NULL;
  g_autoptr (GFileInputStream) in = NULL;
  guint8 buf[4096];
  gsize got = 0;

  if (g_strcmp0 (format, "jpeg") != 0 && g_strcmp0 (format, "bmp") != 0)
    return TRUE;
  file = g_file_new_for_path (path);
  in = g_file_read (file, NULL, NULL);
  if (in == NULL)
    return TRUE; /* the decoder reports what is wrong */
  if (g_str_equal (format, "jpeg"))
    {
      goffset from = MAX (size - (goffset) sizeof buf, 0);

      if (!g_seekable_seek (G_SEEKABLE (in), from, G_SEEK_SET, NULL, NULL)
          || !g_input_stream_read_all (G_INPUT_STREAM (in), buf, sizeof buf, &got, NULL, NULL))
        return TRUE;
      for (gsize i = got; i >= 2; i--)
        if (buf[i - 2] == 0xff && buf[i - 1] == 0xd9)
          return TRUE;
      g_set_error (error, KS_ERROR, KS_ERROR_IMAGE,
                   "“%s” is truncated: the JPEG data ends before the image does (no end-of-image "
                   "marker)", display);
      return FALSE;
    }

  if (!g_input_stream_read_all (G_INPUT_STREAM (in), buf, 54, &got, NULL, NULL) || got < 54
      || buf[0] != 'B' || buf[1] != 'M' || read_le32 (buf + 14) < 40)
    return TRUE;
  {
    guint32 offset = read_le32 (buf + 10);
    gint32 width = (gint32) read_le32 (buf + 18);
    gint32 height = (gint32) read_le32 (buf + 22);
    guint bits = buf[28] | buf[29] << 8;
    guint32 compression = read_le32 (buf + 30);
    guint64 row, need;

    /* Only uncompressed rows (BI_RGB, BI_BITFIELDS) have a known size. */
    if ((compression != 0 && compression != 3) || width <= 0 || height == 0 || bits == 0)
      return TRUE;
    row = ((guint64) width * bits + 31) / 32 * 4;
    need = (guint64) offset + row * (guint64) ABS ((gint64) height);
    if ((guint64) size < need)
      {
        g_set_error (error, KS_ERROR, KS_ERROR_IMAGE,
                     "“%s” is truncated: the BMP header promises %" G_GUINT64_FORMAT
                     " bytes, the file has %" G_GINT64_FORMAT, display, need, (gint64) size);
        return FALSE;
      }
  }
  return TRUE;
}

/* ---- vector images ---------------------------------------------------------- */

/* A vector image's cost is not its size: a 1 KB SVG with a wide blur renders
 * for minutes in gigabytes. They are rendered by the worker program under a
 * budget — RENDER_SECONDS of time, and address space for a few surfaces of the
 * image's size (a filter needs several) — that the kernel enforces, so that nothing of it can hang or exhaust
 * this process. */
#define RENDER_SECONDS 10
#define RENDER_BASE_BYTES ((guint64) 1 << 30)
#define RENDER_SURFACES 6

#if defined(__SANITIZE_ADDRESS__)
#define KS_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KS_ASAN 1
#endif
#endif

typedef struct
{
  guint64 bytes;
} RenderBudget;

/* In the child between fork and exec: async-signal-safe calls only. */
static void
render_child_setup (gpointer data)
{
  const RenderBudget *budget = data;
  struct rlimit cpu = { RENDER_SECONDS, RENDER_SECONDS + 1 };

  setrlimit (RLIMIT_CPU, &cpu);
#ifndef KS_ASAN
  {
    /* AddressSanitizer reserves terabytes of address space: no limit there. */
    struct rlimit as = { budget->bytes, budget->bytes };

    setrlimit (RLIMIT_AS, &as);
  }
#else
  (void) budget;
#endif
  /* Wall-clock time too (a timer survives exec): a renderer that sleeps or
   * waits is ended like one that computes. */
  alarm (RENDER_SECONDS);
}

static char *
render_stderr (int fd)
{
  char buf[1024];
  ssize_t n = pread (fd, buf, sizeof buf - 1, 0);
  char *line, *nl;

  buf[MAX (n, 0)] = '\0';
  line = g_utf8_make_valid (buf, -1);
  nl = strchr (line, '\n');
  if (nl != NULL)
    *nl = '\0';
  return line;
}

static KsImage *
render_vector (const char *path, const char *display, int width, int height, GError **error)
{
  g_autofree char *program = NULL;
  g_autofree char *side = g_strdup_printf ("%u", max_side);
  g_autoptr (GSubprocessLauncher) launcher = NULL;
  g_autoptr (GSubprocess) process = NULL;
  g_autoptr (GError) local = NULL;
  g_autoptr (KsImage) image = NULL;
  RenderBudget budget;
  GInputStream *out;
  guint32 header[2] = { 0, 0 };
  gsize got = 0;
  gboolean read_ok;
  int err_fd;

  program = _ks_worker_find_program (&local);
  if (program == NULL)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_IMAGE,
                   "“%s” is a vector image, which Kernelscope renders in a separate process: %s",
                   display, local->message);
      return NULL;
    }
  budget.bytes = RENDER_BASE_BYTES + (guint64) RENDER_SURFACES * 4 * width * height;
  /* memfd_create without _GNU_SOURCE (the build does not define it). */
  err_fd = (int) syscall (SYS_memfd_create, "kernelscope-render-stderr", 1u /* MFD_CLOEXEC */);
  if (err_fd < 0)
    {
      int saved = errno;

      g_set_error (error, KS_ERROR, KS_ERROR_IMAGE, "Cannot render “%s”: %s", display,
                   g_strerror (saved));
      return NULL;
    }
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE
                                        | G_SUBPROCESS_FLAGS_STDIN_INHERIT);
  g_subprocess_launcher_take_stderr_fd (launcher, dup (err_fd));
  /* A loader's warning is not the renderer's failure, even in a test run. */
  g_subprocess_launcher_unsetenv (launcher, "G_DEBUG");
  g_subprocess_launcher_set_child_setup (launcher, render_child_setup, &budget, NULL);
  process = g_subprocess_launcher_spawn (launcher, &local, program, "--render", path,
                                         "--max-side", side, NULL);
  if (process == NULL)
    {
      close (err_fd);
      g_set_error (error, KS_ERROR, KS_ERROR_IMAGE, "Cannot render “%s”: %s", display,
                   local->message);
      return NULL;
    }

  out = g_subprocess_get_stdout_pipe (process);
  read_ok = g_input_stream_read_all (out, header, sizeof header, &got, NULL, NULL)
            && got == sizeof header && header[0] >= 1 && header[1] >= 1
            && header[0] <= max_side && header[1] <= max_side;
  if (read_ok)
    image = ks_image_new (KS_FORMAT_RGBA8, header[0], header[1], NULL);
  for (guint y = 0; read_ok && image != NULL && y < image->height; y++)
    read_ok = g_input_stream_read_all (out, ks_image_row (image, y), (gsize) image->width * 4,
                                       &got, NULL, NULL)
              && got == (gsize) image->width * 4;
  /* A child that stops reading ends here; one that is still writing is killed. */
  if (!read_ok || image == NULL)
    g_subprocess_force_exit (process);
  g_input_stream_close (out, NULL, NULL);
  g_subprocess_wait (process, NULL, NULL);

  if (g_subprocess_get_if_signaled (process))
    {
      int sig = g_subprocess_get_term_sig (process);

      close (err_fd);
      if (sig == SIGXCPU || sig == SIGALRM)
        g_set_error (error, KS_ERROR, KS_ERROR_TOO_LARGE,
                     "“%s” takes more than %d s to render; Kernelscope stops vector images "
                     "there", display, RENDER_SECONDS);
      else if (sig == SIGKILL && image == NULL)
        g_set_error (error, KS_ERROR, KS_ERROR_TOO_LARGE,
                     "Not enough memory to render “%s”", display);
      else if (sig == SIGKILL)
        return g_steal_pointer (&image);  /* killed after sending everything */
      else
        g_set_error (error, KS_ERROR, KS_ERROR_TOO_LARGE,
                     "“%s” could not be rendered within %" G_GUINT64_FORMAT " MiB of memory "
                     "(the renderer stopped with signal %s)", display, budget.bytes >> 20,
                     g_strsignal (sig));
      return NULL;
    }
  if (g_subprocess_get_exit_status (process) != 0 || !read_ok || image == NULL)
    {
      g_autofree char *why = render_stderr (err_fd);

      close (err_fd);
      /* The loader's reason, which may be the budget's: its allocation failed. */
      g_set_error (error, KS_ERROR, KS_ERROR_IMAGE,
                   "%s (Kernelscope renders vector images within %" G_GUINT64_FORMAT
                   " MiB and %d s)", *why != '\0' ? why : "The renderer failed",
                   budget.bytes >> 20, RENDER_SECONDS);
      return NULL;
    }
  close (err_fd);
  return g_steal_pointer (&image);
}

int
_ks_image_render_main (const char *path, guint side)
{
  g_autofree char *display = g_filename_display_basename (path);
  g_autoptr (GError) error = NULL;
  g_autoptr (GdkPixbuf) pixbuf = NULL;
  g_autoptr (KsImage) image = NULL;
  guint32 header[2];

  max_side = MIN (side, KS_IMAGE_MAX_SIDE);
  pixbuf = gdk_pixbuf_new_from_file (path, &error);
  if (pixbuf == NULL)
    {
      fprintf (stderr, "“%s” could not be rendered: %s\n", display, error->message);
      return 1;
    }
  if ((guint) gdk_pixbuf_get_width (pixbuf) > max_side
      || (guint) gdk_pixbuf_get_height (pixbuf) > max_side)
    {
      fprintf (stderr, "“%s” is %d×%d pixels; Kernelscope opens images up to %u×%u\n", display,
                  gdk_pixbuf_get_width (pixbuf), gdk_pixbuf_get_height (pixbuf), max_side,
                  max_side);
      return 1;
    }
  image = image_from_pixbuf (pixbuf, &error);
  if (image == NULL)
    {
      fprintf (stderr, "“%s” could not be rendered: %s\n", display, error->message);
      return 1;
    }
  g_clear_object (&pixbuf);
  header[0] = image->width;
  header[1] = image->height;
  if (fwrite (header, sizeof header, 1, stdout) != 1)
    return 1;
  for (guint y = 0; y < image->height; y++)
    if (fwrite (ks_image_row (image, y), (gsize) image->width * 4, 1, stdout) != 1)
      return 1;
  return fflush (stdout) == 0 ? 0 : 1;
}

KsImage *
ks_image_load (const char *path, GError **error)
{
  g_autofree char *display = NULL;
  g_autoptr (GError) local_error = NULL;
  g_autoptr (GdkPixbuf) pixbuf = NULL;
  GdkPixbufFormat *format;
  GStatBuf st;
  int width = 0, height = 0;

  g_return_val_if_fail (path != NULL, NULL);
  display = g_filename_display_basename (path);
  if (g_stat (path, &st) != 0 || g_access (path, R_OK) != 0)
    {
      int saved = errno;
      g_set_error (error, KS_ERROR, KS_ERROR_IMAGE, "Cannot open “%s”: %s", display,
                   g_strerror (saved));
      return NULL;
    }
  if (!S_ISREG (st.st_mode))
    {
      g_set_error (error, KS_ERROR, KS_ERROR_IMAGE, "Cannot open “%s”: %s", display,
                   S_ISDIR (st.st_mode) ? g_strerror (EISDIR) : "not a regular file");
      return NULL;
    }
  if (st.st_size == 0)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_IMAGE, "“%s” is empty", display);
      return NULL;
    }
  /* Only the header is read here: absurd dimensions are refused before any
   * pixel memory is allocated. */
  format = gdk_pixbuf_get_file_info (path, &width, &height);
  if (format == NULL)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_IMAGE,
                   "“%s” is not an image Kernelscope can read (unknown or damaged format)",
                   display);
      return NULL;
    }
  if (width <= 0 || height <= 0 || (guint) width > max_side || (guint) height > max_side)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_TOO_LARGE,
                   "“%s” is %d×%d pixels; Kernelscope opens images up to %u×%u", display, width,
                   height, max_side, max_side);
      return NULL;
    }
  if (gdk_pixbuf_format_is_scalable (format))
    return render_vector (path, display, width, height, error);
  {
    g_autofree char *name = gdk_pixbuf_format_get_name (format);

    if (!check_complete (path, display, name, st.st_size, error))
      return NULL;
  }
  /* The whole-file decoders notice truncated PNG data, which the incremental
   * loader lets through as a partly black image. */
  pixbuf = gdk_pixbuf_new_from_file (path, &local_error);
  if (pixbuf == NULL)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_IMAGE, "“%s” could not be read: %s", display,
                   local_error->message);
      return NULL;
    }
  return image_from_pixbuf (pixbuf, error);
}

KsImage *
ks_image_load_bytes (GBytes *bytes, GError **error)
{
  g_autofree char *path = NULL;
  g_autoptr (GError) local_error = NULL;
  KsImage *image;
  gsize len = 0;
  const guint8 *data;
  int fd;

  g_return_val_if_fail (bytes != NULL, NULL);
  data = g_bytes_get_data (bytes, &len);
  if (len == 0)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_IMAGE, "The image data is empty");
      return NULL;
    }
  /* Through a file, so that the same whole-file decoders as for opened files
   * see the data: they refuse truncated images, the incremental loader does not. */
  fd = g_file_open_tmp ("kernelscope-XXXXXX", &path, &local_error);
  if (fd < 0)
    return load_data (data, len, "The image", error);
  close (fd);
  if (!g_file_set_contents (path, (const char *) data, len, &local_error))
    {
      g_unlink (path);
      return load_data (data, len, "The image", error);
    }
  image = ks_image_load (path, &local_error);
  g_unlink (path);
  if (image == NULL)
    {
      /* Name the data, not the temporary file. */
      const char *msg = local_error->message;
      const char *rest = strstr (msg, "” ");
      g_set_error (error, KS_ERROR, local_error->code, "The image%s",
                   rest != NULL ? rest + strlen ("”") : ": could not be read");
    }
  return image;
}

/* The writable gdk-pixbuf format whose extensions name path's, or NULL;
 * *known gets ".png, .jpg, …" (free it) when it is NULL. */
static char *
writable_type_for (const char *path, char **known)
{
  g_autoptr (GSList) formats = gdk_pixbuf_get_formats ();
  g_autofree char *base = g_path_get_basename (path);
  const char *dot = strrchr (base, '.');
  g_autofree char *ext = dot != NULL && dot != base ? g_ascii_strdown (dot + 1, -1) : NULL;
  g_autoptr (GString) list = g_string_new (NULL);

  for (GSList *l = formats; l != NULL; l = l->next)
    {
      g_auto (GStrv) exts = NULL;

      if (!gdk_pixbuf_format_is_writable (l->data))
        continue;
      exts = gdk_pixbuf_format_get_extensions (l->data);
      for (guint i = 0; exts[i] != NULL; i++)
        {
          if (ext != NULL && g_ascii_strcasecmp (exts[i], ext) == 0)
            return gdk_pixbuf_format_get_name (l->data);
          g_string_append_printf (list, "%s.%s", list->len > 0 ? ", " : "", exts[i]);
        }
    }
  if (known != NULL)
    *known = g_strdup (list->str);
  return NULL;
}

gboolean
ks_image_check_save_path (const char *path, GError **error)
{
  g_autofree char *known = NULL;
  g_autofree char *type = NULL;
  g_autofree char *display = NULL;

  g_return_val_if_fail (path != NULL, FALSE);
  type = writable_type_for (path, &known);
  if (type != NULL)
    return TRUE;
  display = g_filename_display_basename (path);
  g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
               "Cannot write “%s”: %s names no image format Kernelscope can write (it writes %s)",
               display, strrchr (display, '.') != NULL ? "its extension" : "no extension", known);
  return FALSE;
}

static gboolean
write_chunk (const char *data, gsize size, GError **error, gpointer user_data)
{
  return ks_atomic_file_write (user_data, data, size, error);
}

gboolean
ks_image_save (const KsImage *image, const char *path, GError **error)
{
  g_autoptr (KsImage) rgba = NULL;
  g_autoptr (GdkPixbuf) pixbuf = NULL;
  g_autoptr (GError) local_error = NULL;
  g_autofree char *type = NULL;
  KsAtomicFile *file;
  gboolean ok;

  g_return_val_if_fail (image != NULL && path != NULL, FALSE);
  if (!ks_image_check_save_path (path, error))
    return FALSE;
  type = writable_type_for (path, NULL);
  /* An RGBA image is encoded from its own memory: a copy would be one more
   * image-sized allocation at the peak of a save. */
  rgba = image->format == KS_FORMAT_RGBA8 ? ks_image_ref ((KsImage *) image)
                                          : ks_image_to_rgba (image);
  if (rgba == NULL)
    {
      g_set_error (error, KS_ERROR, KS_ERROR_TOO_LARGE, "Not enough memory to save the image");
      return FALSE;
    }
  pixbuf = gdk_pixbuf_new_from_data (rgba->data, GDK_COLORSPACE_RGB, TRUE, 8, rgba->width,
                                     rgba->height, rgba->stride, NULL, NULL);
  if (g_str_equal (type, "jpeg") || g_str_equal (type, "bmp"))
    {
      /* These formats have no alpha channel. */
      g_autoptr (GdkPixbuf) opaque = gdk_pixbuf_new (GDK_COLORSPACE_RGB, FALSE, 8, rgba->width,
                                                     rgba->height);
      if (opaque == NULL)
        {
          g_set_error (error, KS_ERROR, KS_ERROR_TOO_LARGE, "Not enough memory to save the image");
          return FALSE;
        }
      gdk_pixbuf_fill (opaque, 0);
      gdk_pixbuf_composite (pixbuf, opaque, 0, 0, rgba->width, rgba->height, 0, 0, 1, 1,
                            GDK_INTERP_NEAREST, 255);
      g_set_object (&pixbuf, opaque);
    }
  /* Encoded straight into a temporary beside the target, which replaces it
   * only once complete (ks-file.h): an interrupted save loses nothing. */
  file = ks_atomic_file_open (path, &local_error);
  if (file != NULL)
    {
      ok = gdk_pixbuf_save_to_callback (pixbuf, write_chunk, file, type, &local_error, NULL);
      if (!ok)
        {
          g_autofree char *display = g_filename_display_name (path);

          ks_atomic_file_abort (file);
          g_set_error (error, KS_ERROR, KS_ERROR_IMAGE, "Cannot save “%s”: %s", display,
                       local_error->message);
          return FALSE;
        }
      if (ks_atomic_file_commit (file, &local_error))
        return TRUE;
    }
  /* The writer's message names the file and the reason. */
  g_set_error_literal (error, KS_ERROR, KS_ERROR_IMAGE, local_error->message);
  return FALSE;
}
