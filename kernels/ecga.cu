// gECGA: the CCC cache of ECGA's greedy model search on the GPU
// (Shao & Yu, "Speeding Up Model Building for ECGA on CUDA Platform", GECCO 2013,
// Section 4.2, Algorithm 2). One thread block per candidate pair of groups, as the
// paper: the block counts the 2^L schemata of the merged group over the whole
// population — with FastCount (Section 4.1: AND / NOT of locus words, then count
// ones) for L <= 6 (split over two lanes per word at 6), with a
// shared-memory histogram of each individual's schema beyond — then one thread
// sums c*log2(c) over the schemata in index order.
//
// The CPU reference is src/library/ecga/ (`CpuScorer`); both return, for each
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

// For L = 6: FastCount split over lanes. H = 2^(L-5) neighbouring threads share
// a word: each takes one pattern h of the high loci 5..L-1 (their AND / NOT
// mask folded into `valid`) and counts the 32 leaves of the low five loci in
// registers as count_small<5>, so schema v | h << 5 costs the same as a leaf of
// L = 5. Lanes of the same h are summed by shuffles, one atomic per pattern.
// (At L = 7, four lanes per word, it was slower than the histogram: v6 notes.)
template <int L>
__device__ void count_split(const unsigned long long* __restrict__ words, const int* group, int wpl,
                            unsigned long long last_valid, unsigned int* counts) {
    constexpr int H = 1 << (L - 5);
    const int h = threadIdx.x & (H - 1);
    unsigned int c[32];
#pragma unroll
    for (int v = 0; v < 32; ++v) c[v] = 0u;
    unsigned long long x[5];
    for (int w = threadIdx.x / H; w < wpl; w += blockDim.x / H) {
        unsigned long long valid = w == wpl - 1 ? last_valid : ~0ull;
#pragma unroll
        for (int j = 5; j < L; ++j) {
            const unsigned long long y = words[(size_t)group[j] * wpl + w];
            valid &= ((h >> (j - 5)) & 1) ? y : ~y;
        }
#pragma unroll
        for (int j = 0; j < 5; ++j) x[j] = words[(size_t)group[j] * wpl + w];
        count_word_small<5>(x, valid, c);
    }
#pragma unroll
    for (int v = 0; v < 32; ++v) {
        unsigned int t = c[v];
        for (int o = 16; o >= H; o >>= 1) t += __shfl_down_sync(0xffffffffu, t, o);
        if ((threadIdx.x & 31) < H && t) atomicAdd(&counts[(h << 5) | v], t);
    }
}

// One 32-individual half word of each of the L loci (y[j]): each individual's
// schema index gathered with shifts by constants (bit b of y[j] to bit j: one
// shift and one AND-OR per locus), one shared atomic per individual.
template <int L>
__device__ __forceinline__ void histogram_half(const unsigned int* y, unsigned int* counts) {
#pragma unroll
    for (int b = 0; b < 32; ++b) {
        unsigned int v = 0u;
#pragma unroll
        for (int j = 0; j < L; ++j) v |= (b >= j ? y[j] >> (b - j) : y[j] << (j - b)) & (1u << j);
        atomicAdd(&counts[v], 1u);
    }
}

