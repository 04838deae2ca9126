// All-pairs gravitational acceleration on float4 bodies (xyz position, w mass).
#include <math.h>

#define SOFTENING 1e-9f

__device__ float3 bodyBodyInteraction (float4 bi, float4 bj, float3 ai)
{
  float3 r;
  r.x = bj.x - bi.x;
  r.y = bj.y - bi.y;
  r.z = bj.z - bi.z;
  float distSqr = r.x * r.x + r.y * r.y + r.z * r.z + SOFTENING;
  float invDist = rsqrtf (distSqr);
  float s = bj.w * invDist * invDist * invDist;
  ai.x += r.x * s;
  ai.y += r.y * s;
  ai.z += r.z * s;
  return ai;
}

__global__ void calculate_forces (const float4 *bodies, float4 *accel, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float3 acc = make_float3 (0.0f, 0.0f, 0.0f);
  for (int j = 0; j < n; j++)
    acc = bodyBodyInteraction (bodies[i], bodies[j], acc);
  accel[i] = make_float4 (acc.x, acc.y, acc.z, 0.0f);
}
