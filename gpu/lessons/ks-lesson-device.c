/* ks-lesson-device.c: lesson 11-02, the device properties the book prints.
 *
 * No kernel runs. On CUDA the lesson asks the runtime in this process, as
 * the device panel does (ks-device.c): cudaGetDeviceCount, then per device
 * cudaGetDeviceProperties for the name and the memory, and
 * cudaDeviceGetAttribute for the compute capability and the 84 attributes,
 * which is what PyCUDA's Device methods ask the driver. The check parses the
 * printed text back and compares it with a second, independent query:
 * cudaGetDeviceProperties' fields wherever the struct still has one. On the
 * CPU engine there is no NVIDIA device: the count is 0, and the notes say
 * what the CPU engine stands for.
 *
 * One file although over 800 lines: the attribute table, the text the book
 * prints, its parser (the check) and both hosts index the same static table
 * of the 84 attributes, and none of it serves another lesson. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#if HAVE_CUDA
#include <stddef.h>
#include <cuda_runtime_api.h>
#endif

#include "ks-engine-private.h"
#include "ks-error.h"
#include "ks-lesson-private.h"

/* X (PyCUDA's name, the runtime's cudaDevAttr… suffix, the number they share),
 * in the order the book prints them: byte order, in which '_' follows the
 * letters and digits as in Python's string comparison. */