// For L >= 7 the leaves cost more than reading each individual's schema: thread
// t takes word w (coalesced over the warp) and adds one to the shared counter of
// each of its 64 individuals' schemata (a histogram; the same counts as
// FastCount, no divergence), one 32-bit half word per locus at a time (fewer
// registers than whole words: they bound the occupancy of every path of the
// kernel). Padding individuals (bits >= tail of the last word) are zero at every
// locus, so they land on schema 0 and are taken off it.
// Words part, part + parts, ... of blockDim.x words each: the whole population
// for (0, 1), one of `parts` blocks' share for a split pair (v8).
template <int L>
__device__ void count_histogram(const unsigned long long* __restrict__ words, const int* group, int wpl, int tail,
                                unsigned int* counts, int part, int parts) {
    const unsigned int* __restrict__ halves = reinterpret_cast<const unsigned int*>(words);
    unsigned int y[L];
    for (int w = part * blockDim.x + threadIdx.x; w < wpl; w += parts * blockDim.x) {
#pragma unroll 1
        for (int half = 0; half < 2; ++half) {
#pragma unroll
            for (int j = 0; j < L; ++j) y[j] = halves[2 * ((size_t)group[j] * wpl + w) + half];
            histogram_half<L>(y, counts);
        }
        if (w == wpl - 1 && tail < 64) atomicSub(&counts[0], (unsigned int)(64 - tail));
    }
}

// Threads per block of the scoring kernels (the host launches this many),
// and the blocks per SM their registers must leave room for (64 registers a
// thread: v5's occupancy, which every counting path shares).
#define ECGA_THREADS 256
#define ECGA_MIN_BLOCKS 4

// Counts the 2^L schemata of group[0..L) into the shared `counts` (zeroed
// here), words part, part + parts, ... of the histogram path for L >= 7 (a
// split pair's share, v8); FastCount (L <= 6) takes every word, part 0 alone.
// Called by every thread of a block; `group` (shared) must be written before.
__device__ void block_counts(const unsigned long long* __restrict__ words, const int* group, int L, int n, int wpl,
                             unsigned int* counts, int part, int parts) {
    const int V = 1 << L;
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
        case 6: count_split<6>(words, group, wpl, last_valid, counts); break;
        case 7: count_histogram<7>(words, group, wpl, tail, counts, part, parts); break;
        case 8: count_histogram<8>(words, group, wpl, tail, counts, part, parts); break;
        case 9: count_histogram<9>(words, group, wpl, tail, counts, part, parts); break;
        case 10: count_histogram<10>(words, group, wpl, tail, counts, part, parts); break;
        case 11: count_histogram<11>(words, group, wpl, tail, counts, part, parts); break;
        default: count_histogram<ECGA_MAX_L>(words, group, wpl, tail, counts, part, parts); break;
    }
    __syncthreads();
}

// s = sum over the 2^L schemata of xlogx[counts[v]], in index order v = 0, 1,
// ... (the CPU's order); the result is valid in thread 0. `terms` holds
// ECGA_THREADS doubles.
__device__ double block_sum(int L, const double* __restrict__ xlogx, const unsigned int* counts, double* terms,
                            int* nonzero) {
    const int V = 1 << L;
    // The table lookups of ECGA_THREADS schemata at a time in parallel, the
    // additions by thread 0. A zero term (a count of 0 or 1) leaves the sum as it
    // is (every term is ≥ +0, so the sum is too): the nonzero terms are packed in
    // index order (a ballot per warp, warps in order) and only they are added,
    // so the sum is bit-identical to the CPU's over all 2^L (v7).
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    double acc = 0.0;
    for (int v0 = 0; v0 < V; v0 += ECGA_THREADS) {
        const int v = v0 + threadIdx.x;
        const double t = v < V ? xlogx[counts[v]] : 0.0;
        const unsigned int nz = __ballot_sync(0xffffffffu, t != 0.0);
        if (lane == 0) nonzero[warp] = __popc(nz);
        __syncthreads();
        int before = 0, total = 0;
        for (int w = 0; w < ECGA_THREADS / 32; ++w) {
            before += w < warp ? nonzero[w] : 0;
            total += nonzero[w];
        }
        if (t != 0.0) terms[before + __popc(nz & ((1u << lane) - 1u))] = t;
        __syncthreads();
        if (threadIdx.x == 0) {
            for (int k = 0; k < total; ++k) acc += terms[k];
        }
        __syncthreads();
    }
    return acc;
}

