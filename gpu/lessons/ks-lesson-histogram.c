/* ks-lesson-histogram.c: lessons 12-01 and 12-02, the histogram with
 * global atomics and with block-private bins in shared memory, and the
 * book's variants: bins never cleared, int64 pixels, no atomics, a thread
 * past the table. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "ks-lesson-private.h"

static gboolean
hist_setup (KsLessonRun *run, GError **error)
{
  gboolean shared = g_str_equal (run->lesson->id, "12-02");
  const char *v = run->variant->id;
  KsArray *bins;
  guint size, k;

  if (g_str_equal (v, "race"))
    {
      /* The C twin's data: 1000 values i % 16 into 16 bins, <<<63, 16>>>. */
      KsArray *input = _ks_lesson_new_array (KS_ELEM_INT32, 1000, 0, 0);

      for (guint i = 0; i < 1000; i++)
        _ks_lesson_i32 (input)[i] = (gint32) (i % 16);
      _ks_lesson_arg_array (run, "bins", _ks_lesson_new_array (KS_ELEM_INT32, 16, 0, 0),
                            KS_ARRAY_OUT, "cudaMemcpy of host zeros");
      _ks_lesson_arg_array (run, "input", input, KS_ARRAY_IN, "cudaMemcpy");
      _ks_lesson_arg_scalar (run, "size", KS_ELEM_INT32, 1000);
      run->grid = _ks_lesson_dim3 ((1000 + 16 - 1) / 16, 1, 1);
      run->block = _ks_lesson_dim3 (16, 1, 1);
      run->checked_arg = 0;
      return TRUE;
    }

  if (g_str_equal (v, "int64"))
    {
      /* numpy.int is int64: each pixel is 8 bytes, low word first; the
       * kernel's int* sees them as 4-byte values, twice as many. */
      g_autoptr (KsArray) pixels = _ks_lesson_photo_gray_pixels (KS_ELEM_INT64);
      KsArray *words = _ks_lesson_new_array (KS_ELEM_INT32, pixels->length * 2, 0, 0);

      memcpy (words->data, pixels->data, ks_array_get_bytes (pixels));
      size = (guint) pixels->length;
      /* 256 int64 zeros on the host: 2048 bytes, 512 of the kernel's ints. */
      bins = _ks_lesson_new_array (KS_ELEM_INT32, 512, 0, 0);
      _ks_lesson_arg_array (run, "bins", bins, KS_ARRAY_OUT,
                            "drv.Out of numpy.zeros(256).astype(numpy.int)");
      _ks_lesson_arg_array (run, "pixels", words, KS_ARRAY_IN, "drv.In of img.astype(numpy.int)");
    }
  else
    {
      KsArray *pixels = _ks_lesson_photo_gray_pixels (KS_ELEM_INT32);

      size = (guint) pixels->length;
      /* The book variant of 12-02 gets one guard slot past the 256 bins, so
       * that thread 256's atomicAdd (&bins[256], …) lands in memory of the
       * run's own, where it is seen, on either engine. */
      bins = _ks_lesson_new_array (KS_ELEM_INT32, shared && run->variant->book ? 257 : 256, 0, 0);
      if (!shared && run->variant->book)
        memset (bins->data, KS_LESSON_POISON_BYTE, ks_array_get_bytes (bins));
      k = _ks_lesson_arg_array (run, "bins", bins, KS_ARRAY_OUT,
                                run->variant->book ? "drv.Out" : NULL);
      /* Under compute-sanitizer the book's own 256 bins, without the guard. */
      ((KsLessonArg *) g_ptr_array_index (run->args, k))->book_length = 256;
      _ks_lesson_arg_array (run, "pixels", pixels, KS_ARRAY_IN, "drv.In");
    }
  _ks_lesson_arg_scalar (run, "size", KS_ELEM_INT32, size);
  if (run->variant->book)
    {
      /* n_threads = ceil((SIZE + NUM_BIN - 1) / NUM_BIN) = 257 with true division. */
      run->grid = _ks_lesson_dim3 (256, 1, 1);
      run->block = _ks_lesson_dim3 ((guint) ceil ((size + 256 - 1) / 256.0), 1, 1);
      run->shared = shared ? 1024 : 0;
    }
  else if (shared)
    {
      /* Few blocks, many pixels each: that is when privatising pays. */
      run->grid = _ks_lesson_dim3 (32, 1, 1);
      run->block = _ks_lesson_dim3 (256, 1, 1);
    }
  else
    {
      run->block = _ks_lesson_dim3 (256, 1, 1);
      run->grid = _ks_lesson_dim3 ((size + 255) / 256, 1, 1);
    }
  run->checked_arg = 0;
  return TRUE;
}

