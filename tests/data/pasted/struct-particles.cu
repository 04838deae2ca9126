// Particles as a struct, moved by a struct of parameters passed by value.
struct Particle
{
  float3 position;
  float3 velocity;
  float mass;
};

typedef struct
{
  float dt;
  float3 gravity;
} StepParams;

__global__ void step (Particle *particles, StepParams p, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  Particle q = particles[i];
  q.velocity.x += p.gravity.x * p.dt;
  q.velocity.y += p.gravity.y * p.dt;
  q.velocity.z += p.gravity.z * p.dt;
  q.position.x += q.velocity.x * p.dt;
  q.position.y += q.velocity.y * p.dt;
  q.position.z += q.velocity.z * p.dt;
  particles[i] = q;
}
