// gBOA's network construction on the GPU as the paper decomposes it (Munawar et
// al., "Theoretical and Empirical Analysis of a GPU based Parallel Bayesian
// Optimization Algorithm", Section IV-A): one thread block per node; its threads
// find the node's candidate parents (pBOA's permutation constraint, perm[j] <
// perm[i]), count the parent configurations of each candidate family over the
// population, compute the K2 gains and reduce them to the best edge, and the block
// repeats until no gain is positive or the node has k parents. Nodes choose their
// parents independently, so the whole network is one launch.
//
// The CPU reference is src/library/boa/ (`build_pboa` with `family_score`):
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

// K2 of the family [node, parents...] from its schema counts (src/library/boa/
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

// List_DS (Section IV-A): the allowed candidates j of `node` (perm[j] <
// perm[node], not the node, not yet one of its `count` parents) written to
// `list` in increasing j, a ballot per warp, warps in order; returns how many.
// Called by every thread of the block; `warp_count` and `m` are shared
// (a counter per warp, and one); every thread returns the same number.
__device__ int list_ds(const int* __restrict__ perm, int node, int ell, const int* parents, int count, int* list,
                       int* warp_count, int* m) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    if (threadIdx.x == 0) *m = 0;
    for (int base = 0; base < ell; base += blockDim.x) {
        const int j = base + threadIdx.x;
        bool ok = j < ell && j != node && perm[j] < perm[node];
        for (int p = 0; p < count; ++p) ok &= parents[p] != j;
        const unsigned int ballot = __ballot_sync(BOA_FULL, ok);
        if (lane == 0) warp_count[warp] = __popc(ballot);
        __syncthreads();
        int offset = *m;
        for (int w = 0; w < warp; ++w) offset += warp_count[w];
        if (ok) list[offset + __popc(ballot & ((1u << lane) - 1u))] = j;
        __syncthreads();
        if (threadIdx.x == 0) {
            for (int w = 0; w < warps; ++w) *m += warp_count[w];
        }
        __syncthreads();
    }
    return *m;
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
        // The allowed candidates j in increasing order (List_DS).
        const int m = list_ds(perm, node, ell, s_parents, count, s_list, s_warp_count, &s_m);
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

// ---------------------------------------------------------------------------
// gboa-paper: the BD kernel as the paper's Section IV-A and Section V describe it,
// beside the harness's own design above (`gboa`), so that a report can tell how
// much of a difference is the design and how much the hardware. One block of
// BOA_PAPER_THREADS = 480 threads (Section V: "Number of threads/block is kept
// constant at 480") per node:
//   1) the node's own score; the node first in the permutation (perm = 0) has no
//      probable parent and its block ends;
//   2) List_DS: the probable parents (perm[j] < perm[node], not yet a parent), each
//      thread checking its share of the variables, kept in shared memory;
//   3) Count_DS: the parent configurations of every probable parent (2^(Pe + 2) of
//      them, Pe existing parents) counted in shared memory, BOA_PAPER_COUNTS
//      counters (16 KiB, the C1060's shared memory per block), the threads splitting
//      the population (individual i to thread i mod 480: the ⌈N/t⌉ of Section V.A)
//      and adding with shared-memory atomics; the population is a byte per allele in
//      global memory, locus-major, so the reads of one locus coalesce; probable
//      parents beyond what Count_DS holds are counted in further passes;
//   4) Gain_DS: the threads split the probable parents, each keeping its best gain
//      (its LocalMaxGain entry);
//   5) thread 0 scans the LocalMaxGain array (thread_num entries) for the MaxGain;
//      the block repeats until no gain is positive or the node has k parents.
// The counts, the K2 sums (k2_score), the gains and the tie rule (beats) are those
// of the kernel above and of CPU pBOA, so the networks are identical bit for bit.
//
// Arguments: alleles [ell * n] (alleles[l * n + i] in {0, 1}), t [n + 2], perm [ell],
// out [ell * BOA_OUT] as boa_pboa_network_g*. Block: BOA_PAPER_THREADS threads (whole
// warps); grid: ell blocks; dynamic shared memory: ell ints (List_DS); k <= BOA_MAX_K.
// ---------------------------------------------------------------------------
#define BOA_PAPER_THREADS 480
#define BOA_PAPER_COUNTS 4096

