// 11-01 as in the book: the string has no newline, and nothing waits for the
// kernel, so the text appears only when the device's printf buffer is
// flushed (here: when the run synchronises; in the book: at interpreter exit).
__global__ void hello ()
{
  printf ("Hello,PyCUDA!!!");
}
