// Physical ceilings the reports compare kernels with, measured in the same run
// (the GPU layer's `ceilings` module). Bandwidths are measured with driver copies; this file
// holds the compute probes.

#define INT_CHAINS 8

// The 32-bit integer instruction rate: every thread advances INT_CHAINS
// independent chains x = (x ^ k) + c for `steps` steps (one LOP3 and one IADD3
// per chain and step: 2 · INT_CHAINS · steps integer instructions per thread)
// and writes their XOR so that nothing is optimised away. k and c are arguments,
// so the compiler cannot fold the chains.
extern "C" __global__ void int32_rate(unsigned int* __restrict__ out, unsigned int steps, unsigned int k, unsigned int c) {
    const unsigned int thread = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int x[INT_CHAINS];
#pragma unroll
    for (int j = 0; j < INT_CHAINS; ++j) x[j] = thread * (2u * j + 1u);
    for (unsigned int s = 0; s < steps; ++s) {
#pragma unroll
        for (int j = 0; j < INT_CHAINS; ++j) x[j] = (x[j] ^ k) + c;
    }
    unsigned int folded = 0u;
#pragma unroll
    for (int j = 0; j < INT_CHAINS; ++j) folded ^= x[j];
    out[thread] = folded;
}