// k2_score for a family of L = 1 .. BOA_MAX_K + 1 loci.
__device__ double k2_score_any(const unsigned int* c, int L, const double* __restrict__ t) {
    switch (L) {
        case 1: return k2_score<1>(c, t);
        case 2: return k2_score<2>(c, t);
        case 3: return k2_score<3>(c, t);
        case 4: return k2_score<4>(c, t);
        default: return k2_score<5>(c, t);
    }
}

extern "C" __global__ void __launch_bounds__(BOA_PAPER_THREADS)
    boa_pboa_network_paper(const unsigned char* __restrict__ alleles, const double* __restrict__ t, const int* __restrict__ perm,
                           int ell, int n, int k, int* __restrict__ out) {
    extern __shared__ int s_list[];                       // List_DS
    __shared__ unsigned int s_count[BOA_PAPER_COUNTS];    // Count_DS
    __shared__ double s_local_gain[BOA_PAPER_THREADS];    // Gain_DS: each thread's LocalMaxGain,
    __shared__ double s_local_score[BOA_PAPER_THREADS];   // the K2 score that gives it
    __shared__ int s_local_j[BOA_PAPER_THREADS];          // and its probable parent
    __shared__ int s_parents[BOA_MAX_K];
    __shared__ int s_warp_count[BOA_PAPER_THREADS / 32];
    __shared__ double s_node_score;
    __shared__ int s_m, s_winner;
    const int node = blockIdx.x, tid = threadIdx.x, threads = blockDim.x;
    const int lane = tid & 31, warp = tid >> 5, warps = threads >> 5;
    const unsigned char* own = alleles + (size_t)node * n;

    // 1) The node's score: its ones counted by every thread, summed in Count_DS.
    if (tid == 0) s_count[0] = 0u;
    __syncthreads();
    unsigned int ones = 0u;
    for (int i = tid; i < n; i += threads) ones += own[i] & 1u;
    atomicAdd(&s_count[0], ones);
    __syncthreads();
    if (tid == 0) {
        const unsigned int c[2] = {(unsigned int)n - s_count[0], s_count[0]};
        s_node_score = k2_score<1>(c, t);
    }
    __syncthreads();

    int count = 0, rounds = 0, scored = 0, loci_read = 1;
    // perm[node] == 0: no probable parent (the same value in every thread).
    const bool first_in_order = perm[node] == 0;
    while (!first_in_order && count < k) {
        // 2) List_DS in increasing j.
        const int m = list_ds(perm, node, ell, s_parents, count, s_list, s_warp_count, &s_m);
        if (m == 0) break;
        ++rounds;
        scored += m;
        loci_read += m * (count + 2);
        // Index of a configuration: bit 0 the node's allele, bits 1 .. count its
        // parents' in the order added, bit count + 1 the probable parent's.
        const int L = count + 2, configs = 1 << L, per_pass = BOA_PAPER_COUNTS / configs;
        double best_gain = 0.0, best_score = 0.0;
        int best_j = -1;
        for (int first = 0; first < m; first += per_pass) {
            const int chunk = min(per_pass, m - first);
            for (int q = tid; q < chunk * configs; q += threads) s_count[q] = 0u;
            __syncthreads();
            // 3) Count_DS: individual i counted by thread i mod threads.
            for (int i = tid; i < n; i += threads) {
                unsigned int base = own[i] & 1u;
                for (int p = 0; p < count; ++p) base |= (alleles[(size_t)s_parents[p] * n + i] & 1u) << (1 + p);
                for (int c = 0; c < chunk; ++c) {
                    const unsigned int a = alleles[(size_t)s_list[first + c] * n + i] & 1u;
                    atomicAdd(&s_count[c * configs + (base | (a << (count + 1)))], 1u);
                }
            }
            __syncthreads();
            // 4) Gains: probable parent c by thread c mod threads, each keeping its best.
            for (int c = tid; c < chunk; c += threads) {
                const double s = k2_score_any(&s_count[c * configs], L, t);
                const double gain = s - s_node_score;
                const int j = s_list[first + c];
                if (gain > 0.0 && beats(gain, j, best_gain, best_j)) {
                    best_gain = gain;
                    best_score = s;
                    best_j = j;
                }
            }
            __syncthreads();
        }
        s_local_gain[tid] = best_gain;
        s_local_score[tid] = best_score;
        s_local_j[tid] = best_j;
        __syncthreads();
        // 5) MaxGain: thread 0 scans the LocalMaxGain array.
        if (tid == 0) {
            double g = 0.0, score = 0.0;
            int j = -1;
            for (int q = 0; q < threads; ++q) {
                if (beats(s_local_gain[q], s_local_j[q], g, j)) {
                    g = s_local_gain[q];
                    score = s_local_score[q];
                    j = s_local_j[q];
                }
            }
            s_winner = j;
            if (j >= 0) {
                s_parents[count] = j;
                s_node_score = score;
            }
        }
        __syncthreads();
        if (s_winner < 0) break;
        ++count;
    }
    if (tid == 0) {
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

// ---------------------------------------------------------------------------
// BOA on the device, end to end (issue #23; the paper's Section V.B names it as
// future work): selection, the network (above), sampling, evaluation and
// replacement with the population resident on the GPU. The CPU reference is
// src/library/boa/ `run_traced` with `Randomness::Counter`: the same Philox
// numbers at the same counters, integer sampling decisions and the same ranking,
// so the two runs are bit-identical.
//
// Population: row-major bytes, rows[i * ell + l] in {0, 1}. Randomness:
// Philox4x32-10 keyed by the seed (key words low, high) at the counter
// (generation, stream, individual, locus), word 0; streams as `Stream` in boa.rs.
// ---------------------------------------------------------------------------

// Entries per node of the conditional counts: 2^(BOA_MAX_K + 1) schemata.
#define BOA_TABLE (2 << BOA_MAX_K)
#define BOA_STREAM_INITIAL 0u
#define BOA_STREAM_PERMUTATION 1u
#define BOA_STREAM_SAMPLING 2u
// Entries of the per-generation statistics (see boa_stats).
#define BOA_STATS 6

// Philox4x32-10 (Salmon et al., SC '11), word 0 only, as src/library/philox.rs.
__device__ __forceinline__ unsigned int philox_word0(unsigned int c0, unsigned int c1, unsigned int c2, unsigned int c3,
                                                     unsigned int k0, unsigned int k1) {
#pragma unroll
    for (int round = 0; round < 10; ++round) {
        if (round > 0) {
            k0 += 0x9E3779B9u;
            k1 += 0xBB67AE85u;
        }
        const unsigned int hi0 = __umulhi(0xD2511F53u, c0);
        const unsigned int lo0 = 0xD2511F53u * c0;
        const unsigned int hi1 = __umulhi(0xCD9E8D57u, c2);
        const unsigned int lo1 = 0xCD9E8D57u * c2;
        const unsigned int n0 = hi1 ^ c1 ^ k0;
        const unsigned int n2 = hi0 ^ c3 ^ k1;
        c0 = n0;
        c1 = lo1;
        c2 = n2;
        c3 = lo0;
    }
    return c0;
}

// Initial population: allele (i, l) is the top bit of the draw (0, Initial, i, l).
extern "C" __global__ void boa_initial(unsigned char* __restrict__ rows, unsigned int n, unsigned int ell, unsigned int seed_low,
                                       unsigned int seed_high) {
    const unsigned long long a = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (a >= (unsigned long long)n * ell) return;
    const unsigned int i = (unsigned int)(a / ell), l = (unsigned int)(a % ell);
    rows[a] = (unsigned char)(philox_word0(0u, BOA_STREAM_INITIAL, i, l, seed_low, seed_high) >> 31);
}

// Trap-k fitness (src/library/trap.rs) of `count` rows: a thread per row.
extern "C" __global__ void boa_evaluate(const unsigned char* __restrict__ rows, unsigned int count, unsigned int ell, unsigned int k_trap,
                                        unsigned int* __restrict__ fitness) {
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    const unsigned char* row = rows + (size_t)i * ell;
    unsigned int f = 0;
    for (unsigned int b = 0; b + k_trap <= ell; b += k_trap) {
        unsigned int u = 0;
        for (unsigned int j = 0; j < k_trap; ++j) u += row[b + j];
        f += u == k_trap ? k_trap : k_trap - 1 - u;
    }
    fitness[i] = f;
}

// Truncation selection's ranking: individual i's key is (2^32 - 1 - fitness) << 32 | i
// (decreasing fitness, ties by increasing index: all keys distinct), and its rank is
// the number of smaller keys — those with a higher fitness, or the same and a lower
// index — so ranking[rank] = i is the CPU's sort. A warp per individual (its lanes
// stride over the others, coalesced; the counts meet by shuffles): a thread per
// individual left most SMs idle at N = 4,800.
extern "C" __global__ void boa_rank(const unsigned int* __restrict__ fitness, unsigned int n, unsigned int* __restrict__ ranking) {
    const unsigned long long warp = ((unsigned long long)blockIdx.x * blockDim.x + threadIdx.x) / 32u;
    const unsigned int lane = threadIdx.x % 32u;
    if (warp >= n) return;
    const unsigned int i = (unsigned int)warp;
    const unsigned int mine = fitness[i];
    unsigned int rank = 0;
    for (unsigned int j = lane; j < n; j += 32u) {
        const unsigned int other = fitness[j];
        rank += other > mine || (other == mine && j < i);
    }
    for (unsigned int offset = 16u; offset > 0u; offset /= 2u) rank += __shfl_down_sync(0xffffffffu, rank, offset);
    if (lane == 0u) ranking[rank] = i;
}

// The selected individuals ranking[0 .. s) packed by locus for the network kernel:
// words[l * wpl + w] bit b = allele l of ranking[64 w + b] (zero past s). A thread per word.
extern "C" __global__ void boa_pack_selected(const unsigned char* __restrict__ rows, const unsigned int* __restrict__ ranking,
                                             unsigned int s, unsigned int ell, unsigned int wpl, unsigned long long* __restrict__ words) {
    const unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= ell * wpl) return;
    const unsigned int l = t / wpl, w = t % wpl;
    unsigned long long x = 0ull;
    for (unsigned int b = 0; b < 64 && 64 * w + b < s; ++b) x |= (unsigned long long)rows[(size_t)ranking[64 * w + b] * ell + l] << b;
    words[t] = x;
}

// pBOA's permutation of `generation` (boa.rs `CounterRng::permutation`): node i draws
// r_i = (generation, Permutation, 0, i) and its position perm[i] is the number of
// nodes j with (r_j, j) < (r_i, i). A thread per node.
extern "C" __global__ void boa_permutation(unsigned int ell, unsigned int generation, unsigned int seed_low, unsigned int seed_high,
                                           int* __restrict__ perm) {
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= ell) return;
    const unsigned int ri = philox_word0(generation, BOA_STREAM_PERMUTATION, 0u, i, seed_low, seed_high);
    unsigned int position = 0;
    for (unsigned int j = 0; j < ell; ++j) {
        const unsigned int rj = philox_word0(generation, BOA_STREAM_PERMUTATION, 0u, j, seed_low, seed_high);
        position += rj < ri || (rj == ri && j < i);
    }
    perm[i] = (int)position;
}