#define KS_DEVICE_ATTRIBUTES(X)                                                    \
  X (ASYNC_ENGINE_COUNT, AsyncEngineCount, 40)                                     \
  X (CAN_MAP_HOST_MEMORY, CanMapHostMemory, 19)                                    \
  X (CLOCK_RATE, ClockRate, 13)                                                    \
  X (COMPUTE_CAPABILITY_MAJOR, ComputeCapabilityMajor, 75)                         \
  X (COMPUTE_CAPABILITY_MINOR, ComputeCapabilityMinor, 76)                         \
  X (COMPUTE_MODE, ComputeMode, 20)                                                \
  X (CONCURRENT_KERNELS, ConcurrentKernels, 31)                                    \
  X (ECC_ENABLED, EccEnabled, 32)                                                  \
  X (GLOBAL_L1_CACHE_SUPPORTED, GlobalL1CacheSupported, 79)                        \
  X (GLOBAL_MEMORY_BUS_WIDTH, GlobalMemoryBusWidth, 37)                            \
  X (GPU_OVERLAP, GpuOverlap, 15)                                                  \
  X (INTEGRATED, Integrated, 18)                                                   \
  X (KERNEL_EXEC_TIMEOUT, KernelExecTimeout, 17)                                   \
  X (L2_CACHE_SIZE, L2CacheSize, 38)                                               \
  X (LOCAL_L1_CACHE_SUPPORTED, LocalL1CacheSupported, 80)                          \
  X (MANAGED_MEMORY, ManagedMemory, 83)                                            \
  X (MAXIMUM_SURFACE1D_LAYERED_LAYERS, MaxSurface1DLayeredLayers, 62)              \
  X (MAXIMUM_SURFACE1D_LAYERED_WIDTH, MaxSurface1DLayeredWidth, 61)                \
  X (MAXIMUM_SURFACE1D_WIDTH, MaxSurface1DWidth, 55)                               \
  X (MAXIMUM_SURFACE2D_HEIGHT, MaxSurface2DHeight, 57)                             \
  X (MAXIMUM_SURFACE2D_LAYERED_HEIGHT, MaxSurface2DLayeredHeight, 64)              \
  X (MAXIMUM_SURFACE2D_LAYERED_LAYERS, MaxSurface2DLayeredLayers, 65)              \
  X (MAXIMUM_SURFACE2D_LAYERED_WIDTH, MaxSurface2DLayeredWidth, 63)                \
  X (MAXIMUM_SURFACE2D_WIDTH, MaxSurface2DWidth, 56)                               \
  X (MAXIMUM_SURFACE3D_DEPTH, MaxSurface3DDepth, 60)                               \
  X (MAXIMUM_SURFACE3D_HEIGHT, MaxSurface3DHeight, 59)                             \
  X (MAXIMUM_SURFACE3D_WIDTH, MaxSurface3DWidth, 58)                               \
  X (MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS, MaxSurfaceCubemapLayeredLayers, 68)    \
  X (MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH, MaxSurfaceCubemapLayeredWidth, 67)      \
  X (MAXIMUM_SURFACECUBEMAP_WIDTH, MaxSurfaceCubemapWidth, 66)                     \
  X (MAXIMUM_TEXTURE1D_LAYERED_LAYERS, MaxTexture1DLayeredLayers, 43)              \
  X (MAXIMUM_TEXTURE1D_LAYERED_WIDTH, MaxTexture1DLayeredWidth, 42)                \
  X (MAXIMUM_TEXTURE1D_LINEAR_WIDTH, MaxTexture1DLinearWidth, 69)                  \
  X (MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH, MaxTexture1DMipmappedWidth, 77)            \
  X (MAXIMUM_TEXTURE1D_WIDTH, MaxTexture1DWidth, 21)                               \
  X (MAXIMUM_TEXTURE2D_ARRAY_HEIGHT, MaxTexture2DLayeredHeight, 28)                \
  X (MAXIMUM_TEXTURE2D_ARRAY_NUMSLICES, MaxTexture2DLayeredLayers, 29)             \
  X (MAXIMUM_TEXTURE2D_ARRAY_WIDTH, MaxTexture2DLayeredWidth, 27)                  \
  X (MAXIMUM_TEXTURE2D_GATHER_HEIGHT, MaxTexture2DGatherHeight, 46)                \
  X (MAXIMUM_TEXTURE2D_GATHER_WIDTH, MaxTexture2DGatherWidth, 45)                  \
  X (MAXIMUM_TEXTURE2D_HEIGHT, MaxTexture2DHeight, 23)                             \
  X (MAXIMUM_TEXTURE2D_LINEAR_HEIGHT, MaxTexture2DLinearHeight, 71)                \
  X (MAXIMUM_TEXTURE2D_LINEAR_PITCH, MaxTexture2DLinearPitch, 72)                  \
  X (MAXIMUM_TEXTURE2D_LINEAR_WIDTH, MaxTexture2DLinearWidth, 70)                  \
  X (MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT, MaxTexture2DMipmappedHeight, 74)          \
  X (MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH, MaxTexture2DMipmappedWidth, 73)            \
  X (MAXIMUM_TEXTURE2D_WIDTH, MaxTexture2DWidth, 22)                               \
  X (MAXIMUM_TEXTURE3D_DEPTH, MaxTexture3DDepth, 26)                               \
  X (MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE, MaxTexture3DDepthAlt, 49)                  \
  X (MAXIMUM_TEXTURE3D_HEIGHT, MaxTexture3DHeight, 25)                             \
  X (MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE, MaxTexture3DHeightAlt, 48)                \
  X (MAXIMUM_TEXTURE3D_WIDTH, MaxTexture3DWidth, 24)                               \
  X (MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE, MaxTexture3DWidthAlt, 47)                  \
  X (MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS, MaxTextureCubemapLayeredLayers, 54)    \
  X (MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH, MaxTextureCubemapLayeredWidth, 53)      \
  X (MAXIMUM_TEXTURECUBEMAP_WIDTH, MaxTextureCubemapWidth, 52)                     \
  X (MAX_BLOCK_DIM_X, MaxBlockDimX, 2)                                             \
  X (MAX_BLOCK_DIM_Y, MaxBlockDimY, 3)                                             \
  X (MAX_BLOCK_DIM_Z, MaxBlockDimZ, 4)                                             \
  X (MAX_GRID_DIM_X, MaxGridDimX, 5)                                               \
  X (MAX_GRID_DIM_Y, MaxGridDimY, 6)                                               \
  X (MAX_GRID_DIM_Z, MaxGridDimZ, 7)                                               \
  X (MAX_PITCH, MaxPitch, 11)                                                      \
  X (MAX_REGISTERS_PER_BLOCK, MaxRegistersPerBlock, 12)                            \
  X (MAX_REGISTERS_PER_MULTIPROCESSOR, MaxRegistersPerMultiprocessor, 82)          \
  X (MAX_SHARED_MEMORY_PER_BLOCK, MaxSharedMemoryPerBlock, 8)                      \
  X (MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, MaxSharedMemoryPerMultiprocessor, 81)   \
  X (MAX_THREADS_PER_BLOCK, MaxThreadsPerBlock, 1)                                 \
  X (MAX_THREADS_PER_MULTIPROCESSOR, MaxThreadsPerMultiProcessor, 39)              \
  X (MEMORY_CLOCK_RATE, MemoryClockRate, 36)                                       \
  X (MULTIPROCESSOR_COUNT, MultiProcessorCount, 16)                                \
  X (MULTI_GPU_BOARD, IsMultiGpuBoard, 84)                                         \
  X (MULTI_GPU_BOARD_GROUP_ID, MultiGpuBoardGroupID, 85)                           \
  X (PCI_BUS_ID, PciBusId, 33)                                                     \
  X (PCI_DEVICE_ID, PciDeviceId, 34)                                               \
  X (PCI_DOMAIN_ID, PciDomainId, 50)                                               \
  X (STREAM_PRIORITIES_SUPPORTED, StreamPrioritiesSupported, 78)                   \
  X (SURFACE_ALIGNMENT, SurfaceAlignment, 30)                                      \
  X (TCC_DRIVER, TccDriver, 35)                                                    \
  X (TEXTURE_ALIGNMENT, TextureAlignment, 14)                                      \
  X (TEXTURE_PITCH_ALIGNMENT, TexturePitchAlignment, 51)                           \
  X (TOTAL_CONSTANT_MEMORY, TotalConstantMemory, 9)                                \
  X (UNIFIED_ADDRESSING, UnifiedAddressing, 41)                                    \
  X (WARP_SIZE, WarpSize, 10)

#define KS_X_ROW(name, cuda, number) { #name, number, "cudaDevAttr" #cuda },
static const KsLessonDeviceAttribute attributes[] = { KS_DEVICE_ATTRIBUTES (KS_X_ROW) };
#undef KS_X_ROW

G_STATIC_ASSERT (G_N_ELEMENTS (attributes) == KS_LESSON_N_DEVICE_ATTRIBUTES);

/* PyCUDA 2017.1.1's other names: the dict keyed by value keeps the first. */
static const KsLessonDeviceAttribute aliases[] = {
  { "MAXIMUM_TEXTURE2D_LAYERED_HEIGHT", 28, "cudaDevAttrMaxTexture2DLayeredHeight" },
  { "MAXIMUM_TEXTURE2D_LAYERED_LAYERS", 29, "cudaDevAttrMaxTexture2DLayeredLayers" },
  { "MAXIMUM_TEXTURE2D_LAYERED_WIDTH", 27, "cudaDevAttrMaxTexture2DLayeredWidth" },
  { "REGISTERS_PER_BLOCK", 12, "cudaDevAttrMaxRegistersPerBlock" },
  { "SHARED_MEMORY_PER_BLOCK", 8, "cudaDevAttrMaxSharedMemoryPerBlock" },
};