// block_counts over every word, then block_sum.
__device__ double block_entropy(const unsigned long long* __restrict__ words, const int* group, int L, int n, int wpl,
                                const double* __restrict__ xlogx, unsigned int* counts, double* terms, int* nonzero) {
    block_counts(words, group, L, n, wpl, counts, 0, 1);
    return block_sum(L, xlogx, counts, terms, nonzero);
}

// The shared memory of a block that scores one group: block_entropy's counters
// and terms, and the group's loci.
struct Scratch {
    unsigned int counts[1 << ECGA_MAX_L];
    double terms[ECGA_THREADS];
    int nonzero[ECGA_THREADS / 32];
    int group[ECGA_MAX_L];
    bool last;  // split_entropy: this block finished its pair's counting last
};

// One block per merged group (the paper's one block per candidate pair).
// Arguments:
//   words  [ell * wpl]     bit-packed population
//   loci   [pairs * ECGA_MAX_L] loci of each merged group (first len[p] used)
//   len    [pairs]         size L of each merged group (1..ECGA_MAX_L)
//   xlogx  [n + 1]         c * log2(c) as double
//   s      [pairs]         output: sum over schemata of xlogx[count]
//   n, wpl                 population size, words per locus
extern "C" __global__ void __launch_bounds__(ECGA_THREADS, ECGA_MIN_BLOCKS)
    ecga_pair_entropy(const unsigned long long* __restrict__ words, const int* __restrict__ loci,
                      const int* __restrict__ len, const double* __restrict__ xlogx, double* __restrict__ s,
                      int n, int wpl) {
    __shared__ Scratch sh;
    const int p = blockIdx.x;
    const int L = len[p];
    if (threadIdx.x < L) sh.group[threadIdx.x] = loci[p * ECGA_MAX_L + threadIdx.x];
    const double acc = block_entropy(words, sh.group, L, n, wpl, xlogx, sh.counts, sh.terms, sh.nonzero);
    if (threadIdx.x == 0) s[p] = acc;
}

// ---------------------------------------------------------------------------
// The model search on the device (Algorithm 1 and Section 4.3): the ΔCCC cache,
// the choice of merges and the merges themselves stay in device memory, so a
// model build is a sequence of launches with no host round trip per merge. The
// host reference is greedy_search / greedy_mating_search in src/library/ecga/;
// this code makes the same merges in the same order with bit-identical ΔCCC:
//
// - groups live in slots 0..ell (slot l starts as {l}); a merge of slots a < b
//   appends b's loci to a's and empties b (size 0);
// - pair (a, b), a < b, sits at b (b - 1) / 2 + a in pair_s and delta;
// - CCC terms are computed as the host's group_cost, (n log2 n - s) +
//   log2(n + 1) (2^L - 1), with n log2 n and log2(n + 1) from the host and every
//   operation rounded on its own (__dadd_rn etc.: no fused multiply-add), and
//   ΔCCC = (cost(a ∪ b) - cost(a)) - cost(b) in that order;
// - ties: the smallest ΔCCC, then the smallest (a, b) (greedy), or for GM each
//   group's best partner is the smallest ΔCCC < 0, then the smallest partner.
//
// ctrl (unsigned long long) holds the search's counters:
#define CTRL_DONE 0         // 1 once a step found no merge: every later launch returns at once
#define CTRL_MERGES 1       // merges recorded in merge_a / merge_b / merge_delta
#define CTRL_STEPS 2        // model-searching steps (one per greedy merge, one per GM round)
#define CTRL_PAIRS 3        // candidate merges scored
#define CTRL_LOCI 4         // loci of the scored groups (alleles read = this * n)
#define CTRL_DIRTY 5        // entries of dirty_list: the slots merged by the last step
#define CTRL_TICKET 6       // blocks of ecga_search_step finished (the last one selects)
#define CTRL_WORDS 7