// The conditional tables as counts (boa.rs `conditional_counts`): for node i with the
// parents of its network row, counts[i * BOA_TABLE + v] over the selected population,
// bit 0 of v node i's allele and bit 1 + b parent b's. A warp per node (grid: ell
// blocks of 32 threads); entries past 2^(parents + 1) are left as they are.
extern "C" __global__ void boa_conditional_counts(const unsigned long long* __restrict__ words, unsigned int s, unsigned int wpl,
                                                  const int* __restrict__ network, unsigned int* __restrict__ counts) {
    const int node = blockIdx.x;
    const int* row = network + (size_t)node * BOA_OUT;
    const int parents = row[BOA_MAX_K];
    int loci[BOA_MAX_K + 1];
    loci[0] = node;
    for (int p = 0; p < parents; ++p) loci[1 + p] = row[p];
    const int tail = (int)s - ((int)wpl - 1) * 64;
    const unsigned long long last_valid = tail == 64 ? ~0ull : ((1ull << tail) - 1ull);
    unsigned int c[BOA_TABLE];
    switch (parents + 1) {
        case 1: count_family<1, 32>(words, wpl, last_valid, loci, c); break;
        case 2: count_family<2, 32>(words, wpl, last_valid, loci, c); break;
        case 3: count_family<3, 32>(words, wpl, last_valid, loci, c); break;
        case 4: count_family<4, 32>(words, wpl, last_valid, loci, c); break;
        default: count_family<5, 32>(words, wpl, last_valid, loci, c); break;
    }
    if (threadIdx.x == 0) {
        for (int v = 0; v < (2 << parents); ++v) counts[(size_t)node * BOA_TABLE + v] = c[v];
    }
}