#if HAVE_CUDA
/* The numbers are the runtime's own. */
#define KS_X_ASSERT(name, cuda, number) G_STATIC_ASSERT ((int) cudaDevAttr##cuda == number);
KS_DEVICE_ATTRIBUTES (KS_X_ASSERT)
#undef KS_X_ASSERT
#endif

const KsLessonDeviceAttribute *
ks_lesson_device_attributes (guint *n)
{
  if (n != NULL)
    *n = G_N_ELEMENTS (attributes);
  return attributes;
}

const KsLessonDeviceAttribute *
ks_lesson_device_attribute_aliases (guint *n)
{
  if (n != NULL)
    *n = G_N_ELEMENTS (aliases);
  return aliases;
}

/* ---- the text ------------------------------------------------------------- */

#define GIB (G_GUINT64_CONSTANT (1) << 30)
/* The attributes' first column: wide enough for the longest name and value. */
#define COLUMN 46

void
_ks_lesson_device_clear (KsLessonDevice *device)
{
  g_clear_pointer (&device->name, g_free);
}

char *
_ks_lesson_device_text (const KsLessonDevice *devices, guint n)
{
  GString *text = g_string_new (NULL);

  g_string_append_printf (text, "%u device(s) found.\n", n);
  for (guint d = 0; d < n; d++)
    {
      const KsLessonDevice *dev = &devices[d];
      guint in_line = 0;

      g_string_append_printf (text, "Device #%u: %s\n", d, dev->name);
      g_string_append_printf (text, "  Compute Capability: %d.%d\n", dev->major, dev->minor);
      /* The book's total_memory()//(1024**3): floor division. */
      g_string_append_printf (text, "  Total Memory: %" G_GUINT64_FORMAT " GB\n",
                              dev->total_memory / GIB);
      for (guint k = 0; k < G_N_ELEMENTS (attributes); k++)
        {
          g_autofree char *item = NULL;

          if (!dev->present[k])
            continue;
          item = g_strdup_printf ("%s: %" G_GINT64_FORMAT, attributes[k].name, dev->values[k]);
          if (in_line == 0)
            g_string_append_printf (text, "  %-*s", COLUMN, item);
          else
            g_string_append_printf (text, " %s\n", item);
          in_line = 1 - in_line;
        }
      if (in_line == 1)
        {
          /* An odd count: the last line has one, without the padding. */
          while (text->len > 0 && text->str[text->len - 1] == ' ')
            g_string_truncate (text, text->len - 1);
          g_string_append_c (text, '\n');
        }
    }
  return g_string_free (text, FALSE);
}

static int
attribute_index (const char *name)
{
  for (guint k = 0; k < G_N_ELEMENTS (attributes); k++)
    if (g_str_equal (attributes[k].name, name))
      return (int) k;
  return -1;
}

static void
device_clear_cb (gpointer data)
{
  _ks_lesson_device_clear (data);
}

/* A line that is exactly the format with one unsigned number. */
static gboolean
scan_line (const char *line, const char *prefix, const char *suffix, guint64 *value)
{
  const char *p;
  char *end;

  if (!g_str_has_prefix (line, prefix))
    return FALSE;
  p = line + strlen (prefix);
  if (!g_ascii_isdigit (*p))
    return FALSE;
  *value = g_ascii_strtoull (p, &end, 10);
  return g_str_equal (end, suffix);
}

static gboolean
bad_line (GError **error, guint number, const char *line, const char *what)
{
  g_set_error (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT,
               "line %u (“%s”) is not %s", number + 1, line, what);
  return FALSE;
}

/* Lines of "NAME: value" pairs from *at on, into dev, until the next device
 * or the end. Names in the printed order, each once. */
static gboolean
parse_attributes (char **lines, guint *at, KsLessonDevice *dev, GError **error)
{
  int last = -1;

  for (; lines[*at] != NULL && !g_str_has_prefix (lines[*at], "Device #"); (*at)++)
    {
      g_auto (GStrv) split = NULL;
      g_autoptr (GPtrArray) words = g_ptr_array_new ();

      if (lines[*at][0] == '\0' && lines[*at + 1] == NULL)
        break;
      split = g_strsplit (lines[*at], " ", -1);
      for (guint w = 0; split[w] != NULL; w++)
        if (split[w][0] != '\0')
          g_ptr_array_add (words, split[w]);
      if (words->len == 0 || words->len % 2 != 0 || words->len > 4)
        return bad_line (error, *at, lines[*at], "one or two “NAME: value” pairs");
      for (guint w = 0; w < words->len; w += 2)
        {
          const char *word = g_ptr_array_index (words, w);
          const char *number = g_ptr_array_index (words, w + 1);
          gsize len = strlen (word);
          g_autofree char *name = NULL;
          char *end;
          gint64 value;
          int k;

          if (len < 2 || word[len - 1] != ':')
            return bad_line (error, *at, lines[*at], "a “NAME: value” pair");
          name = g_strndup (word, len - 1);
          k = attribute_index (name);
          if (k < 0)
            return bad_line (error, *at, lines[*at], "an attribute PyCUDA 2017.1.1 prints");
          if (k <= last)
            return bad_line (error, *at, lines[*at], "in the printed order");
          value = g_ascii_strtoll (number, &end, 10);
          if (*end != '\0' || end == number)
            return bad_line (error, *at, lines[*at], "a whole number after the name");
          dev->values[k] = value;
          dev->present[k] = TRUE;
          last = k;
        }
    }
  return TRUE;
}

