// Box blur: a whole image kernel that stages its block's tile of the input,
// and the border around it, in shared memory, so that each input pixel is
// read from global memory about once per block instead of (2·radius + 1)²
// times. Borders clamp to the nearest pixel and the mean rounds to nearest,
// like the built-in Box blur; alpha is the centre pixel's.
//@param int radius 2 [1, 16] "Radius"
//@block 16x16

#define MAX_BLOCK 32
#define MAX_RADIUS 16

__global__ void
box_blur (ks_image out, ks_image in, ks_params p)
{
  // (32 + 2·16)² pixels of 4 bytes: 16 KiB, inside what every GPU gives a block.
  __shared__ uchar4 tile[MAX_BLOCK + 2 * MAX_RADIUS][MAX_BLOCK + 2 * MAX_RADIUS];

  // Any block up to 32×32 works: each thread writes the pixel under it.
  if (blockDim.x > MAX_BLOCK || blockDim.y > MAX_BLOCK || blockDim.z != 1)
    {
      if (blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0 && threadIdx.y == 0
          && threadIdx.z == 0)
        printf ("box_blur takes blocks of up to 32x32x1, not %ux%ux%u\n", blockDim.x,
                blockDim.y, blockDim.z);
      return;
    }
  const int r = p.radius;
  const int bw = blockDim.x, bh = blockDim.y;
  const int x0 = blockIdx.x * bw - r;
  const int y0 = blockIdx.y * bh - r;
  const int w = in.width, h = in.height;

  // The block loads its tile and the border together, clamping coordinates
  // so that pixels beyond an edge repeat the edge.
  for (int ty = threadIdx.y; ty < bh + 2 * r; ty += bh)
    for (int tx = threadIdx.x; tx < bw + 2 * r; tx += bw)
      {
        const int sx = min (max (x0 + tx, 0), w - 1);
        const int sy = min (max (y0 + ty, 0), h - 1);
        tile[ty][tx] = ks_rgba (in, sx, sy);
      }
  __syncthreads ();

  const int x = blockIdx.x * bw + threadIdx.x;
  const int y = blockIdx.y * bh + threadIdx.y;
  if (!ks_inside (out, x, y))
    return;

  unsigned int sr = 0, sg = 0, sb = 0;
  for (int dy = 0; dy <= 2 * r; dy++)
    for (int dx = 0; dx <= 2 * r; dx++)
      {
        const uchar4 v = tile[threadIdx.y + dy][threadIdx.x + dx];
        sr += v.x;
        sg += v.y;
        sb += v.z;
      }
  const unsigned int n = (2 * r + 1) * (2 * r + 1);
  const uchar4 centre = tile[threadIdx.y + r][threadIdx.x + r];
  ks_rgba (out, x, y) = make_uchar4 ((sr + n / 2) / n, (sg + n / 2) / n, (sb + n / 2) / n,
                                     centre.w);
}