// Sampling's schedule (v3): node i's level is 0 without parents, else 1 + the
// highest of its parents' levels. The network is acyclic (pBOA's parents come
// earlier in the permutation), so the levels settle after at most depth + 1 rounds
// in which every node reads the last round's levels (one buffer) and writes its own
// (the other). Then the nodes by level: schedule[0 .. ell) the nodes, starts[0] the
// number of levels L, starts[1 + v] the first position of level v, starts[1 + L] =
// ell. Within a level the order is any (atomic cursors): a level's nodes depend only
// on earlier levels, and each node's number is fixed by its counter. One block;
// dynamic shared memory: 2 ell levels (16 bits) and ell + 1 counters.
extern "C" __global__ void boa_levels(const int* __restrict__ network, unsigned int ell, int* __restrict__ schedule,
                                      int* __restrict__ starts) {
    extern __shared__ int s_fill[];
    unsigned short* cur = reinterpret_cast<unsigned short*>(s_fill + ell + 1);
    unsigned short* next = cur + ell;
    __shared__ int changed[2];
    __shared__ int deepest;
    for (unsigned int i = threadIdx.x; i < ell; i += blockDim.x) cur[i] = 0;
    for (unsigned int v = threadIdx.x; v <= ell; v += blockDim.x) s_fill[v] = 0;
    if (threadIdx.x == 0) {
        changed[0] = changed[1] = 0;
        deepest = 0;
    }
    __syncthreads();
    // Round t raises changed[t & 1]; everyone reads it between the two barriers, and
    // thread 0 clears the other flag there (read by all before round t's first barrier).
    for (unsigned int t = 0;; ++t) {
        for (unsigned int i = threadIdx.x; i < ell; i += blockDim.x) {
            const int* row = network + (size_t)i * BOA_OUT;
            const int parents = row[BOA_MAX_K];
            int level = 0;
            for (int b = 0; b < parents; ++b) level = max(level, (int)cur[row[b]] + 1);
            next[i] = (unsigned short)level;
            if (level != (int)cur[i]) atomicOr(&changed[t & 1u], 1);
        }
        __syncthreads();
        const bool again = changed[t & 1u] != 0;
        if (threadIdx.x == 0) changed[(t + 1u) & 1u] = 0;
        __syncthreads();
        if (!again) break;
        unsigned short* swap = cur;
        cur = next;
        next = swap;
    }
    // cur == next: the levels. Count them, lay the levels out, place the nodes.
    for (unsigned int i = threadIdx.x; i < ell; i += blockDim.x) {
        atomicAdd(&s_fill[next[i]], 1);
        atomicMax(&deepest, (int)next[i]);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        const int levels = deepest + 1;
        int at = 0;
        for (int v = 0; v < levels; ++v) {
            const int size = s_fill[v];
            s_fill[v] = at;
            starts[1 + v] = at;
            at += size;
        }
        starts[1 + levels] = at;
        starts[0] = levels;
    }
    __syncthreads();
    for (unsigned int i = threadIdx.x; i < ell; i += blockDim.x) schedule[atomicAdd(&s_fill[next[i]], 1)] = (int)i;
}

