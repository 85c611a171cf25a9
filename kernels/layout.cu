// Evaluation strategies S1-S4 of Cardenas-Montes & Vega-Rodriguez,
// "Effect of Data Layout in the Evaluation Time of Non-Separable Functions on GPU",
// Section 3.2, for the six functions of equations (1)-(6).
//
// Every function is a sum over windows of W consecutive coordinates:
//   f(x) = sum_{i=0}^{D-W} term(x_i, ..., x_{i+W-1}).
// The CPU reference (src/layout/functions.rs) evaluates the same terms with the
// same operations in f32 and in f64.
//
// Kernel names: <strategy>_<function>, e.g. s4_rosenbrock.
// Arguments: (const float* x, float* fitness, int pop, int dim).

struct Rosenbrock {
    static const int W = 2;
    __device__ static float term(const float* w) {
        float a = w[0] * w[0] - w[1];
        float b = w[0] - 1.0f;
        return 100.0f * (a * a + b * b);
    }
};

struct Rana {
    static const int W = 2;
    __device__ static float term(const float* w) {
        float xi = w[0], xn = w[1];
        float t1 = sqrtf(fabsf(xn + xi + 1.0f));
        float t2 = sqrtf(fabsf(xn - xi + 1.0f));
        return (xn + 1.0f) * cosf(t2) * sinf(t1) + cosf(t1) * sinf(t2) * xi;
    }
};

struct F2Light {
    static const int W = 2;
    __device__ static float term(const float* w) {
        float s = w[0] + w[1];
        return s * s;
    }
};

struct F2Heavy {
    static const int W = 2;
    __device__ static float term(const float* w) {
        return logf(sqrtf(logf(1.0f / sqrtf(w[0])) + logf(1.0f / sqrtf(w[1]))));
    }
};

struct F4Light {
    static const int W = 4;
    __device__ static float term(const float* w) {
        float s = w[0] + w[1] + w[2] + w[3];
        return s * s;
    }
};

struct F4Heavy {
    static const int W = 4;
    __device__ static float term(const float* w) {
        return logf(sqrtf(logf(1.0f / sqrtf(w[0])) + logf(1.0f / sqrtf(w[1])) +
                          logf(1.0f / sqrtf(w[2])) + logf(1.0f / sqrtf(w[3]))));
    }
};

// S1 (Section 3.2.1): one individual per thread, individual-major layout
// (x[ind * dim + j], strided across a warp), sliding window in registers: each
// step reads one new coordinate from global memory.
template <class F>
__device__ void s1(const float* __restrict__ x, float* __restrict__ fit, int pop, int dim) {
    int ind = blockIdx.x * blockDim.x + threadIdx.x;
    if (ind >= pop) return;
    const float* xi = x + (size_t)ind * dim;
    float w[F::W];
#pragma unroll
    for (int k = 0; k < F::W - 1; ++k) w[k] = xi[k];
    float acc = 0.0f;
    for (int j = F::W - 1; j < dim; ++j) {
        w[F::W - 1] = xi[j];
        acc += F::term(w);
#pragma unroll
        for (int k = 0; k < F::W - 1; ++k) w[k] = w[k + 1];
    }
    fit[ind] = acc;
}

// S2 (Section 3.2.2): as S1, but the stencil of W coordinates lives in shared
// memory (W floats per thread, laid out [k][thread] so a warp's accesses fall in
// distinct banks).
template <class F>
__device__ void s2(const float* __restrict__ x, float* __restrict__ fit, int pop, int dim) {
    extern __shared__ float stencil[];
    int t = threadIdx.x;
    int ind = blockIdx.x * blockDim.x + t;
    if (ind >= pop) return;
    const float* xi = x + (size_t)ind * dim;
    float* w = stencil + t;  // w[k * blockDim.x]
    const int stride = blockDim.x;
    for (int k = 0; k < F::W - 1; ++k) w[k * stride] = xi[k];
    float acc = 0.0f;
    for (int j = F::W - 1; j < dim; ++j) {
        w[(F::W - 1) * stride] = xi[j];
        float v[F::W];
#pragma unroll
        for (int k = 0; k < F::W; ++k) v[k] = w[k * stride];
        acc += F::term(v);
        for (int k = 0; k < F::W - 1; ++k) w[k * stride] = w[(k + 1) * stride];
    }
    fit[ind] = acc;
}