static KsArray *
hist_reference (const KsLessonRun *run)
{
  const KsArray *input = _ks_lesson_arg_data (run, 1), *bins = _ks_lesson_arg_data (run, 0);
  KsArray *counts = _ks_lesson_new_array (KS_ELEM_INT32, MIN (bins->length, (gsize) 256), 0, 0);

  if (g_str_equal (run->variant->id, "int64"))
    {
      /* What the pixels count to when each is read as the 8-byte value it is. */
      const gint64 *p = (const gint64 *) input->data;

      for (gsize i = 0; i < input->length / 2; i++)
        _ks_lesson_i32 (counts)[p[i]]++;
    }
  else
    for (gsize i = 0; i < input->length; i++)
      _ks_lesson_i32 (counts)[_ks_lesson_i32 (input)[i]]++;
  return counts;
}

static void
hist_finish (KsLessonRun *run)
{
  const KsArray *bins = _ks_lesson_result (run, 0);
  const char *v = run->variant->id;
  gboolean shared = g_str_equal (run->lesson->id, "12-02");
  guint64 threads = (guint64) run->grid.x * run->block.x;
  gint64 sum = 0;

  run->report->atomics.counted = TRUE;
  for (gsize i = 0; i < MIN (bins->length, (gsize) 256); i++)
    sum += _ks_lesson_i32 (bins)[i];
  if (g_str_equal (v, "race"))
    {
      _ks_lesson_note (run, "Without atomics the bins hold %" G_GINT64_FORMAT " counts for 1000 "
                       "values: %" G_GINT64_FORMAT " increments were lost (correct: 63 in bins "
                       "0–7, 62 in bins 8–15). On the CPU engine the 16 threads of a block run "
                       "in one warp, in lockstep: all of them load their bin before any stores "
                       "it back, so a block adds one per bin it touches, whatever the order of "
                       "the blocks; on a GPU the loss differs from run to run.",
                       sum, 1000 - sum);
      run->report->atomics.counted = FALSE;
    }
  else if (g_str_equal (v, "int64"))
    {
      /* The host reads its 256 int64 bins: the kernel's ints two by two. */
      KsArray *host = _ks_lesson_new_array (KS_ELEM_INT64, 256, 0, 0);
      const guint32 *w = (const guint32 *) bins->data;

      for (gsize i = 0; i < 256; i++)
        ((gint64 *) host->data)[i] = (gint64) ((guint64) w[2 * i] | ((guint64) w[2 * i + 1] << 32));
      _ks_lesson_note (run, "Each 8-byte pixel reads as its value and a 0: the kernel counts the "
                       "first half of the image (rows 0–127) plus 32768 zeros, so its bin 0 is "
                       "%d. The host then reads the 256 ints as 128 int64 pairs (the first is %"
                       G_GINT64_FORMAT ") and 128 values the kernel never wrote.",
                       _ks_lesson_i32 (bins)[0], ((gint64 *) host->data)[0]);
      _ks_lesson_add_host_output (run, "bins as the host reads them (int64)", host);
    }
  else if (run->variant->book && !shared)
    {
      gint32 poison;

      memset (&poison, KS_LESSON_POISON_BYTE, 4);
      _ks_lesson_note (run, "The bins were never cleared (drv.Out only allocates): each count was "
                       "added to the %d the buffer held (bytes 0x%02X, made visible). Subtract it "
                       "and the histogram is right: the atomics worked, the start did not. A fresh "
                       "cudaMalloc happened to read as zeros when measured, so the book's run "
                       "looks right.", poison, KS_LESSON_POISON_BYTE);
      _ks_lesson_note (run, "The source loads the pixel before the bounds test, so the %"
                       G_GUINT64_FORMAT " surplus threads would read past the 65536 pixels; "
                       "NVRTC moves the load below the test, and the CPU engine runs the "
                       "compiled code, so no read past the pixels happens (%" G_GUINT64_FORMAT
                       " found), as on the GPU.", threads - 65536, run->report->n_faults);
    }
  else if (run->variant->book && shared)
    {
      _ks_lesson_note (run, "257 threads per block for a 256-entry table: thread 256 of every "
                       "block writes cache[256] and reads it back; both land in the 1 KiB of "
                       "dynamic shared memory the launch requests and never uses, inside the "
                       "block's shared memory, so no bounds check catches them on either engine. "
                       "It adds cache[256] to bins[256], the guard slot past the table (here "
                       "%d).", _ks_lesson_i32 (bins)[256]);
      _ks_lesson_note (run, "256 × 257 threads for 65536 pixels: each thread counts at most one "
                       "pixel, so the merge costs 256 × 257 = 65792 global atomics, more than the "
                       "65536 of 12-01, on top of 65536 shared ones. Privatising pays with few "
                       "blocks and many pixels per thread (the fixed variant: %u global atomics).",
                       32 * 256);
    }
  if (run->report->atomics.counted)
    run->report->atomics.how =
      g_strdup_printf ("counted by the CPU engine as the kernel runs: %" G_GUINT64_FORMAT
                       " threads, %s", threads,
                       shared ? "one shared atomic per pixel and one global atomic per bin and "
                                "thread of the merge"
                              : "one global atomic per pixel");
}

