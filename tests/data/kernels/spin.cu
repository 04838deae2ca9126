// Never ends: it keeps reading its input's first byte through a volatile
// pointer, which the compiler must not optimise away. The worker's watchdog
// stops it.
__global__ void
spin (ks_image out, ks_image in)
{
  volatile unsigned char *p = in.data;

  while (p[0] == p[0])
    ;
}
