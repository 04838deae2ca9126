// Conway's Game of Life on a torus, with a kernel that copies the ghost
// rows and one that steps the board.
#include <stdint.h>

__global__ void ghostRows (int dim, int *grid)
{
  int id = blockDim.x * blockIdx.x + threadIdx.x + 1;
  if (id <= dim)
    {
      grid[(dim + 2) * (dim + 1) + id] = grid[(dim + 2) + id];
      grid[id] = grid[(dim + 2) * dim + id];
    }
}

__global__ void GOL (int dim, int *grid, int *newGrid)
{
  int iy = blockDim.y * blockIdx.y + threadIdx.y + 1;
  int ix = blockDim.x * blockIdx.x + threadIdx.x + 1;
  int id = iy * (dim + 2) + ix;

  if (iy <= dim && ix <= dim)
    {
      int numNeighbors = grid[id + (dim + 2)] + grid[id - (dim + 2)] + grid[id + 1]
                         + grid[id - 1] + grid[id + (dim + 3)] + grid[id - (dim + 3)]
                         + grid[id - (dim + 1)] + grid[id + (dim + 1)];
      int cell = grid[id];
      if (cell == 1 && numNeighbors < 2)
        newGrid[id] = 0;
      else if (cell == 1 && (numNeighbors == 2 || numNeighbors == 3))
        newGrid[id] = 1;
      else if (cell == 1 && numNeighbors > 3)
        newGrid[id] = 0;
      else if (cell == 0 && numNeighbors == 3)
        newGrid[id] = 1;
      else
        newGrid[id] = cell;
    }
}