// S3 (Section 3.2.3): one individual per block, one thread per coordinate
// (blockDim.x == dim <= max threads per block). The individual is read
// coalesced into shared memory; thread i computes term i and the partial
// fitness values are reduced with atomicAdd on shared memory.
template <class F>
__device__ void s3(const float* __restrict__ x, float* __restrict__ fit, int pop, int dim) {
    extern __shared__ float coords[];  // dim floats, then the accumulator
    float* total = coords + dim;
    int ind = blockIdx.x;
    int i = threadIdx.x;
    if (i == 0) *total = 0.0f;
    if (i < dim) coords[i] = x[(size_t)ind * dim + i];
    __syncthreads();
    if (i + F::W - 1 < dim) {
        float v[F::W];
#pragma unroll
        for (int k = 0; k < F::W; ++k) v[k] = coords[i + k];
        atomicAdd(total, F::term(v));
    }
    __syncthreads();
    if (i == 0) fit[ind] = *total;
}

// S4 (Section 3.2.4): S1 on the transposed, dimension-major layout
// (x[j * pop + ind]): a warp reads 32 consecutive floats per coordinate.
template <class F>
__device__ void s4(const float* __restrict__ x, float* __restrict__ fit, int pop, int dim) {
    int ind = blockIdx.x * blockDim.x + threadIdx.x;
    if (ind >= pop) return;
    float w[F::W];
#pragma unroll
    for (int k = 0; k < F::W - 1; ++k) w[k] = x[(size_t)k * pop + ind];
    float acc = 0.0f;
    for (int j = F::W - 1; j < dim; ++j) {
        w[F::W - 1] = x[(size_t)j * pop + ind];
        acc += F::term(w);
#pragma unroll
        for (int k = 0; k < F::W - 1; ++k) w[k] = w[k + 1];
    }
    fit[ind] = acc;
}

// S4-split (not in the paper; this harness's design for GPUs with far more
// threads in flight than a population has individuals): S4's dimension-major
// layout with the terms split into chunks of `chunk_len` (blockIdx.y), so
// pop × chunks threads stream the population. Each thread writes the partial
// sum of its chunk to partial[chunk * pop + ind]; s4_split_reduce then sums the
// chunks of each individual in a fixed order (deterministic, no atomics).
template <class F>
__device__ void s4_split(const float* __restrict__ x, float* __restrict__ partial, int pop, int dim,
                         int chunk_len) {
    int ind = blockIdx.x * blockDim.x + threadIdx.x;
    if (ind >= pop) return;
    int terms = dim - F::W + 1;
    int t0 = blockIdx.y * chunk_len;
    int t1 = min(t0 + chunk_len, terms);
    float acc = 0.0f;
    if (t0 < t1) {
        float w[F::W];
#pragma unroll
        for (int k = 0; k < F::W - 1; ++k) w[k] = x[(size_t)(t0 + k) * pop + ind];
#pragma unroll 4
        for (int j = t0 + F::W - 1; j < t1 + F::W - 1; ++j) {
            w[F::W - 1] = x[(size_t)j * pop + ind];
            acc += F::term(w);
#pragma unroll
            for (int k = 0; k < F::W - 1; ++k) w[k] = w[k + 1];
        }
    }
    partial[(size_t)blockIdx.y * pop + ind] = acc;
}

extern "C" __global__ void s4_split_reduce(const float* __restrict__ partial, float* __restrict__ fit,
                                           int pop, int chunks) {
    int ind = blockIdx.x * blockDim.x + threadIdx.x;
    if (ind >= pop) return;
    float s = 0.0f;
    for (int c = 0; c < chunks; ++c) s += partial[(size_t)c * pop + ind];
    fit[ind] = s;
}

#define LAYOUT_KERNEL(strategy, name, F)                                                   \
    extern "C" __global__ void strategy##_##name(const float* __restrict__ x,             \
                                                 float* __restrict__ fit, int pop, int dim) { \
        strategy<F>(x, fit, pop, dim);                                                    \
    }

#define LAYOUT_ALL_STRATEGIES(name, F) \
    LAYOUT_KERNEL(s1, name, F)         \
    LAYOUT_KERNEL(s2, name, F)         \
    LAYOUT_KERNEL(s3, name, F)         \
    LAYOUT_KERNEL(s4, name, F)         \
    extern "C" __global__ void s4_split_##name(const float* __restrict__ x,                  \
                                               float* __restrict__ partial, int pop, int dim, \
                                               int chunk_len) {                               \
        s4_split<F>(x, partial, pop, dim, chunk_len);                                          \
    }

LAYOUT_ALL_STRATEGIES(rosenbrock, Rosenbrock)
LAYOUT_ALL_STRATEGIES(rana, Rana)
LAYOUT_ALL_STRATEGIES(f2_light, F2Light)
LAYOUT_ALL_STRATEGIES(f2_heavy, F2Heavy)
LAYOUT_ALL_STRATEGIES(f4_light, F4Light)
LAYOUT_ALL_STRATEGIES(f4_heavy, F4Heavy)