// The search's device state, laid out in two buffers for ell slots (the host's
// SearchState in the GPU layer allocates and reads them with the same layout):
//   ints: slot_loci [ell * ECGA_MAX_L], slot_size, dirty, dirty_list, row_b,
//         merge_a, merge_b [ell each]
//   dbls: cost, row_d, merge_delta [ell each], pair_s, delta [ell (ell - 1) / 2 each]
//   split: tickets [ell], then part counts [ell * parts * 2^max_l] for the most
//          parts (gridDim.z) of a rescore launch (v8, split_entropy)
struct Search {
    int* slot_loci;      // loci of each slot's group
    int* slot_size;      // 0 for an emptied slot
    int* dirty;          // 1 for the slots in dirty_list
    int* dirty_list;     // the slots merged by the last step
    int* row_b;          // partner of each slot's row best
    int* merge_a;        // merges in order
    int* merge_b;
    double* cost;        // cost of each slot's group
    double* row_d;       // ΔCCC of each slot's row best
    double* merge_delta;
    double* pair_s;
    double* delta;       // ΔCCC, +inf for merges over max_l
    unsigned long long* ctrl;  // [CTRL_WORDS]
    unsigned int* parts;       // slot x's pair, part z: parts[(x * gridDim.z + z) << max_l ...]
    unsigned int* tickets;     // slot x's pair: parts counted so far (0 between launches)
    int ell, max_l;
    double nlog2n, log2n1;  // n log2 n and log2(n + 1), computed by the host
};

__device__ Search search_state(int* ints, double* dbls, unsigned long long* ctrl, unsigned int* split, int ell, int max_l,
                               double nlog2n, double log2n1) {
    Search st;
    const size_t e = (size_t)ell, pairs = e * (e - 1) / 2;
    st.slot_loci = ints;
    st.slot_size = ints + e * ECGA_MAX_L;
    st.dirty = st.slot_size + e;
    st.dirty_list = st.dirty + e;
    st.row_b = st.dirty_list + e;
    st.merge_a = st.row_b + e;
    st.merge_b = st.merge_a + e;
    st.cost = dbls;
    st.row_d = dbls + e;
    st.merge_delta = st.row_d + e;
    st.pair_s = st.merge_delta + e;
    st.delta = st.pair_s + pairs;
    st.ctrl = ctrl;
    st.tickets = split;
    st.parts = split + e;
    st.ell = ell;
    st.max_l = max_l;
    st.nlog2n = nlog2n;
    st.log2n1 = log2n1;
    return st;
}

// Arguments of every search kernel after the population's.
#define SEARCH_PARAMS \
    int *ints, double *dbls, unsigned long long *ctrl, unsigned int *split, int ell, int max_l, double nlog2n, double log2n1
#define SEARCH_STATE search_state(ints, dbls, ctrl, split, ell, max_l, nlog2n, log2n1)

__device__ __forceinline__ size_t pair_at(int a, int b) { return (size_t)b * (b - 1) / 2 + a; }

// The host's group_cost, operation by operation.
__device__ __forceinline__ double group_cost(const Search& st, double s, int L) {
    return __dadd_rn(__dsub_rn(st.nlog2n, s), __dmul_rn(st.log2n1, (double)((1u << L) - 1u)));
}

// Initial costs: block l scores slot l's group.
extern "C" __global__ void __launch_bounds__(ECGA_THREADS, ECGA_MIN_BLOCKS)
    ecga_search_groups(const unsigned long long* __restrict__ words, const double* __restrict__ xlogx, int n, int wpl,
                       SEARCH_PARAMS) {
    const Search st = SEARCH_STATE;
    __shared__ Scratch sh;
    const int l = blockIdx.x;
    const int L = st.slot_size[l];
    if (threadIdx.x < L) sh.group[threadIdx.x] = st.slot_loci[l * ECGA_MAX_L + threadIdx.x];
    const double s = block_entropy(words, sh.group, L, n, wpl, xlogx, sh.counts, sh.terms, sh.nonzero);
    if (threadIdx.x == 0) st.cost[l] = group_cost(st, s, L);
}

