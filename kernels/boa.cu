// gBOA's network construction on the GPU as the paper decomposes it (Munawar et
// al., "Theoretical and Empirical Analysis of a GPU based Parallel Bayesian
// Optimization Algorithm", Section IV-A): one thread block per node; its threads
// find the node's candidate parents (pBOA's permutation constraint, perm[j] <
// perm[i]), count the parent configurations of each candidate family over the
// population, compute the K2 gains and reduce them to the best edge, and the block
// repeats until no gain is positive or the node has k parents. Nodes choose their
// parents independently, so the whole network is one launch.
//
// The CPU reference is src/library/boa.rs (`build_pboa` with `family_score`):
// the same counts, the same two table sums in the same order, the same gain
// subtraction and tie rule (largest gain > 0, smallest j among equal gains), so
// the networks are identical bit for bit.
//
// Population: bit-packed by locus, words[l * wpl + w], bit b of word w is the
// allele of individual 64 w + b; padding bits (individuals >= n) are zero.
// Table: t[c] = ln c! for c = 0 .. n + 1.

#define BOA_MAX_K 4
#define BOA_OUT (BOA_MAX_K + 6)
#define BOA_MAX_WARPS 32
// Lanes counting one candidate family: a warp scores 32 / G candidates at once.
#define BOA_MIN_GROUP 8
#define BOA_FULL 0xffffffffu

// Counts of the 2^L schemata of loci[0..L) over the population, reduced over each
// group of G lanes: the group's first lane holds c[v] = individuals whose alleles
// at loci[j] are bit j of v. Every lane of the warp must call it (the shuffles).
template <int L, int G>
__device__ void count_family(const unsigned long long* __restrict__ words, int wpl, unsigned long long last_valid, const int* loci,
                             unsigned int* c) {
    const int glane = threadIdx.x & (G - 1);
#pragma unroll
    for (int v = 0; v < (1 << L); ++v) c[v] = 0u;
    for (int w = glane; w < wpl; w += G) {
        unsigned long long x[L];
#pragma unroll
        for (int j = 0; j < L; ++j) x[j] = words[(size_t)loci[j] * wpl + w];
        const unsigned long long valid = w == wpl - 1 ? last_valid : ~0ull;
#pragma unroll
        for (int v = 0; v < (1 << L); ++v) {
            unsigned long long m = valid;
#pragma unroll
            for (int j = 0; j < L; ++j) m &= ((v >> j) & 1) ? x[j] : ~x[j];
            c[v] += (unsigned int)__popcll(m);
        }
    }
#pragma unroll
    for (int v = 0; v < (1 << L); ++v) {
#pragma unroll
        for (int o = G / 2; o > 0; o >>= 1) c[v] += __shfl_down_sync(BOA_FULL, c[v], o, G);
    }
}

// K2 of the family [node, parents...] from its schema counts (src/library/boa.rs
// `family_score`): joint = sum_v t[c[v]] in index order, parents = sum_pi
// t[c[2 pi] + c[2 pi + 1] + 1] in index order, both from 0.0; K2 = joint - parents.
template <int L>
__device__ double k2_score(const unsigned int* c, const double* __restrict__ t) {
    double joint = 0.0;
#pragma unroll
    for (int v = 0; v < (1 << L); ++v) joint += t[c[v]];
    double parents = 0.0;
#pragma unroll
    for (int p = 0; p < (1 << (L - 1)); ++p) parents += t[c[2 * p] + c[2 * p + 1] + 1];
    return joint - parents;
}

// The K2 score of the family loci[0..L) (node first), valid in each group's first lane.
template <int L, int G>
__device__ double family_k2(const unsigned long long* __restrict__ words, int wpl, unsigned long long last_valid, const int* loci,
                            const double* __restrict__ t) {
    unsigned int c[1 << L];
    count_family<L, G>(words, wpl, last_valid, loci, c);
    return k2_score<L>(c, t);
}

