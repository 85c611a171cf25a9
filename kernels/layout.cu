// Evaluation strategies S1-S4 of Cardenas-Montes & Vega-Rodriguez,
// "Effect of Data Layout in the Evaluation Time of Non-Separable Functions on GPU",
// Section 3.2, for the six functions of equations (1)-(6).
//
// Every function is a sum over windows of W consecutive coordinates:
//   f(x) = sum_{i=0}^{D-W} term(x_i, ..., x_{i+W-1}).
// The CPU reference (src/library/nonseparable.rs) evaluates the same terms with the
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

// S4-split (not in the paper; this harness's design for GPUs that hold far
// more threads than a population has individuals): S4's dimension-major layout,
// with the population cut into strips one warp wide (32·V individuals, V
// consecutive ones per thread: float4 loads when V = 4) and the terms into
// gridDim.y · SPLIT_WARPS chunks of chunk_len. Block (strip, g) has SPLIT_WARPS
// warps; warp w sums chunk g·SPLIT_WARPS + w of its strip. The warps' sums are
// added in shared memory in warp order. With one block per strip that is the
// fitness; otherwise each block writes partial[g·pop + ind], and the last block
// of a strip to finish (an integer ticket per strip) adds the partials — warp w
// those of g ≡ w mod SPLIT_WARPS in increasing g, then the warps in order — and
// resets the ticket for the next launch. Every sum has a fixed
// order, so results are bit-identical run to run. The host sizes the grid to
// one wave of resident blocks (the host's split_plan).
#define SPLIT_WARPS 8

template <int V>
struct Lanes {
    float v[V];
};

template <int V>
__device__ Lanes<V> load_lanes(const float* p);

template <>
__device__ Lanes<1> load_lanes<1>(const float* p) {
    return Lanes<1>{{__ldg(p)}};
}

template <>
__device__ Lanes<4> load_lanes<4>(const float* p) {
    float4 q = __ldg(reinterpret_cast<const float4*>(p));
    return Lanes<4>{{q.x, q.y, q.z, q.w}};
}

template <class F, int V>
__device__ void s4_split(const float* __restrict__ x, float* __restrict__ fit, float* __restrict__ partial,
                         unsigned* __restrict__ tickets, int pop, int dim, int chunk_len) {
    __shared__ float warp_sums[SPLIT_WARPS][32 * V];
    __shared__ bool last_block;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int ind0 = (blockIdx.x * 32 + lane) * V;
    const bool valid = ind0 < pop;  // V = 4 only when pop % 4 == 0
    const int terms = dim - F::W + 1;
    const int t0 = (blockIdx.y * SPLIT_WARPS + warp) * chunk_len;
    const int t1 = min(t0 + chunk_len, terms);
    float acc[V];
#pragma unroll
    for (int v = 0; v < V; ++v) acc[v] = 0.0f;
    if (valid && t0 < t1) {
        Lanes<V> w[F::W];
#pragma unroll
        for (int k = 0; k < F::W - 1; ++k) w[k] = load_lanes<V>(x + (size_t)(t0 + k) * pop + ind0);
#pragma unroll 4
        for (int j = t0 + F::W - 1; j < t1 + F::W - 1; ++j) {
            w[F::W - 1] = load_lanes<V>(x + (size_t)j * pop + ind0);
#pragma unroll
            for (int v = 0; v < V; ++v) {
                float c[F::W];
#pragma unroll
                for (int k = 0; k < F::W; ++k) c[k] = w[k].v[v];
                acc[v] += F::term(c);
            }
#pragma unroll
            for (int k = 0; k < F::W - 1; ++k) w[k] = w[k + 1];
        }
    }
#pragma unroll
    for (int v = 0; v < V; ++v) warp_sums[warp][lane * V + v] = acc[v];
    __syncthreads();
    if (warp == 0 && valid) {
#pragma unroll
        for (int v = 0; v < V; ++v) {
            float s = 0.0f;
            for (int k = 0; k < SPLIT_WARPS; ++k) s += warp_sums[k][lane * V + v];
            if (gridDim.y == 1) {
                fit[ind0 + v] = s;
            } else {
                partial[(size_t)blockIdx.y * pop + ind0 + v] = s;
            }
        }
    }
    if (gridDim.y == 1) return;
    __threadfence();  // partial sums visible device-wide before the ticket
    __syncthreads();
    if (threadIdx.x == 0) last_block = atomicAdd(&tickets[blockIdx.x], 1u) == gridDim.y - 1;
    __syncthreads();
    if (!last_block) return;
    // Warp w adds the partials g = w, w + SPLIT_WARPS, ... in increasing g (their
    // loads in flight together, not one L2 round trip per g), then warp 0 adds the
    // warps' sums in warp order.
#pragma unroll
    for (int v = 0; v < V; ++v) acc[v] = 0.0f;
    if (valid) {
        for (unsigned g = warp; g < gridDim.y; g += SPLIT_WARPS) {
#pragma unroll
            for (int v = 0; v < V; ++v) acc[v] += __ldcg(&partial[(size_t)g * pop + ind0 + v]);
        }
    }
#pragma unroll
    for (int v = 0; v < V; ++v) warp_sums[warp][lane * V + v] = acc[v];
    __syncthreads();
    if (warp == 0 && valid) {
#pragma unroll
        for (int v = 0; v < V; ++v) {
            float s = 0.0f;
            for (int k = 0; k < SPLIT_WARPS; ++k) s += warp_sums[k][lane * V + v];
            fit[ind0 + v] = s;
        }
    }
    if (threadIdx.x == 0) tickets[blockIdx.x] = 0;
}

#define LAYOUT_KERNEL(strategy, name, F)                                                   \
    extern "C" __global__ void strategy##_##name(const float* __restrict__ x,             \
                                                 float* __restrict__ fit, int pop, int dim) { \
        strategy<F>(x, fit, pop, dim);                                                    \
    }

#define LAYOUT_SPLIT_KERNEL(kernel, F, V)                                                          \
    extern "C" __global__ void __launch_bounds__(SPLIT_WARPS * 32)                                  \
        kernel(const float* __restrict__ x, float* __restrict__ fit, float* __restrict__ partial,    \
               unsigned* __restrict__ tickets, int pop, int dim, int chunk_len) {                   \
        s4_split<F, V>(x, fit, partial, tickets, pop, dim, chunk_len);                              \
    }

#define LAYOUT_ALL_STRATEGIES(name, F) \
    LAYOUT_KERNEL(s1, name, F)         \
    LAYOUT_KERNEL(s2, name, F)         \
    LAYOUT_KERNEL(s3, name, F)         \
    LAYOUT_KERNEL(s4, name, F)         \
    LAYOUT_SPLIT_KERNEL(s4_split_##name, F, 1) \
    LAYOUT_SPLIT_KERNEL(s4_split4_##name, F, 4)

LAYOUT_ALL_STRATEGIES(rosenbrock, Rosenbrock)
LAYOUT_ALL_STRATEGIES(rana, Rana)
LAYOUT_ALL_STRATEGIES(f2_light, F2Light)
LAYOUT_ALL_STRATEGIES(f2_heavy, F2Heavy)
LAYOUT_ALL_STRATEGIES(f4_light, F4Light)
LAYOUT_ALL_STRATEGIES(f4_heavy, F4Heavy)