// Smallest merged group whose counting is split over gridDim.z blocks (the
// histogram path: one such pair's block bounded v7's rescore launch).
#define SPLIT_L 7

// Slot x's pair counted by gridDim.z blocks, block z taking words z, z +
// gridDim.z, ... (of blockDim.x each): each writes its part's 2^L counts to
// device memory, and the last block to finish (a ticket after a fence) adds
// the parts in order, resets the ticket and sums the terms as block_entropy
// does. Integer counts add up to the same values in any order, so s is
// bit-identical to one block's. Returns true in the block that has s.
__device__ bool split_entropy(const Search& st, int x, const unsigned long long* __restrict__ words, int L, int n,
                              int wpl, const double* __restrict__ xlogx, Scratch& sh, double& s) {
    const int V = 1 << L, parts = gridDim.z;
    block_counts(words, sh.group, L, n, wpl, sh.counts, blockIdx.z, parts);
    unsigned int* mine = st.parts + (((size_t)x * parts) << st.max_l);
    for (int v = threadIdx.x; v < V; v += blockDim.x) mine[((size_t)blockIdx.z << st.max_l) + v] = sh.counts[v];
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) sh.last = atomicAdd(&st.tickets[x], 1u) == (unsigned int)parts - 1u;
    __syncthreads();
    if (!sh.last) return false;
    for (int v = threadIdx.x; v < V; v += blockDim.x) {
        unsigned int c = 0u;
        for (int z = 0; z < parts; ++z) c += __ldcg(&mine[((size_t)z << st.max_l) + v]);
        sh.counts[v] = c;
    }
    if (threadIdx.x == 0) st.tickets[x] = 0u;
    __syncthreads();
    s = block_sum(L, xlogx, sh.counts, sh.terms, sh.nonzero);
    return true;
}

// Rescores every live pair (m, x) with m in dirty_list, once each: block
// (x, y, 0) takes the pairs of slot x with dirty_list[i], i = y, y + gridDim.y, ...,
// and skips m == x and, when x is dirty too, m > x (that pair is block m's).
// Merges larger than max_l get ΔCCC = +inf without being scored. With
// gridDim.z > 1 (launched only with gridDim.y = 1 and one dirty slot: a greedy
// step's one merge, so a block has one pair at most) a pair of SPLIT_L loci or
// more is counted by the gridDim.z blocks (x, 0, z) together (split_entropy, v8).
extern "C" __global__ void __launch_bounds__(ECGA_THREADS, ECGA_MIN_BLOCKS)
    ecga_search_rescore(const unsigned long long* __restrict__ words, const double* __restrict__ xlogx, int n, int wpl,
                        SEARCH_PARAMS) {
    const Search st = SEARCH_STATE;
    __shared__ Scratch sh;
    const int x = blockIdx.x;
    // The loads that do not depend on each other are issued together (v10):
    // each is in bounds whatever the others return, and the launch's state is
    // read only (the step kernel writes it).
    const unsigned long long done = st.ctrl[CTRL_DONE];
    const int count = (int)st.ctrl[CTRL_DIRTY];
    const int Lx = st.slot_size[x];
    const int dirty_x = st.dirty[x];
    const int first_m = st.dirty_list[min((int)blockIdx.y, st.ell - 1)];
    const int locus_x = threadIdx.x < ECGA_MAX_L ? st.slot_loci[x * ECGA_MAX_L + threadIdx.x] : 0;
    if (done || Lx == 0) return;
    for (int i = blockIdx.y; i < count; i += gridDim.y) {
        const int m = i == (int)blockIdx.y ? first_m : st.dirty_list[i];
        if (m == x || (x < m && dirty_x)) continue;
        const int Lm = st.slot_size[m];
        const int locus_m = threadIdx.x < ECGA_MAX_L ? st.slot_loci[m * ECGA_MAX_L + threadIdx.x] : 0;
        const int a = min(m, x), b = max(m, x);
        const int La = x < m ? Lx : Lm, Lb = x < m ? Lm : Lx;
        const size_t at = pair_at(a, b);
        if (La + Lb > st.max_l) {
            if (blockIdx.z == 0 && threadIdx.x == 0) st.delta[at] = __longlong_as_double(0x7ff0000000000000ll);
            continue;
        }
        const bool split = gridDim.z > 1 && La + Lb >= SPLIT_L;
        if (!split && blockIdx.z != 0) continue;
        // The merged group: a's loci, then b's.
        if (threadIdx.x < La) sh.group[threadIdx.x] = x < m ? locus_x : locus_m;
        if (threadIdx.x < Lb) sh.group[La + threadIdx.x] = x < m ? locus_m : locus_x;
        double s;
        if (split) {
            if (!split_entropy(st, x, words, La + Lb, n, wpl, xlogx, sh, s)) continue;
        } else {
            s = block_entropy(words, sh.group, La + Lb, n, wpl, xlogx, sh.counts, sh.terms, sh.nonzero);
        }
        if (threadIdx.x == 0) {
            st.pair_s[at] = s;
            st.delta[at] = __dsub_rn(__dsub_rn(group_cost(st, s, La + Lb), st.cost[a]), st.cost[b]);
            atomicAdd(&st.ctrl[CTRL_PAIRS], 1ull);
            atomicAdd(&st.ctrl[CTRL_LOCI], (unsigned long long)(La + Lb));
        }
    }
}