template <int G>
__device__ double family_k2_any(const unsigned long long* __restrict__ words, int wpl, unsigned long long last_valid, const int* loci,
                                int L, const double* __restrict__ t) {
    switch (L) {
        case 1: return family_k2<1, G>(words, wpl, last_valid, loci, t);
        case 2: return family_k2<2, G>(words, wpl, last_valid, loci, t);
        case 3: return family_k2<3, G>(words, wpl, last_valid, loci, t);
        case 4: return family_k2<4, G>(words, wpl, last_valid, loci, t);
        default: return family_k2<5, G>(words, wpl, last_valid, loci, t);
    }
}

// Whether candidate (gain a, node ja) beats (gain b, node jb): a positive-gain
// candidate (j >= 0) beats none, a larger gain beats a smaller one, and of equal
// gains the smaller j wins. A total order, so any reduction order gives the same
// winner as the CPU's scan in increasing j.
__device__ __forceinline__ bool beats(double a, int ja, double b, int jb) {
    return ja >= 0 && (jb < 0 || a > b || (a == b && ja < jb));
}

// Arguments:
//   words [ell * wpl], t [n + 2], perm [ell] (perm[i]: node i's position)
//   out [ell * BOA_OUT]         output, node i's row of BOA_OUT ints (one copy back):
//     [0, BOA_MAX_K)            its parents in the order added (-1: none)
//     BOA_MAX_K + 0 .. 3        parents, scoring rounds, candidate families scored,
//                               and loci read (sum of their sizes, the first score
//                               included: alleles read = that x n)
//     BOA_MAX_K + 4, + 5        low and high word of the bits of its K2 score
// Block: 32 .. 32 * BOA_MAX_WARPS threads, a multiple of 32; grid: ell blocks;
// dynamic shared memory: ell ints (the candidate list); k <= BOA_MAX_K.
//
// Per round the block lists the node's allowed candidates in increasing j, and
// its groups of G lanes take list entries slot, slot + slots, ... (every group of
// the block runs the same number of iterations, so the warps' shuffles stay
// converged; a group past the end scores a dummy entry and drops it). Each group
// keeps its best by the `beats` order, and warp 0 reduces the groups.
template <int G>
__device__ void pboa_network(const unsigned long long* __restrict__ words, const double* __restrict__ t, const int* __restrict__ perm,
                             int ell, int n, int wpl, int k, int* __restrict__ out) {
    constexpr int GROUPS = 32 / G;
    extern __shared__ int s_list[];
    __shared__ int s_parents[BOA_MAX_K];
    __shared__ double s_node_score;
    __shared__ double s_gain[BOA_MAX_WARPS * 32 / BOA_MIN_GROUP], s_best_score[BOA_MAX_WARPS * 32 / BOA_MIN_GROUP];
    __shared__ int s_best_j[BOA_MAX_WARPS * 32 / BOA_MIN_GROUP];
    __shared__ int s_warp_count[BOA_MAX_WARPS];
    __shared__ int s_m, s_winner;
    const int node = blockIdx.x;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    const int slot = warp * GROUPS + lane / G, slots = warps * GROUPS;
    const bool leader = (lane & (G - 1)) == 0;
    const int tail = n - (wpl - 1) * 64;
    const unsigned long long last_valid = tail == 64 ? ~0ull : ((1ull << tail) - 1ull);

    if (warp == 0) {
        int loci[1] = {node};
        double s = family_k2<1, 32>(words, wpl, last_valid, loci, t);
        if (lane == 0) s_node_score = s;
    }
    int count = 0, rounds = 0, scored = 0, loci_read = 1;
    while (count < k) {
        // The allowed candidates j (perm[j] < perm[node], not the node, not yet a
        // parent) in increasing order: a ballot per warp, warps in order.
        if (threadIdx.x == 0) s_m = 0;
        for (int base = 0; base < ell; base += blockDim.x) {
            const int j = base + threadIdx.x;
            bool ok = j < ell && j != node && perm[j] < perm[node];
            for (int p = 0; p < count; ++p) ok &= s_parents[p] != j;
            const unsigned int ballot = __ballot_sync(BOA_FULL, ok);
            if (lane == 0) s_warp_count[warp] = __popc(ballot);
            __syncthreads();
            int offset = s_m;
            for (int w = 0; w < warp; ++w) offset += s_warp_count[w];
            if (ok) s_list[offset + __popc(ballot & ((1u << lane) - 1u))] = j;
            __syncthreads();
            if (threadIdx.x == 0) {
                for (int w = 0; w < warps; ++w) s_m += s_warp_count[w];
            }
            __syncthreads();
        }
        const int m = s_m;
        if (m == 0) break;
        ++rounds;
        scored += m;
        loci_read += m * (count + 2);
        int loci[BOA_MAX_K + 1];
        loci[0] = node;
        for (int p = 0; p < count; ++p) loci[1 + p] = s_parents[p];
        double best_gain = 0.0, best_score = 0.0;
        int best_j = -1;
        for (int first = 0; first < m; first += slots) {
            const int e = first + slot;
            loci[1 + count] = s_list[e < m ? e : 0];
            const double s = family_k2_any<G>(words, wpl, last_valid, loci, count + 2, t);
            const double gain = s - s_node_score;
            // Strict >: of equal gains the group keeps its first, the smallest j.
            if (leader && e < m && gain > best_gain) {
                best_gain = gain;
                best_score = s;
                best_j = loci[1 + count];
            }
        }
        if (leader) {
            s_gain[slot] = best_gain;
            s_best_score[slot] = best_score;
            s_best_j[slot] = best_j;
        }
        __syncthreads();
        if (warp == 0) {
            double g = 0.0;
            int j = -1, from = -1;
            for (int q = lane; q < slots; q += 32) {
                if (beats(s_gain[q], s_best_j[q], g, j)) {
                    g = s_gain[q];
                    j = s_best_j[q];
                    from = q;
                }
            }
            for (int o = 16; o > 0; o >>= 1) {
                const double g2 = __shfl_down_sync(BOA_FULL, g, o);
                const int j2 = __shfl_down_sync(BOA_FULL, j, o);
                const int from2 = __shfl_down_sync(BOA_FULL, from, o);
                if (beats(g2, j2, g, j)) {
                    g = g2;
                    j = j2;
                    from = from2;
                }
            }
            if (lane == 0) {
                s_winner = j;
                if (j >= 0) {
                    s_parents[count] = j;
                    s_node_score = s_best_score[from];
                }
            }
        }
        __syncthreads();
        if (s_winner < 0) break;
        ++count;
    }
    if (threadIdx.x == 0) {
        int* row = out + (size_t)node * BOA_OUT;
        for (int p = 0; p < BOA_MAX_K; ++p) row[p] = p < count ? s_parents[p] : -1;
        row[BOA_MAX_K + 0] = count;
        row[BOA_MAX_K + 1] = rounds;
        row[BOA_MAX_K + 2] = scored;
        row[BOA_MAX_K + 3] = loci_read;
        const long long bits = __double_as_longlong(s_node_score);
        row[BOA_MAX_K + 4] = (int)(bits & 0xffffffffll);
        row[BOA_MAX_K + 5] = (int)(bits >> 32);
    }
}

#define BOA_NETWORK(G)                                                                                                                  \
    extern "C" __global__ void __launch_bounds__(BOA_MAX_WARPS * 32) boa_pboa_network_g##G(                                           \
        const unsigned long long* __restrict__ words, const double* __restrict__ t, const int* __restrict__ perm, int ell, int n,      \
        int wpl, int k, int* __restrict__ out) {                                                                                      \
        pboa_network<G>(words, t, perm, ell, n, wpl, k, out);                                                                           \
    }
BOA_NETWORK(8)
BOA_NETWORK(32)