// Ancestral sampling (boa.rs `sample_counter`): node i is 1 iff r * total < ones *
// 2^32 for r = (generation, Sampling, c, i) and the counts of its parents' sampled
// configuration (total = 0: as ones = 1, total = 2). A warp per offspring c samples
// the nodes level by level (boa_levels' schedule: parents first), each lane a node
// of the level, the child in shared memory (ell bytes per warp, dynamic); the warp
// copies it out at the end. (v2 drew 32 positions' numbers at once and lane 0
// walked the permutation order: a chain of ell nodes' loads.)
extern "C" __global__ void boa_sample(const int* __restrict__ network, const unsigned int* __restrict__ counts,
                                      const int* __restrict__ schedule, const int* __restrict__ starts, unsigned int ell,
                                      unsigned int count, unsigned int generation, unsigned int seed_low, unsigned int seed_high,
                                      unsigned char* __restrict__ offspring) {
    extern __shared__ unsigned char s_children[];
    const unsigned int warp_in_block = threadIdx.x / 32u;
    const unsigned int lane = threadIdx.x % 32u;
    const unsigned int c = blockIdx.x * (blockDim.x / 32u) + warp_in_block;
    if (c >= count) return;
    unsigned char* child = s_children + (size_t)warp_in_block * ell;
    const int levels = starts[0];
    for (int v = 0; v < levels; ++v) {
        const int hi = starts[2 + v];
        for (int p = starts[1 + v] + (int)lane; p < hi; p += 32) {
            const int i = schedule[p];
            const unsigned int draw = philox_word0(generation, BOA_STREAM_SAMPLING, c, (unsigned int)i, seed_low, seed_high);
            const int* row = network + (size_t)i * BOA_OUT;
            const int parents = row[BOA_MAX_K];
            unsigned int pi = 0;
            for (int b = 0; b < parents; ++b) pi |= (unsigned int)child[row[b]] << b;
            unsigned int ones = counts[(size_t)i * BOA_TABLE + 2 * pi + 1];
            unsigned int total = ones + counts[(size_t)i * BOA_TABLE + 2 * pi];
            if (total == 0u) {
                ones = 1u;
                total = 2u;
            }
            child[i] = (unsigned char)((unsigned long long)draw * total < ((unsigned long long)ones << 32));
        }
        __syncwarp();
    }
    for (unsigned int l = lane; l < ell; l += 32u) offspring[(size_t)c * ell + l] = child[l];
}

