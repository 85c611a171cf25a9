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
#define BOA_WARPS 8

// Counts of the 2^L schemata of loci[0..L) over the population, reduced over the
// warp: lane 0 holds c[v] = individuals whose alleles at loci[j] are bit j of v.
template <int L>
__device__ void count_family(const unsigned long long* __restrict__ words, int wpl, unsigned long long last_valid, const int* loci,
                             unsigned int* c) {
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int v = 0; v < (1 << L); ++v) c[v] = 0u;
    for (int w = lane; w < wpl; w += 32) {
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
        for (int o = 16; o > 0; o >>= 1) c[v] += __shfl_down_sync(0xffffffffu, c[v], o);
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

// The K2 score of the family loci[0..L) (node first), valid in lane 0.
template <int L>
__device__ double family_k2(const unsigned long long* __restrict__ words, int wpl, unsigned long long last_valid, const int* loci,
                            const double* __restrict__ t) {
    unsigned int c[1 << L];
    count_family<L>(words, wpl, last_valid, loci, c);
    return k2_score<L>(c, t);
}

__device__ double family_k2_any(const unsigned long long* __restrict__ words, int wpl, unsigned long long last_valid, const int* loci,
                                int L, const double* __restrict__ t) {
    switch (L) {
        case 1: return family_k2<1>(words, wpl, last_valid, loci, t);
        case 2: return family_k2<2>(words, wpl, last_valid, loci, t);
        case 3: return family_k2<3>(words, wpl, last_valid, loci, t);
        case 4: return family_k2<4>(words, wpl, last_valid, loci, t);
        default: return family_k2<5>(words, wpl, last_valid, loci, t);
    }
}

// Arguments:
//   words [ell * wpl], t [n + 2], perm [ell] (perm[i]: node i's position)
//   parents [ell * BOA_MAX_K]   output: node i's parents in the order added
//   counts  [ell * 3]           output: parents, scoring rounds, candidate families scored
//   score   [ell]               output: K2 of node i with its parents
// Block: BOA_WARPS warps; grid: ell blocks; k <= BOA_MAX_K.
extern "C" __global__ void boa_pboa_network(const unsigned long long* __restrict__ words, const double* __restrict__ t,
                                            const int* __restrict__ perm, int ell, int n, int wpl, int k, int* __restrict__ parents,
                                            int* __restrict__ counts, double* __restrict__ score) {
    __shared__ int s_parents[BOA_MAX_K];
    __shared__ double s_node_score;
    __shared__ double s_gain[BOA_WARPS], s_best_score[BOA_WARPS];
    __shared__ int s_best_j[BOA_WARPS];
    __shared__ int s_candidates;
    const int node = blockIdx.x;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int tail = n - (wpl - 1) * 64;
    const unsigned long long last_valid = tail == 64 ? ~0ull : ((1ull << tail) - 1ull);

    if (warp == 0) {
        int loci[1] = {node};
        double s = family_k2_any(words, wpl, last_valid, loci, 1, t);
        if (lane == 0) s_node_score = s;
    }
    __syncthreads();
    int count = 0, rounds = 0, scored = 0;
    while (count < k) {
        // Each warp scores the candidates j = warp, warp + BOA_WARPS, ... in
        // increasing order and keeps its best (strict >: the smallest j of equal gains).
        double best_gain = 0.0, best_score = 0.0;
        int best_j = -1, mine = 0;
        int loci[BOA_MAX_K + 1];
        loci[0] = node;
        for (int p = 0; p < count; ++p) loci[1 + p] = s_parents[p];
        for (int j = warp; j < ell; j += BOA_WARPS) {
            bool is_parent = false;
            for (int p = 0; p < count; ++p) is_parent |= s_parents[p] == j;
            if (j == node || is_parent || perm[j] >= perm[node]) continue;
            ++mine;
            loci[1 + count] = j;
            const double s = family_k2_any(words, wpl, last_valid, loci, count + 2, t);
            const double gain = s - s_node_score;
            if (gain > best_gain) {
                best_gain = gain;
                best_score = s;
                best_j = j;
            }
        }
        if (threadIdx.x == 0) s_candidates = 0;
        __syncthreads();
        if (lane == 0) {
            s_gain[warp] = best_gain;
            s_best_score[warp] = best_score;
            s_best_j[warp] = best_j;
            atomicAdd(&s_candidates, mine);
        }
        __syncthreads();
        const int candidates = s_candidates;
        if (candidates == 0) break;
        ++rounds;
        scored += candidates;
        // Thread 0: the largest gain over the warps, the smallest j on equal gains.
        if (threadIdx.x == 0) {
            int w_best = -1;
            for (int w = 0; w < BOA_WARPS; ++w) {
                if (s_best_j[w] < 0) continue;
                if (w_best < 0 || s_gain[w] > s_gain[w_best] || (s_gain[w] == s_gain[w_best] && s_best_j[w] < s_best_j[w_best])) w_best = w;
            }
            s_best_j[0] = w_best < 0 ? -1 : s_best_j[w_best];
            if (w_best >= 0) {
                s_parents[count] = s_best_j[0];
                s_node_score = s_best_score[w_best];
            }
        }
        __syncthreads();
        if (s_best_j[0] < 0) break;
        ++count;
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        for (int p = 0; p < BOA_MAX_K; ++p) parents[node * BOA_MAX_K + p] = p < count ? s_parents[p] : -1;
        counts[node * 3 + 0] = count;
        counts[node * 3 + 1] = rounds;
        counts[node * 3 + 2] = scored;
        score[node] = s_node_score;
    }
}
