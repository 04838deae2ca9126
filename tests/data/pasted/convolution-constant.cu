// 1-D convolution with the mask in constant memory.
#define MAX_MASK_WIDTH 10

__constant__ float M[MAX_MASK_WIDTH];

__global__ void convolution_1D_basic_kernel (float *N, float *P, int Mask_Width, int Width)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float Pvalue = 0;
  int N_start_point = i - (Mask_Width / 2);

  for (int j = 0; j < Mask_Width; j++)
    if (N_start_point + j >= 0 && N_start_point + j < Width)
      Pvalue += N[N_start_point + j] * M[j];
  if (i < Width)
    P[i] = Pvalue;
}