static const KsLessonImpl impl_hist = { hist_setup, hist_reference, hist_finish };

static const KsLessonVariant v_hist[] = {
  KS_LESSON_FIXED ("12-01.cu", "One atomicAdd per pixel into cleared bins, the bounds test "
                   "before the load."),
  { "book", "As in the book", "256 × 257 threads, the load before the bounds test, and bins "
    "never cleared (poisoned here): every bin is off by the garbage.", TRUE, "P2 P3",
    "12-01-book.cu", "memcheck on a -G build reports “Invalid __global__ read” for pixels (only "
    "when nothing follows it in memory); initcheck reports the uninitialised bins", TRUE,
    "initcheck" },
  { "int64", "As in the book, on Linux", "numpy.int is int64 there: the int kernel sees half "
    "the image and as many zeros, and the host reads its bins as pairs.", TRUE, "P5",
    "12-01-int64.cu", NULL, TRUE, NULL },
  { "race", "The C twin without atomics", "bins[item]++ from many threads at once: increments "
    "are lost.", TRUE, "P16", "12-01-race.cu", "racecheck does not see global-memory races; the "
    "count simply varies from run to run", FALSE, "racecheck" },
};
static const KsLessonVariant v_hist_shared[] = {
  KS_LESSON_FIXED ("12-02.cu", "Block-private bins in shared memory, strided clear and merge, "
                   "32 blocks: 8192 global atomics instead of 65 536."),
  { "book", "As in the book", "257 threads for 256 table entries, and 256 × 257 threads: no "
    "gain from privatising.", TRUE, "P10 P11", "12-02-book.cu", "memcheck reports “Invalid "
    "__global__ atomic” for bins[256] (the shared write lands in the unused dynamic shared "
    "memory and is not flagged)", TRUE, "memcheck" },
};

static const KsLesson lessons[] = {
  KS_LESSON ("12-01", "histogram", "Histogram with global atomics",
             "Chapter12/01_histogram_without_shared.py",
             "One thread per pixel adds one to its bin with atomicAdd, so concurrent increments "
             "of one bin are not lost. Without the atomic they are; and bins must start at zero.",
             v_hist, impl_hist),
  KS_LESSON ("12-02", "histogram-shared", "Histogram in shared memory",
             "Chapter12/02_histogram_with_shared.py",
             "Each block counts into its own bins in fast shared memory and merges them once. "
             "That pays only when each thread handles many pixels; the book's launch gives each "
             "at most one, and one thread too many for the table.", v_hist_shared, impl_hist),
};

/* This file's lessons, for the registry. */
const KsLesson *const _ks_lessons_histogram[] = {
  &lessons[0],
  &lessons[1],
  NULL,
};
