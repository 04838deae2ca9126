// Polar coordinates with the math library and its constants.
#include <cmath>
#include <math_constants.h>

__global__ void to_polar (const float2 *xy, float2 *polar, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    {
      float r = hypotf (xy[i].x, xy[i].y);
      float theta = atan2f (xy[i].y, xy[i].x);
      if (theta < 0)
        theta += 2.0f * CUDART_PI_F;
      polar[i] = make_float2 (r, theta);
    }
}