// Threads per block of ecga_search_step: one warp per slot's row.
#define STEP_THREADS 256

// The smaller of (d, j) and (e, k): smaller ΔCCC, then smaller partner.
__device__ __forceinline__ void keep_min(double& d, int& j, double e, int k) {
    if (e < d || (e == d && k < j)) {
        d = e;
        j = k;
    }
}

// Warp `a` finds row a's best: over live partners j > a (greedy) or every live
// j != a (GM), the smallest ΔCCC, ties to the smallest j.
// keep_min is a total order on (ΔCCC, partner), so the order of the updates
// does not matter: each lane loads ROW_UNROLL partners' sizes and ΔCCC at once
// (independent loads in flight, v7) before comparing them.
#define ROW_UNROLL 8
__device__ void row_best(const Search& st, int a, int lo, int lane, double& d, int& j) {
    d = __longlong_as_double(0x7ff0000000000000ll);
    j = 0x7fffffff;
    for (int k0 = lo + lane; k0 < st.ell; k0 += 32 * ROW_UNROLL) {
        int size[ROW_UNROLL];
        double e[ROW_UNROLL];
#pragma unroll
        for (int u = 0; u < ROW_UNROLL; ++u) {
            const int k = k0 + 32 * u;
            const bool in = k < st.ell && k != a;
            size[u] = in ? st.slot_size[k] : 0;
            e[u] = in ? st.delta[pair_at(min(a, k), max(a, k))] : 0.0;
        }
#pragma unroll
        for (int u = 0; u < ROW_UNROLL; ++u) {
            if (size[u] != 0) keep_min(d, j, e[u], k0 + 32 * u);
        }
    }
    for (int o = 16; o > 0; o >>= 1) {
        const double e = __shfl_down_sync(0xffffffffu, d, o);
        const int k = __shfl_down_sync(0xffffffffu, j, o);
        keep_min(d, j, e, k);
    }
}

