__global__ void
kernel (ks_image out, ks_image in, Ма 2 @)
{
}