GArray *
_ks_lesson_device_parse (const char *text, GError **error)
{
  g_autoptr (GArray) devices = g_array_new (FALSE, TRUE, sizeof (KsLessonDevice));
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  guint64 count = 0;
  guint at = 1;

  g_array_set_clear_func (devices, device_clear_cb);
  if (lines[0] == NULL || !scan_line (lines[0], "", " device(s) found.", &count))
    {
      bad_line (error, 0, lines[0] != NULL ? lines[0] : "", "“N device(s) found.”");
      return NULL;
    }
  for (guint64 d = 0; d < count; d++)
    {
      KsLessonDevice dev = { 0 };
      g_autofree char *prefix = g_strdup_printf ("Device #%" G_GUINT64_FORMAT ": ", d);
      guint64 major = 0, minor = 0, gb = 0;
      const char *dot;

      if (lines[at] == NULL || !g_str_has_prefix (lines[at], prefix))
        {
          bad_line (error, at, lines[at] != NULL ? lines[at] : "", "the next “Device #i: name”");
          return NULL;
        }
      dev.name = g_strdup (lines[at] + strlen (prefix));
      g_array_append_val (devices, dev);
      at++;
      dot = lines[at] != NULL ? strchr (lines[at], '.') : NULL;
      if (dot == NULL)
        {
          bad_line (error, at, lines[at] != NULL ? lines[at] : "", "“  Compute Capability: M.m”");
          return NULL;
        }
      {
        g_autofree char *head = g_strndup (lines[at], dot - lines[at]);

        if (!scan_line (head, "  Compute Capability: ", "", &major)
            || !scan_line (dot + 1, "", "", &minor))
          {
            bad_line (error, at, lines[at], "“  Compute Capability: M.m”");
            return NULL;
          }
      }
      at++;
      if (lines[at] == NULL || !scan_line (lines[at], "  Total Memory: ", " GB", &gb))
        {
          bad_line (error, at, lines[at] != NULL ? lines[at] : "", "“  Total Memory: N GB”");
          return NULL;
        }
      at++;
      {
        KsLessonDevice *last = &g_array_index (devices, KsLessonDevice, devices->len - 1);

        last->major = (int) major;
        last->minor = (int) minor;
        last->total_memory = gb * GIB;
        if (!parse_attributes (lines, &at, last, error))
          return NULL;
      }
    }
  /* Nothing after the last device but the final newline. */
  if (lines[at] != NULL && !(lines[at][0] == '\0' && lines[at + 1] == NULL))
    {
      bad_line (error, at, lines[at], "the end of the text");
      return NULL;
    }
  return g_steal_pointer (&devices);
}

/* ---- the lesson ------------------------------------------------------------ */

static gboolean
device_setup (KsLessonRun *run, GError **error)
{
  run->checked_arg = -1;
  return TRUE;
}

static void
note_floor_division (KsLessonRun *run, const KsLessonDevice *devices, guint n)
{
  for (guint d = 0; d < n; d++)
    {
      guint64 bytes = devices[d].total_memory;

      _ks_lesson_note (run, "Device #%u: “Total Memory: %" G_GUINT64_FORMAT " GB” is "
                       "total_memory() // 2^30, floor division: its %" G_GUINT64_FORMAT " bytes "
                       "are %.1f GB (10^9 bytes) and %.1f GiB.", d, bytes / GIB, bytes,
                       bytes / 1e9, (double) bytes / GIB);
    }
  _ks_lesson_note (run, "The floor division rounds down and calls GiB “GB”: an H200's "
                   "150 109 880 320 bytes print as “Total Memory: 139 GB”, although they are "
                   "150.1 GB, or 139.8 GiB.");
}

static void
note_names (KsLessonRun *run)
{
  g_autoptr (GString) list = g_string_new (NULL);

  for (guint i = 0; i < G_N_ELEMENTS (aliases); i++)
    for (guint k = 0; k < G_N_ELEMENTS (attributes); k++)
      if (attributes[k].attribute == aliases[i].attribute)
        g_string_append_printf (list, "%s%s (kept: %s)", list->len > 0 ? ", " : "",
                                aliases[i].name, attributes[k].name);
  _ks_lesson_note (run, "PyCUDA 2017.1.1 has %u names for %u attributes: get_attributes() keys "
                   "its dict by value, so of two names the alphabetically first is kept, and "
                   "%s are not printed.", (guint) (G_N_ELEMENTS (attributes)
                                                   + G_N_ELEMENTS (aliases)),
                   (guint) G_N_ELEMENTS (attributes), list->str);
  _ks_lesson_note (run, "The names are sorted as Python compares strings, code point by code "
                   "point: “_” comes after the letters and digits, so every MAXIMUM_… comes "
                   "before MAX_BLOCK_DIM_X. Newer PyCUDA releases know more attributes and "
                   "print more lines.");
}

