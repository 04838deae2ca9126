// 11-01 Hello from the GPU: one thread prints one line.
// The newline ends the line, so it reaches the console as soon as the host
// synchronises with the device (the run does).
__global__ void hello ()
{
  printf ("Hello,PyCUDA!!!\n");
}
