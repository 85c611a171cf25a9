// gECGA: the CCC cache of ECGA's greedy model search on the GPU
// (Shao & Yu, "Speeding Up Model Building for ECGA on CUDA Platform", GECCO 2013,
// Section 4.2, Algorithm 2). One thread block per candidate pair of groups, as the
// paper: the block counts the 2^L schemata of the merged group over the whole
// population — with FastCount (Section 4.1: AND / NOT of locus words, then count
// ones) for L <= 5, with a shared-memory histogram of each individual's schema
// beyond — then one thread sums c*log2(c) over the schemata in index order.
//
// The CPU reference is src/library/ecga.rs (`CpuScorer`); both return, for each
// pair, s = sum_v xlogx[count_v] summed in index order v = 0, 1, ..., 2^L - 1 from
// the same table, so the host computes bit-identical CCC values from either.
//
// Population: bit-packed by locus, words[l * wpl + w], bit b of word w is the
// allele of individual 64 w + b; padding bits (individuals >= n) are zero.
// Schema index: bit j is the allele at the j-th locus of the merged group.

#define ECGA_MAX_L 12

// Counts of all 2^L schemata of one word's 64 individuals, for L <= 5, in
// registers: every leaf of the AND / NOT tree, unrolled (FastCount, Section 4.1).
template <int L>
__device__ void count_word_small(const unsigned long long* x, unsigned long long valid, unsigned int* c) {
#pragma unroll
    for (int v = 0; v < (1 << L); ++v) {
        unsigned long long m = valid;
#pragma unroll
        for (int j = 0; j < L; ++j) m &= ((v >> j) & 1) ? x[j] : ~x[j];
        c[v] += __popcll(m);
    }
}

template <int L>
__device__ void count_small(const unsigned long long* __restrict__ words, const int* group, int wpl,
                            unsigned long long last_valid, unsigned int* counts) {
    unsigned int c[1 << L];
#pragma unroll
    for (int v = 0; v < (1 << L); ++v) c[v] = 0u;
    unsigned long long x[L];
    for (int w = threadIdx.x; w < wpl; w += blockDim.x) {
        unsigned long long valid = w == wpl - 1 ? last_valid : ~0ull;
#pragma unroll
        for (int j = 0; j < L; ++j) x[j] = words[(size_t)group[j] * wpl + w];
        count_word_small<L>(x, valid, c);
    }
    // Warp-level sum first, then one shared atomic per warp and schema.
#pragma unroll
    for (int v = 0; v < (1 << L); ++v) {
        unsigned int t = c[v];
        for (int o = 16; o > 0; o >>= 1) t += __shfl_down_sync(0xffffffffu, t, o);
        if ((threadIdx.x & 31) == 0 && t) atomicAdd(&counts[v], t);
    }
}

// For L > 5 the 2^L leaves cost more than reading each individual's schema:
// thread t takes word w (coalesced over the warp), gathers the L alleles of
// each of its 64 individuals into a schema index (unrolled over the L loci)
// and adds one to that schema's shared counter (a histogram; the same counts as
// FastCount, no divergence).
template <int L>
__device__ void count_histogram(const unsigned long long* __restrict__ words, const int* group, int wpl, int tail,
                                unsigned int* counts) {
    unsigned long long x[L];
    for (int w = threadIdx.x; w < wpl; w += blockDim.x) {
#pragma unroll
        for (int j = 0; j < L; ++j) x[j] = words[(size_t)group[j] * wpl + w];
        const int bits = w == wpl - 1 ? tail : 64;
        for (int b = 0; b < bits; ++b) {
            unsigned int v = 0u;
#pragma unroll
            for (int j = 0; j < L; ++j) v |= (unsigned int)((x[j] >> b) & 1ull) << j;
            atomicAdd(&counts[v], 1u);
        }
    }
}

// Threads per block of ecga_pair_entropy (src/gpu/ecga.rs launches this many).
#define ECGA_THREADS 256

// Arguments:
//   words  [ell * wpl]     bit-packed population
//   loci   [pairs * ECGA_MAX_L] loci of each merged group (first len[p] used)
//   len    [pairs]         size L of each merged group (1..ECGA_MAX_L)
//   xlogx  [n + 1]         c * log2(c) as double
//   s      [pairs]         output: sum over schemata of xlogx[count]
//   n, wpl                 population size, words per locus
extern "C" __global__ void __launch_bounds__(ECGA_THREADS)
    ecga_pair_entropy(const unsigned long long* __restrict__ words, const int* __restrict__ loci,
                      const int* __restrict__ len, const double* __restrict__ xlogx, double* __restrict__ s,
                      int n, int wpl) {
    __shared__ unsigned int counts[1 << ECGA_MAX_L];
    __shared__ double terms[ECGA_THREADS];
    __shared__ int group[ECGA_MAX_L];
    const int p = blockIdx.x;
    const int L = len[p];
    const int V = 1 << L;
    if (threadIdx.x < L) group[threadIdx.x] = loci[p * ECGA_MAX_L + threadIdx.x];
    for (int v = threadIdx.x; v < V; v += blockDim.x) counts[v] = 0u;
    __syncthreads();

    const int tail = n - (wpl - 1) * 64;  // individuals in the last word, 1..64
    const unsigned long long last_valid = tail == 64 ? ~0ull : ((1ull << tail) - 1ull);
    switch (L) {
        case 1: count_small<1>(words, group, wpl, last_valid, counts); break;
        case 2: count_small<2>(words, group, wpl, last_valid, counts); break;
        case 3: count_small<3>(words, group, wpl, last_valid, counts); break;
        case 4: count_small<4>(words, group, wpl, last_valid, counts); break;
        case 5: count_small<5>(words, group, wpl, last_valid, counts); break;
        case 6: count_histogram<6>(words, group, wpl, tail, counts); break;
        case 7: count_histogram<7>(words, group, wpl, tail, counts); break;
        case 8: count_histogram<8>(words, group, wpl, tail, counts); break;
        case 9: count_histogram<9>(words, group, wpl, tail, counts); break;
        case 10: count_histogram<10>(words, group, wpl, tail, counts); break;
        case 11: count_histogram<11>(words, group, wpl, tail, counts); break;
        default: count_histogram<ECGA_MAX_L>(words, group, wpl, tail, counts); break;
    }
    __syncthreads();
    // s = sum of xlogx[count_v] in index order v = 0, 1, ... (the CPU's order):
    // the table lookups of ECGA_THREADS schemata at a time in parallel, the
    // additions by thread 0.
    double acc = 0.0;
    for (int v0 = 0; v0 < V; v0 += ECGA_THREADS) {
        const int v = v0 + threadIdx.x;
        if (v < V) terms[threadIdx.x] = xlogx[counts[v]];
        __syncthreads();
        if (threadIdx.x == 0) {
            const int m = min(ECGA_THREADS, V - v0);
            for (int k = 0; k < m; ++k) acc += terms[k];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) s[p] = acc;
}