/* The CPU engine: the book on a machine with no NVIDIA device. */
static gboolean
device_host_cpu (KsLessonRun *run, GError **error)
{
  KsLessonReport *report = run->report;
  g_autoptr (KsDevice) cpu = ks_device_get_cpu ();
  const KsDeviceProperty *cores = ks_device_lookup_property (cpu, "cores");
  const KsDeviceProperty *memory = ks_device_lookup_property (cpu, "total_memory");
  g_autoptr (GArray) parsed = NULL;
  g_autoptr (GError) local = NULL;
  guint n_lines = 0;
  double t0 = _ks_lesson_now_ms ();
  gboolean ok;

  g_free (report->printf_output);
  report->printf_output = _ks_lesson_device_text (NULL, 0);
  report->timings.book_total_ms = _ks_lesson_now_ms () - t0;
  for (const char *p = report->printf_output; *p != '\0'; p++)
    n_lines += *p == '\n';
  parsed = _ks_lesson_device_parse (report->printf_output, &local);
  ok = parsed != NULL && parsed->len == 0 && n_lines == 1;
  _ks_lesson_set_check (run, ok, "the CPU engine, which is no NVIDIA device: a count of 0 and "
                        "nothing more", NULL, 1, ok ? 0 : 1, ok ? G_MAXSIZE : 0, NAN, NAN,
                        ok ? g_strdup ("correct: one line, “0 device(s) found.”, as the book's "
                                       "enumeration prints it when it finds no device")
                           : g_strdup_printf ("wrong: the text does not read back as no device "
                                              "(%s)", local != NULL ? local->message
                                                                    : "more lines"));
  {
    guint64 bytes = memory != NULL ? g_variant_get_uint64 (memory->value) : 0;

    _ks_lesson_note (run, "The CPU engine stands for the host processor here: %s, %"
                     G_GUINT64_FORMAT " logical cores, %" G_GUINT64_FORMAT " bytes of memory "
                     "(%" G_GUINT64_FORMAT " GB by the book's floor division). It runs the "
                     "lessons' kernels from the PTX that NVRTC makes of them, warp by warp; it "
                     "is not a CUDA device, so the book's enumeration counts none.",
                     ks_device_get_name (cpu),
                     cores != NULL ? g_variant_get_uint64 (cores->value) : 0, bytes,
                     bytes / GIB);
  }
  _ks_lesson_note (run, "As the book writes it the script imports pycuda.autoinit first, which "
                   "makes a context on a device: with none it stops there with an error before "
                   "printing anything. “0 device(s) found.” is what its enumeration prints "
                   "when the driver counts no device.");
  note_floor_division (run, NULL, 0);
  note_names (run);
  report->timings.book_total_covers = g_strdup ("the lesson's one pass: the enumeration and "
                                                "the text");
  report->timings.method = g_strdup ("no kernel runs, so there is nothing to upload, launch or "
                                     "download: book_total is the monotonic clock around the "
                                     "lesson's one pass");
  return TRUE;
}

#if HAVE_CUDA

/* Where cudaGetDeviceProperties still has a field for an attribute. */
#define PROP(attr, field) \
  { attr, G_STRUCT_OFFSET (struct cudaDeviceProp, field), \
    sizeof (((struct cudaDeviceProp *) NULL)->field) }