// Merges slot b into slot a (a < b) as the host's ModelSearch::merge, and
// records it as merge number r.
// Every load is issued before the first store (v10: b's whole row of loci at
// once, rather than one locus a round trip).
__device__ void merge_slots(const Search& st, int a, int b, unsigned long long r) {
    const size_t at = pair_at(a, b);
    const int La = st.slot_size[a], Lb = st.slot_size[b];
    const double s = st.pair_s[at], d = st.delta[at];
    int moved[ECGA_MAX_L];
#pragma unroll
    for (int t = 0; t < ECGA_MAX_L; ++t) moved[t] = st.slot_loci[b * ECGA_MAX_L + t];
#pragma unroll
    for (int t = 0; t < ECGA_MAX_L; ++t) {
        if (t < Lb) st.slot_loci[a * ECGA_MAX_L + La + t] = moved[t];
    }
    st.slot_size[a] = La + Lb;
    st.slot_size[b] = 0;
    st.cost[a] = group_cost(st, s, La + Lb);
    st.merge_a[r] = a;
    st.merge_b[r] = b;
    st.merge_delta[r] = d;
    st.dirty[a] = 1;
}

// One model-searching step: every block computes its warps' rows, and the last
// block to finish chooses and applies the step's merges (or sets CTRL_DONE).
// mode 0: greedy, every row; mode 1: greedy after a merge (a, b): only rows
// whose best involved a or b are recomputed, rows x < a else compare their new
// pair (x, a) — RowBest::after_merge of the host; mode 2: GM, every row over
// both sides, then every mutually best pair merges, in increasing a.
extern "C" __global__ void __launch_bounds__(STEP_THREADS) ecga_search_step(int mode, SEARCH_PARAMS) {
    Search st = SEARCH_STATE;
    __shared__ bool last;
    __shared__ double red_d[STEP_THREADS / 32];
    __shared__ int red_a[STEP_THREADS / 32];
    const int lane = threadIdx.x & 31;
    const int a = blockIdx.x * (STEP_THREADS / 32) + (threadIdx.x >> 5);
    // The loads that do not depend on each other are issued together (v10);
    // only the last block writes ctrl, the slots and dirty_list.
    const bool row = a < st.ell;
    const unsigned long long done = st.ctrl[CTRL_DONE], merges = st.ctrl[CTRL_MERGES];
    const int dirty_count = (int)st.ctrl[CTRL_DIRTY];
    const int dirty_slot = threadIdx.x < st.ell ? st.dirty_list[threadIdx.x] : 0;
    const int size_a = row ? st.slot_size[a] : 0;
    const int jb = row ? st.row_b[a] : 0;
    const double d_a = row ? st.row_d[a] : 0.0;
    if (done) return;
    if (size_a != 0) {
        bool full = mode != 1;
        if (!full) {
            const int ma = st.merge_a[merges - 1], mb = st.merge_b[merges - 1];
            if (a == ma || jb == ma || jb == mb) {
                full = true;
            } else if (a < ma && lane == 0) {
                double d = d_a;
                int k = jb;
                keep_min(d, k, st.delta[pair_at(a, ma)], ma);
                st.row_d[a] = d;
                st.row_b[a] = k;
            }
        }
        if (full) {
            double d;
            int j;
            row_best(st, a, mode == 2 ? 0 : a + 1, lane, d, j);
            if (lane == 0) {
                st.row_d[a] = d;
                st.row_b[a] = j;
            }
        }
    }
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) last = atomicAdd(&st.ctrl[CTRL_TICKET], 1ull) == gridDim.x - 1;
    __syncthreads();
    if (!last) return;

    // The last block: rows of every block are visible (fence, then ticket);
    // __ldcg reads them past this SM's L1. The last step's dirty slots are
    // cleared before any merge sets its own (a __syncthreads comes between).
    for (int i = threadIdx.x; i < dirty_count; i += STEP_THREADS) {
        st.dirty[i == threadIdx.x ? dirty_slot : st.dirty_list[i]] = 0;
    }
    if (mode != 2) {
        // Greedy: the first live slot in order holding the smallest negative
        // row best; each thread's rows loaded at once (ROW_UNROLL), the block's
        // choice by shuffles within warps, then over the warps.
        double d = 0.0;
        int best = 0x7fffffff;
        for (int x0 = threadIdx.x; x0 < st.ell; x0 += STEP_THREADS * ROW_UNROLL) {
            int size[ROW_UNROLL];
            double e[ROW_UNROLL];
#pragma unroll
            for (int u = 0; u < ROW_UNROLL; ++u) {
                const int x = x0 + STEP_THREADS * u;
                size[u] = x < st.ell ? st.slot_size[x] : 0;
                e[u] = x < st.ell ? __ldcg(&st.row_d[x]) : 0.0;
            }
#pragma unroll
            for (int u = 0; u < ROW_UNROLL; ++u) {
                if (size[u] != 0 && e[u] < d) {
                    d = e[u];
                    best = x0 + STEP_THREADS * u;
                }
            }
        }
        for (int o = 16; o > 0; o >>= 1) {
            const double e = __shfl_down_sync(0xffffffffu, d, o);
            const int k = __shfl_down_sync(0xffffffffu, best, o);
            keep_min(d, best, e, k);
        }
        if (lane == 0) {
            red_d[threadIdx.x >> 5] = d;
            red_a[threadIdx.x >> 5] = best;
        }
        __syncthreads();
        if (threadIdx.x == 0) {
            for (int w = 1; w < STEP_THREADS / 32; ++w) keep_min(d, best, red_d[w], red_a[w]);
            st.ctrl[CTRL_TICKET] = 0;
            if (best == 0x7fffffff) {
                st.ctrl[CTRL_DONE] = 1;
                st.ctrl[CTRL_DIRTY] = 0;
            } else {
                const int x = best;
                const unsigned long long r = merges;
                merge_slots(st, x, __ldcg(&st.row_b[x]), r);
                st.dirty_list[0] = x;
                st.ctrl[CTRL_DIRTY] = 1;
                st.ctrl[CTRL_MERGES] = r + 1;
                st.ctrl[CTRL_STEPS] += 1;
            }
        }
    } else {
        // GM: every mutually best pair (a, b), a < b, each best ΔCCC < 0,
        // recorded in increasing a. The pairs are disjoint, so each merge reads
        // the cache as it was and the threads apply them in parallel, at
        // positions from a ballot prefix count per block of slots.
        __shared__ int warp_mates[STEP_THREADS / 32];
        const unsigned long long r0 = st.ctrl[CTRL_MERGES];
        int k = 0;
        for (int base = 0; base < st.ell; base += STEP_THREADS) {
            const int x = base + threadIdx.x;
            int y = -1;
            if (x < st.ell && st.slot_size[x] != 0 && __ldcg(&st.row_d[x]) < 0.0) {
                const int j = __ldcg(&st.row_b[x]);
                if (j > x && __ldcg(&st.row_d[j]) < 0.0 && __ldcg(&st.row_b[j]) == x) y = j;
            }
            const unsigned int mates = __ballot_sync(0xffffffffu, y >= 0);
            if (lane == 0) warp_mates[threadIdx.x >> 5] = __popc(mates);
            __syncthreads();
            int before = 0, total = 0;
            for (int w = 0; w < STEP_THREADS / 32; ++w) {
                before += w < (threadIdx.x >> 5) ? warp_mates[w] : 0;
                total += warp_mates[w];
            }
            if (y >= 0) {
                const int at = k + before + __popc(mates & ((1u << lane) - 1u));
                merge_slots(st, x, y, r0 + at);
                st.dirty_list[at] = x;
            }
            k += total;
            __syncthreads();
        }
        if (threadIdx.x == 0) {
            st.ctrl[CTRL_TICKET] = 0;
            st.ctrl[CTRL_DIRTY] = k;
            st.ctrl[CTRL_MERGES] = r0 + k;
            if (k == 0) st.ctrl[CTRL_DONE] = 1;
            else st.ctrl[CTRL_STEPS] += 1;
        }
    }
}
