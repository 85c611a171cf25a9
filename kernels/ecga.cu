// gECGA: the CCC cache of ECGA's greedy model search on the GPU
// (Shao & Yu, "Speeding Up Model Building for ECGA on CUDA Platform", GECCO 2013,
// Section 4.2, Algorithm 2). One thread block per candidate pair of groups, as the
// paper: the block counts the 2^L schemata of the merged group over the whole
// population with FastCount (Section 4.1: AND / NOT of locus words, then count
// ones), then one thread sums c*log2(c) over the schemata in index order.
//
// The CPU reference is src/library/ecga.rs (`CpuScorer`); both return, for each
// pair, s = sum_v xlogx[count_v] summed in index order v = 0, 1, ..., 2^L - 1 from
// the same table, so the host computes bit-identical CCC values from either.
//
// Population: bit-packed by locus, words[l * wpl + w], bit b of word w is the
// allele of individual 64 w + b; padding bits (individuals >= n) are zero.
// Schema index: bit j is the allele at the j-th locus of the merged group.

#define ECGA_MAX_L 12

// Counts of all 2^L schemata of one word's 64 individuals, for L <= 3, in
// registers: every leaf of the AND / NOT tree, unrolled.
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

// Depth-first walk over the AND / NOT tree of one word for larger L, pruning
// subtrees whose prefix mask is already zero (at most 64 live leaves per word);
// leaves add into the block's shared counts.
__device__ void count_word_tree(const unsigned long long* x, int L, unsigned long long valid, unsigned int* counts) {
    unsigned long long stack[ECGA_MAX_L + 1];
    int value[ECGA_MAX_L + 1];
    int depth = 0;
    stack[0] = valid;
    value[0] = 0;
    // Iterative DFS: at depth d the prefix fixes loci 0..d-1; branch 0 then 1.
    int branch[ECGA_MAX_L + 1];
    branch[0] = 0;
    while (depth >= 0) {
        if (depth == L) {
            atomicAdd(&counts[value[depth]], (unsigned int)__popcll(stack[depth]));
            --depth;
            continue;
        }
        int b = branch[depth];
        if (b > 1) {
            --depth;
            continue;
        }
        branch[depth] = b + 1;
        unsigned long long m = stack[depth] & (b ? x[depth] : ~x[depth]);
        if (m == 0ull) continue;
        stack[depth + 1] = m;
        value[depth + 1] = value[depth] | (b << depth);
        branch[depth + 1] = 0;
        ++depth;
    }
}

// Arguments:
//   words  [ell * wpl]     bit-packed population
//   loci   [pairs * ECGA_MAX_L] loci of each merged group (first len[p] used)
//   len    [pairs]         size L of each merged group (1..ECGA_MAX_L)
//   xlogx  [n + 1]         c * log2(c) as double
//   s      [pairs]         output: sum over schemata of xlogx[count]
//   n, wpl                 population size, words per locus
extern "C" __global__ void ecga_pair_entropy(const unsigned long long* __restrict__ words,
                                             const int* __restrict__ loci, const int* __restrict__ len,
                                             const double* __restrict__ xlogx, double* __restrict__ s,
                                             int n, int wpl) {
    __shared__ unsigned int counts[1 << ECGA_MAX_L];
    __shared__ int group[ECGA_MAX_L];
    const int p = blockIdx.x;
    const int L = len[p];
    const int V = 1 << L;
    if (threadIdx.x < L) group[threadIdx.x] = loci[p * ECGA_MAX_L + threadIdx.x];
    for (int v = threadIdx.x; v < V; v += blockDim.x) counts[v] = 0u;
    __syncthreads();

    const int tail = n - (wpl - 1) * 64;  // individuals in the last word, 1..64
    const unsigned long long last_valid = tail == 64 ? ~0ull : ((1ull << tail) - 1ull);
    unsigned long long x[ECGA_MAX_L];
    if (L <= 3) {
        unsigned int c[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        for (int w = threadIdx.x; w < wpl; w += blockDim.x) {
            unsigned long long valid = w == wpl - 1 ? last_valid : ~0ull;
            for (int j = 0; j < L; ++j) x[j] = words[(size_t)group[j] * wpl + w];
            if (L == 1) count_word_small<1>(x, valid, c);
            else if (L == 2) count_word_small<2>(x, valid, c);
            else count_word_small<3>(x, valid, c);
        }
        // Warp-level sum first, then one shared atomic per warp and schema.
        for (int v = 0; v < V; ++v) {
            unsigned int t = c[v];
            for (int o = 16; o > 0; o >>= 1) t += __shfl_down_sync(0xffffffffu, t, o);
            if ((threadIdx.x & 31) == 0 && t) atomicAdd(&counts[v], t);
        }
    } else {
        for (int w = threadIdx.x; w < wpl; w += blockDim.x) {
            unsigned long long valid = w == wpl - 1 ? last_valid : ~0ull;
            for (int j = 0; j < L; ++j) x[j] = words[(size_t)group[j] * wpl + w];
            count_word_tree(x, L, valid, counts);
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        double acc = 0.0;
        for (int v = 0; v < V; ++v) acc += xlogx[counts[v]];
        s[p] = acc;
    }
}