// Replacement of the worst: offspring c (row and fitness) overwrites the individual
// ranked s + c. A thread per allele of the offspring.
extern "C" __global__ void boa_replace(const unsigned char* __restrict__ offspring, const unsigned int* __restrict__ offspring_fitness,
                                       const unsigned int* __restrict__ ranking, unsigned int s, unsigned int count, unsigned int ell,
                                       unsigned char* __restrict__ rows, unsigned int* __restrict__ fitness) {
    const unsigned long long a = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (a >= (unsigned long long)count * ell) return;
    const unsigned int c = (unsigned int)(a / ell), l = (unsigned int)(a % ell);
    const unsigned int slot = ranking[s + c];
    rows[(size_t)slot * ell + l] = offspring[a];
    if (l == 0) fitness[slot] = offspring_fitness[c];
}

// Per-generation statistics, zeroed before the launch: stats[0] the best fitness,
// stats[1] the sum of fitness, stats[2] nonzero iff some row differs from row 0,
// stats[3] the network's edges, stats[4] the candidate families it scored and
// stats[5] the loci its families read (rows 0 .. nodes of `network`; nodes = 0 for
// none). A thread per allele (the grid covers n ell >= n, nodes): each compares
// its allele with individual 0's at the same locus (coalesced; one atomic a warp
// that found a difference), threads < n add fitness, reduced within each warp
// first, threads < nodes the network's sums. (v2: a thread per individual walked
// its row and took two atomics.)
extern "C" __global__ void boa_stats(const unsigned char* __restrict__ rows, const unsigned int* __restrict__ fitness, unsigned int n,
                                     unsigned int ell, const int* __restrict__ network, unsigned int nodes,
                                     unsigned long long* __restrict__ stats) {
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long best = i < n ? fitness[i] : 0ull, sum = best;
    for (int o = 16; o > 0; o >>= 1) {
        best = max(best, __shfl_down_sync(0xffffffffu, best, o));
        sum += __shfl_down_sync(0xffffffffu, sum, o);
    }
    if (threadIdx.x % 32u == 0u && sum != 0ull) {
        atomicMax(&stats[0], best);
        atomicAdd(&stats[1], sum);
    }
    const size_t a = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const bool differs = a < (size_t)n * ell && rows[a] != rows[a % ell];
    if (__any_sync(0xffffffffu, differs) && threadIdx.x % 32u == 0u) atomicOr(&stats[2], 1ull);
    if (i < nodes) {
        atomicAdd(&stats[3], (unsigned long long)network[(size_t)i * BOA_OUT + BOA_MAX_K]);
        atomicAdd(&stats[4], (unsigned long long)network[(size_t)i * BOA_OUT + BOA_MAX_K + 2]);
        atomicAdd(&stats[5], (unsigned long long)network[(size_t)i * BOA_OUT + BOA_MAX_K + 3]);
    }
}