static const struct
{
  int attribute;
  gsize offset;
  gsize size;
} prop_fields[] = {
  PROP (cudaDevAttrAsyncEngineCount, asyncEngineCount),
  PROP (cudaDevAttrCanMapHostMemory, canMapHostMemory),
  PROP (cudaDevAttrComputeCapabilityMajor, major),
  PROP (cudaDevAttrComputeCapabilityMinor, minor),
  PROP (cudaDevAttrConcurrentKernels, concurrentKernels),
  PROP (cudaDevAttrEccEnabled, ECCEnabled),
  PROP (cudaDevAttrGlobalL1CacheSupported, globalL1CacheSupported),
  PROP (cudaDevAttrGlobalMemoryBusWidth, memoryBusWidth),
  PROP (cudaDevAttrIntegrated, integrated),
  PROP (cudaDevAttrL2CacheSize, l2CacheSize),
  PROP (cudaDevAttrLocalL1CacheSupported, localL1CacheSupported),
  PROP (cudaDevAttrManagedMemory, managedMemory),
  PROP (cudaDevAttrMaxSurface1DLayeredLayers, maxSurface1DLayered[1]),
  PROP (cudaDevAttrMaxSurface1DLayeredWidth, maxSurface1DLayered[0]),
  PROP (cudaDevAttrMaxSurface1DWidth, maxSurface1D),
  PROP (cudaDevAttrMaxSurface2DHeight, maxSurface2D[1]),
  PROP (cudaDevAttrMaxSurface2DLayeredHeight, maxSurface2DLayered[1]),
  PROP (cudaDevAttrMaxSurface2DLayeredLayers, maxSurface2DLayered[2]),
  PROP (cudaDevAttrMaxSurface2DLayeredWidth, maxSurface2DLayered[0]),
  PROP (cudaDevAttrMaxSurface2DWidth, maxSurface2D[0]),
  PROP (cudaDevAttrMaxSurface3DDepth, maxSurface3D[2]),
  PROP (cudaDevAttrMaxSurface3DHeight, maxSurface3D[1]),
  PROP (cudaDevAttrMaxSurface3DWidth, maxSurface3D[0]),
  PROP (cudaDevAttrMaxSurfaceCubemapLayeredLayers, maxSurfaceCubemapLayered[1]),
  PROP (cudaDevAttrMaxSurfaceCubemapLayeredWidth, maxSurfaceCubemapLayered[0]),
  PROP (cudaDevAttrMaxSurfaceCubemapWidth, maxSurfaceCubemap),
  PROP (cudaDevAttrMaxTexture1DLayeredLayers, maxTexture1DLayered[1]),
  PROP (cudaDevAttrMaxTexture1DLayeredWidth, maxTexture1DLayered[0]),
  PROP (cudaDevAttrMaxTexture1DMipmappedWidth, maxTexture1DMipmap),
  PROP (cudaDevAttrMaxTexture1DWidth, maxTexture1D),
  PROP (cudaDevAttrMaxTexture2DLayeredHeight, maxTexture2DLayered[1]),
  PROP (cudaDevAttrMaxTexture2DLayeredLayers, maxTexture2DLayered[2]),
  PROP (cudaDevAttrMaxTexture2DLayeredWidth, maxTexture2DLayered[0]),
  PROP (cudaDevAttrMaxTexture2DGatherHeight, maxTexture2DGather[1]),
  PROP (cudaDevAttrMaxTexture2DGatherWidth, maxTexture2DGather[0]),
  PROP (cudaDevAttrMaxTexture2DHeight, maxTexture2D[1]),
  PROP (cudaDevAttrMaxTexture2DLinearHeight, maxTexture2DLinear[1]),
  PROP (cudaDevAttrMaxTexture2DLinearPitch, maxTexture2DLinear[2]),
  PROP (cudaDevAttrMaxTexture2DLinearWidth, maxTexture2DLinear[0]),
  PROP (cudaDevAttrMaxTexture2DMipmappedHeight, maxTexture2DMipmap[1]),
  PROP (cudaDevAttrMaxTexture2DMipmappedWidth, maxTexture2DMipmap[0]),
  PROP (cudaDevAttrMaxTexture2DWidth, maxTexture2D[0]),
  PROP (cudaDevAttrMaxTexture3DDepth, maxTexture3D[2]),
  PROP (cudaDevAttrMaxTexture3DDepthAlt, maxTexture3DAlt[2]),
  PROP (cudaDevAttrMaxTexture3DHeight, maxTexture3D[1]),
  PROP (cudaDevAttrMaxTexture3DHeightAlt, maxTexture3DAlt[1]),
  PROP (cudaDevAttrMaxTexture3DWidth, maxTexture3D[0]),
  PROP (cudaDevAttrMaxTexture3DWidthAlt, maxTexture3DAlt[0]),
  PROP (cudaDevAttrMaxTextureCubemapLayeredLayers, maxTextureCubemapLayered[1]),
  PROP (cudaDevAttrMaxTextureCubemapLayeredWidth, maxTextureCubemapLayered[0]),
  PROP (cudaDevAttrMaxTextureCubemapWidth, maxTextureCubemap),
  PROP (cudaDevAttrMaxBlockDimX, maxThreadsDim[0]),
  PROP (cudaDevAttrMaxBlockDimY, maxThreadsDim[1]),
  PROP (cudaDevAttrMaxBlockDimZ, maxThreadsDim[2]),
  PROP (cudaDevAttrMaxGridDimX, maxGridSize[0]),
  PROP (cudaDevAttrMaxGridDimY, maxGridSize[1]),
  PROP (cudaDevAttrMaxGridDimZ, maxGridSize[2]),
  PROP (cudaDevAttrMaxPitch, memPitch),
  PROP (cudaDevAttrMaxRegistersPerBlock, regsPerBlock),
  PROP (cudaDevAttrMaxRegistersPerMultiprocessor, regsPerMultiprocessor),
  PROP (cudaDevAttrMaxSharedMemoryPerBlock, sharedMemPerBlock),
  PROP (cudaDevAttrMaxSharedMemoryPerMultiprocessor, sharedMemPerMultiprocessor),
  PROP (cudaDevAttrMaxThreadsPerBlock, maxThreadsPerBlock),
  PROP (cudaDevAttrMaxThreadsPerMultiProcessor, maxThreadsPerMultiProcessor),
  PROP (cudaDevAttrMultiProcessorCount, multiProcessorCount),
  PROP (cudaDevAttrIsMultiGpuBoard, isMultiGpuBoard),
  PROP (cudaDevAttrMultiGpuBoardGroupID, multiGpuBoardGroupID),
  PROP (cudaDevAttrPciBusId, pciBusID),
  PROP (cudaDevAttrPciDeviceId, pciDeviceID),
  PROP (cudaDevAttrPciDomainId, pciDomainID),
  PROP (cudaDevAttrStreamPrioritiesSupported, streamPrioritiesSupported),
  PROP (cudaDevAttrSurfaceAlignment, surfaceAlignment),
  PROP (cudaDevAttrTccDriver, tccDriver),
  PROP (cudaDevAttrTextureAlignment, textureAlignment),
  PROP (cudaDevAttrTexturePitchAlignment, texturePitchAlignment),
  PROP (cudaDevAttrTotalConstantMemory, totalConstMem),
  PROP (cudaDevAttrUnifiedAddressing, unifiedAddressing),
  PROP (cudaDevAttrWarpSize, warpSize),
};
#undef PROP

/* A field of the struct as the attribute's int would hold it. */
static gboolean
prop_value (const struct cudaDeviceProp *prop, int attribute, gint64 *value)
{
  for (guint i = 0; i < G_N_ELEMENTS (prop_fields); i++)
    if (prop_fields[i].attribute == attribute)
      {
        const guint8 *p = (const guint8 *) prop + prop_fields[i].offset;

        if (prop_fields[i].size == sizeof (int))
          {
            int v;

            memcpy (&v, p, sizeof v);
            *value = v;
          }
        else
          {
            size_t v;

            g_assert (prop_fields[i].size == sizeof (size_t));
            memcpy (&v, p, sizeof v);
            /* The attribute is an int: a size_t field beyond it reads as its maximum. */
            *value = (gint64) MIN (v, (size_t) G_MAXINT);
          }
        return TRUE;
      }
  return FALSE;
}

