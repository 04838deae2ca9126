/* fuzz-params.c: op parameters as `--param name=value` and session files
 * give them — ks_params_parse_assignment, then validation, formatting and
 * the op's output size — and a run of the op with them on the CPU engine.
 *
 * The input: byte 0 picks the op (modulo the registry's size), bytes 1 and 2
 * the input's width and height (1 to 16), the rest are assignments, one per
 * line. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "kernelscope.h"
#include "ks-fuzz.h"
#include "ks-op-registry.h"

/* The op runs only when its output stays small: resize can ask for 16384². */
#define MAX_RUN_PIXELS (256u * 256u)
#define MAX_ASSIGNMENTS 16

static KsEngine *engine;

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  g_autoptr (KsDevice) cpu = NULL;
  g_autoptr (GError) error = NULL;

  ks_fuzz_init_logging ();
  cpu = ks_device_get_cpu ();
  engine = ks_engine_new (cpu, &error);
  if (engine == NULL)
    g_error ("no CPU engine: %s", error->message);
  /* One worker: the run happens on this thread, where libFuzzer sees it. */
  ks_engine_set_n_workers (engine, 1);
  return 0;
}

static void
check_refusal (const GError *error, const char *assignment)
{
  ks_fuzz_check (error != NULL, "“%s” refused without an error", assignment);
  ks_fuzz_check (g_error_matches (error, KS_ERROR, KS_ERROR_INVALID_ARGUMENT),
                 "“%s” refused with %s %d", assignment, g_quark_to_string (error->domain),
                 error->code);
  ks_fuzz_check (error->message[0] != '\0', "empty message");
  if (g_utf8_validate (assignment, -1, NULL))
    ks_fuzz_check (g_utf8_validate (error->message, -1, NULL), "message not UTF-8");
}

/* Each value, written as ks_param_format_value writes it (sessions, the
 * window), is accepted back. */
static void
check_round_trip (const KsOp *op, const KsParams *params)
{
  for (guint i = 0; i < op->n_params; i++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *value = ks_param_format_value (&op->params[i], params->values[i]);
      g_autofree char *assignment = g_strdup_printf ("%s=%s", op->params[i].name, value);
      KsParams again = *params;

      ks_fuzz_check (ks_params_parse_assignment (&again, op, assignment, &error),
                     "%s: “%s” (written for %.17g) is refused: %s", op->id, assignment,
                     params->values[i], error->message);
    }
}

static void
run_op (const KsOp *op, const KsParams *params, guint width, guint height)
{
  g_autoptr (KsImage) image = NULL;
  g_autoptr (KsImage) output = NULL;
  g_autoptr (GError) error = NULL;
  KsRunRequest request;
  KsRunResult result = { 0 };
  KsLaunchConfig resolved, suggestion;
  guint out_w = 0, out_h = 0;
  gboolean ok = TRUE;

  ks_op_output_size (op, params, width, height, &out_w, &out_h);
  (void) ks_op_bytes_moved_for (op, params, KS_FORMAT_RGBA8, width, height);
  if ((guint64) out_w * out_h > MAX_RUN_PIXELS)
    return;

  image = ks_image_new (KS_FORMAT_RGBA8, width, height, NULL);
  ks_image_fill_random (image, width * 31 + height);
  ks_run_request_init (&request, op);
  request.params = *params;
  for (guint i = 0; i < op->n_inputs && ok; i++)
    {
      request.inputs[i] = ks_engine_upload (engine, image, NULL, &error);
      ok = request.inputs[i] != NULL;
    }
  if (ok && !ks_engine_validate (engine, &request, &resolved, &suggestion, &error))
    {
      /* Output sizes outside 1..16384 are refused, the rest must run. */
      ks_fuzz_check (out_w == 0 || out_h == 0 || out_w > KS_IMAGE_MAX_SIDE
                     || out_h > KS_IMAGE_MAX_SIDE,
                     "%s on %u×%u refused: %s", op->id, width, height, error->message);
      ok = FALSE;
    }
  if (ok)
    {
      ks_fuzz_check (ks_engine_run (engine, &request, &result, &error),
                     "%s on %u×%u failed: %s", op->id, width, height, error->message);
      if (op->output_kind == KS_OP_OUTPUT_IMAGE)
        {
          output = ks_engine_download (engine, result.output, NULL, &error);
          ks_fuzz_check (output != NULL, "download: %s", error->message);
          ks_fuzz_check (output->width == out_w && output->height == out_h,
                         "%s made %u×%u, ks_op_output_size says %u×%u", op->id, output->width,
                         output->height, out_w, out_h);
        }
      ks_run_result_clear (&result);
    }
  for (guint i = 0; i < op->n_inputs; i++)
    g_clear_pointer (&request.inputs[i], ks_buffer_unref);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_auto (GStrv) lines = NULL;
  const KsOp *op;
  KsParams params;
  guint width, height;

  if (size < 3)
    return 0;
  op = ks_op_registry_get (data[0] % ks_op_registry_count ());
  width = 1 + data[1] % 16;
  height = 1 + data[2] % 16;
  lines = ks_fuzz_split (data + 3, size - 3, '\n', MAX_ASSIGNMENTS);

  ks_params_init (&params, op);
  ks_fuzz_check (ks_params_validate (&params, op, NULL), "%s: the defaults are invalid", op->id);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autoptr (GError) error = NULL;
      KsParams before = params;

      if (ks_params_parse_assignment (&params, op, lines[i], &error))
        ks_fuzz_check (error == NULL, "accepted with an error");
      else
        {
          check_refusal (error, lines[i]);
          ks_fuzz_check (memcmp (&before, &params, sizeof params) == 0,
                         "a refused assignment “%s” changed the values", lines[i]);
        }
    }
  /* Whatever was accepted one by one is valid together. */
  {
    g_autoptr (GError) error = NULL;

    ks_fuzz_check (ks_params_validate (&params, op, &error), "%s: accepted values are invalid: %s",
                   op->id, error->message);
  }
  for (guint i = 0; i < op->n_params; i++)
    {
      double v = ks_params_get (&params, op, op->params[i].name);
      ks_fuzz_check (v == params.values[i], "ks_params_get");
      ks_fuzz_check (isfinite (v), "%s=%g", op->params[i].name, v);
    }
  check_round_trip (op, &params);
  run_op (op, &params, width, height);
  return 0;
}
