// 12-03 BGR to gray (BT.601) on planes of floats: n is a parameter and every
// thread checks it; the weighted sum uses round-to-nearest multiplies and
// adds that the compiler may not fuse, so the CPU gets the same bits, and the
// result is rounded to the nearest integer.
__global__ void bgr2gray (float *result, const float *b, const float *g, const float *r, int n)
{
  int idx = threadIdx.x + blockIdx.x * blockDim.x;

  if (idx < n)
    {
      float y = __fadd_rn (__fadd_rn (__fmul_rn (0.299f, r[idx]), __fmul_rn (0.587f, g[idx])),
                           __fmul_rn (0.114f, b[idx]));

      result[idx] = floorf (y + 0.5f);
    }
}