/* What PyCUDA's Device methods ask: name() and total_memory() (here from
 * cudaGetDeviceProperties), compute_capability() and get_attributes()
 * (cudaDeviceGetAttribute, an attribute that fails left out, as PyCUDA
 * skips one that raises). */
static GArray *
query_as_the_book (GError **error)
{
  g_autoptr (GArray) devices = g_array_new (FALSE, TRUE, sizeof (KsLessonDevice));
  int n = 0;

  g_array_set_clear_func (devices, device_clear_cb);
  if (!_ks_cuda_check (cudaGetDeviceCount (&n), "cudaGetDeviceCount", error))
    return NULL;
  for (int d = 0; d < n; d++)
    {
      KsLessonDevice dev = { 0 };
      struct cudaDeviceProp prop;
      int v = 0;

      if (!_ks_cuda_check (cudaGetDeviceProperties (&prop, d), "cudaGetDeviceProperties", error))
        return NULL;
      dev.name = g_strndup (prop.name, sizeof prop.name);
      dev.total_memory = prop.totalGlobalMem;
      if (!_ks_cuda_check (cudaDeviceGetAttribute (&dev.major, cudaDevAttrComputeCapabilityMajor,
                                                   d), "cudaDeviceGetAttribute", error)
          || !_ks_cuda_check (cudaDeviceGetAttribute (&dev.minor,
                                                      cudaDevAttrComputeCapabilityMinor, d),
                              "cudaDeviceGetAttribute", error))
        {
          g_free (dev.name);
          return NULL;
        }
      for (guint k = 0; k < G_N_ELEMENTS (attributes); k++)
        {
          enum cudaDeviceAttr attr = (enum cudaDeviceAttr) attributes[k].attribute;
          cudaError_t err = cudaDeviceGetAttribute (&v, attr, d);

          dev.present[k] = err == cudaSuccess;
          dev.values[k] = err == cudaSuccess ? v : 0;
          if (err != cudaSuccess)
            (void) cudaGetLastError ();
        }
      g_array_append_val (devices, dev);
    }
  return g_steal_pointer (&devices);
}

/* The independent query: cudaGetDeviceProperties once per device, its
 * fields wherever it has them; the attribute only for what it lacks. */
static GArray *
query_reference (guint *from_fields, GError **error)
{
  g_autoptr (GArray) devices = g_array_new (FALSE, TRUE, sizeof (KsLessonDevice));
  int n = 0;

  g_array_set_clear_func (devices, device_clear_cb);
  *from_fields = 0;
  if (!_ks_cuda_check (cudaGetDeviceCount (&n), "cudaGetDeviceCount", error))
    return NULL;
  for (int d = 0; d < n; d++)
    {
      KsLessonDevice dev = { 0 };
      struct cudaDeviceProp prop;

      if (!_ks_cuda_check (cudaGetDeviceProperties (&prop, d), "cudaGetDeviceProperties", error))
        return NULL;
      dev.name = g_strndup (prop.name, sizeof prop.name);
      dev.total_memory = prop.totalGlobalMem;
      dev.major = prop.major;
      dev.minor = prop.minor;
      *from_fields = 0;
      for (guint k = 0; k < G_N_ELEMENTS (attributes); k++)
        {
          enum cudaDeviceAttr attr = (enum cudaDeviceAttr) attributes[k].attribute;
          int v = 0;

          if (prop_value (&prop, attributes[k].attribute, &dev.values[k]))
            {
              dev.present[k] = TRUE;
              (*from_fields)++;
              continue;
            }
          dev.present[k] = cudaDeviceGetAttribute (&v, attr, d) == cudaSuccess;
          dev.values[k] = dev.present[k] ? v : 0;
          if (!dev.present[k])
            (void) cudaGetLastError ();
        }
      g_array_append_val (devices, dev);
    }
  return g_steal_pointer (&devices);
}

/* Per device: compute capability, memory as printed (GB), then the 84
 * values (-1 for one not printed). */
#define ROW (3 + KS_LESSON_N_DEVICE_ATTRIBUTES)

static KsArray *
values_array (const KsLessonDevice *devices, guint n)
{
  KsArray *a = _ks_lesson_new_array (KS_ELEM_INT64, (gsize) MAX (n, 1u) * ROW, MAX (n, 1u), ROW);

  for (guint d = 0; d < n; d++)
    {
      gint64 *row = (gint64 *) a->data + (gsize) d * ROW;

      row[0] = devices[d].major;
      row[1] = devices[d].minor;
      row[2] = (gint64) (devices[d].total_memory / GIB);
      for (guint k = 0; k < KS_LESSON_N_DEVICE_ATTRIBUTES; k++)
        row[3 + k] = devices[d].present[k] ? devices[d].values[k] : -1;
    }
  return a;
}

#endif

