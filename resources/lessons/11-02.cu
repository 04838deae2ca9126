// 11-02 Device properties: no kernel runs. This is the host's side as the
// lesson runs it on CUDA, with the runtime API, shown for reading: it is not
// compiled, and an edit does not run. PyCUDA's Device methods ask the driver
// the same questions: count(), name(), compute_capability(), total_memory()
// and get_attributes(), whose 84 names the lesson prints in Python's sort
// order ('_' after the letters, so MAXIMUM_* before MAX_*), two per line.
#include <stdio.h>
#include <cuda_runtime_api.h>

static void print_devices (const int *attributes, const char *const *names, int n_attributes)
{
  int count = 0;

  cudaGetDeviceCount (&count);
  printf ("%d device(s) found.\n", count);
  for (int i = 0; i < count; i++)
    {
      struct cudaDeviceProp prop;
      int major, minor, printed = 0;

      cudaGetDeviceProperties (&prop, i);
      cudaDeviceGetAttribute (&major, cudaDevAttrComputeCapabilityMajor, i);
      cudaDeviceGetAttribute (&minor, cudaDevAttrComputeCapabilityMinor, i);
      printf ("Device #%d: %s\n", i, prop.name);
      printf ("  Compute Capability: %d.%d\n", major, minor);
      // total_memory() // (1024**3): floor division, GiB printed as "GB".
      printf ("  Total Memory: %zu GB\n", prop.totalGlobalMem >> 30);
      for (int k = 0; k < n_attributes; k++)
        {
          int value = 0;
          char item[64];

          // An attribute the driver does not answer is left out, as PyCUDA
          // skips one that raises.
          if (cudaDeviceGetAttribute (&value, (enum cudaDeviceAttr) attributes[k], i) != cudaSuccess)
            continue;
          snprintf (item, sizeof item, "%s: %d", names[k], value);
          printf (printed++ % 2 == 0 ? "  %-46s" : " %s\n", item);
        }
      if (printed % 2 == 1)
        printf ("\n");
    }
}