static gboolean
device_host_cuda (KsLessonRun *run, GError **error)
{
#if HAVE_CUDA
  KsLessonReport *report = run->report;
  KsTiming *timing = &report->timings.reference;
  guint repeats = MAX (run->options.repeats, 1);
  g_autoptr (GArray) devices = NULL;
  g_autoptr (GArray) reference = NULL;
  g_autoptr (GArray) parsed = NULL;
  g_autoptr (GError) local = NULL;
  KsArray *printed;
  guint from_fields = 0;
  double t0;

  t0 = _ks_lesson_now_ms ();
  devices = query_as_the_book (error);
  if (devices == NULL)
    return FALSE;
  g_free (report->printf_output);
  report->printf_output = _ks_lesson_device_text ((const KsLessonDevice *) devices->data,
                                                  devices->len);
  report->timings.book_total_ms = _ks_lesson_now_ms () - t0;

  ks_timing_clear (timing);
  ks_timing_begin (timing, repeats);
  for (guint r = 0; r <= repeats; r++)
    {
      if (_ks_lesson_cancelled (run, error))
        return FALSE;
      g_clear_pointer (&reference, g_array_unref);
      t0 = _ks_lesson_now_ms ();
      reference = query_reference (&from_fields, error);
      if (reference == NULL)
        return FALSE;
      ks_timing_add (timing, _ks_lesson_now_ms () - t0, r == 0);
    }
  ks_timing_compute (timing);

  for (guint d = 0; d < devices->len; d++)
    {
      const KsLessonDevice *dev = &g_array_index (devices, KsLessonDevice, d);
      KsArray *a = _ks_lesson_new_array (KS_ELEM_INT64, KS_LESSON_N_DEVICE_ATTRIBUTES,
                                         KS_LESSON_N_DEVICE_ATTRIBUTES / 2, 2);
      g_autofree char *name = g_strdup_printf ("Device #%u attributes", d);

      for (guint k = 0; k < KS_LESSON_N_DEVICE_ATTRIBUTES; k++)
        ((gint64 *) a->data)[k] = dev->present[k] ? dev->values[k] : -1;
      _ks_lesson_add_host_output (run, name, a);
    }

  parsed = _ks_lesson_device_parse (report->printf_output, &local);
  if (parsed == NULL)
    {
      _ks_lesson_set_check (run, FALSE, "the text parsed back", NULL, 0, 1, 0, NAN, NAN,
                            g_strdup_printf ("wrong: the text does not parse back: %s",
                                             local->message));
      return TRUE;
    }
  printed = values_array ((const KsLessonDevice *) parsed->data, parsed->len);
  g_clear_pointer (&report->check.expected_values, ks_array_free);
  report->check.expected_values = values_array ((const KsLessonDevice *) reference->data,
                                                reference->len);
  _ks_lesson_add_host_output (run, "as printed, parsed back", printed);
  {
    g_autofree char *against =
      g_strdup_printf ("an independent query: cudaGetDeviceProperties' fields for the compute "
                       "capability and %u of the %u attributes, cudaDeviceGetAttribute again for "
                       "the %u the struct no longer has (the name and the memory come from "
                       "cudaGetDeviceProperties both times)", from_fields,
                       KS_LESSON_N_DEVICE_ATTRIBUTES, KS_LESSON_N_DEVICE_ATTRIBUTES - from_fields);

    _ks_lesson_compare_check (run, "as printed, parsed back", printed, against);
  }
  for (guint d = 0; d < parsed->len && d < reference->len; d++)
    if (!g_str_equal (g_array_index (parsed, KsLessonDevice, d).name,
                      g_array_index (reference, KsLessonDevice, d).name))
      {
        report->check.passed = FALSE;
        g_free (report->check.summary);
        report->check.summary = g_strdup_printf ("wrong: device %u prints as “%s”, its name is "
                                                 "“%s”", d,
                                                 g_array_index (parsed, KsLessonDevice, d).name,
                                                 g_array_index (reference, KsLessonDevice,
                                                                d).name);
      }
  if (parsed->len != reference->len)
    {
      report->check.passed = FALSE;
      g_free (report->check.summary);
      report->check.summary = g_strdup_printf ("wrong: %u devices printed, %u counted",
                                               parsed->len, reference->len);
    }
  note_floor_division (run, (const KsLessonDevice *) devices->data, devices->len);
  note_names (run);
  _ks_lesson_note (run, "The book calls drv.init() after importing pycuda.autoinit, which has "
                   "already done it; the second call changes nothing.");
  report->timings.book_total_covers = g_strdup ("the lesson's one pass: the count, "
                                                "cudaGetDeviceProperties and 86 "
                                                "cudaDeviceGetAttribute calls per device, and "
                                                "the text");
  report->timings.method =
    g_strdup_printf ("no kernel runs, so there is nothing to upload, launch or download: "
                     "book_total is the monotonic clock around the lesson's one pass; "
                     "reference: the independent query, the median of %u runs after a "
                     "warm-up", repeats);
  return TRUE;
#else
  g_set_error (error, KS_ERROR, KS_ERROR_UNAVAILABLE,
               "This build of Kernelscope has no CUDA support");
  return FALSE;
#endif
}

static gboolean
device_host (KsLessonRun *run, KsEngine *engine, GError **error)
{
  if (engine != NULL && ks_engine_is_cuda (engine))
    return device_host_cuda (run, error);
  return device_host_cpu (run, error);
}

static const KsLessonImpl impl_device = {
  .setup = device_setup,
  .host = device_host,
};

static const KsLessonVariant v_device[] = {
  KS_LESSON_FIXED ("11-02.cu", "What the book prints: the count, then for each device its name, "
                   "compute capability, memory in whole GB by floor division and the 84 "
                   "attributes of PyCUDA 2017.1.1, two per line; on the CPU engine, the count of "
                   "a machine without one."),
};

static const KsLesson lessons[] = {
  { "11-02", "device-properties", "Device properties", "Chapter11/02_device_properties.py",
    "The host asks the driver how many devices there are and, for each, its name, compute "
    "capability, memory and every attribute PyCUDA knows: the limits a launch must respect. "
    "No kernel runs.", v_device, G_N_ELEMENTS (v_device), TRUE, NULL, { 0, 0, 0 },
    &impl_device },
};

/* This file's lessons, for the registry. */
const KsLesson *const _ks_lessons_device[] = {
  &lessons[0],
  NULL,
};
