// The whole ECGA run on the GPU (issue #23): initial population, trap
// evaluation, tournament selection without replacement, building-block-wise
// shuffle sampling and the convergence test, with the population resident on the
// device between generations (the model search is kernels/ecga.cu's). The CPU
// reference is `run` in src/library/ecga/ with Randomness::Counter; these
// kernels draw the same numbers (`counter` there) and make the same integer
// decisions, so both runs evolve the same populations bit for bit.
//
// Populations are bit-packed by locus as in kernels/ecga.cu: words[l * wpl + w],
// bit b of word w is individual 64 w + b; padding bits (individuals >= n) are
// zero. A permutation of 0..n is the indices sorted by 64-bit keys (Philox word 0
// << 32 | index, `counter::key`), sorted by buckets (v3): the top `bits` bits of
// a key name its bucket (2^bits buckets a row of P = 2^p >= n keys, 64 keys each
// on the mean), a row's buckets are counted, laid out in order and filled, and a
// key's place in its bucket is its rank there (the bucket's keys smaller than
// it: keys are distinct). Row y of `keys` then holds the permutation's j-th index
// in the low 32 bits of key j < n.

#define STREAM_INIT 0u
#define STREAM_SELECTION 1u
#define STREAM_SAMPLING 2u
// Threads of ecga_run_bucket_scan; warps a block of ecga_run_bucket_rank.
#define SCAN_THREADS 256
#define RANK_WARPS 8

// Philox4x32-10 (Salmon et al., SC '11), line for line as src/library/philox.rs.
__device__ __forceinline__ uint4 philox4x32_10(unsigned int c0, unsigned int c1, unsigned int c2, unsigned int c3,
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
    return make_uint4(c0, c1, c2, c3);
}

// Bits of word w that hold individuals.
__device__ __forceinline__ unsigned long long valid_mask(int n, int w) {
    const int filled = n - w * 64;
    return filled >= 64 ? ~0ull : ((1ull << filled) - 1ull);
}

// Step 1: word (l, w) of the initial population, `counter::initial_word`.
extern "C" __global__ void ecga_run_init(unsigned long long* __restrict__ words, int n, int ell, int wpl,
                                         unsigned int seed_lo, unsigned int seed_hi) {
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= (size_t)ell * wpl) return;
    const int l = (int)(t / wpl), w = (int)(t % wpl);
    const uint4 r = philox4x32_10(0u, STREAM_INIT, (unsigned int)l, (unsigned int)w, seed_lo, seed_hi);
    words[t] = (((unsigned long long)r.y << 32) | r.x) & valid_mask(n, w);
}

// Trap-k (equation (2)) of every individual: m blocks of k loci, each scored k
// when all k are ones, else k - 1 - ones.
extern "C" __global__ void ecga_run_fitness(const unsigned long long* __restrict__ words, unsigned int* __restrict__ fitness,
                                            int n, int wpl, int k, int m) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const int w = i >> 6, b = i & 63;
    unsigned int f = 0u;
    for (int block = 0; block < m; ++block) {
        int u = 0;
        for (int j = 0; j < k; ++j) u += (int)((words[(size_t)(block * k + j) * wpl + w] >> b) & 1ull);
        f += u == k ? (unsigned int)k : (unsigned int)(k - 1 - u);
    }
    fitness[i] = f;
}

// Key i of permutation `round` of `stream` in `generation` (`counter::key`).
__device__ __forceinline__ unsigned long long perm_key(int i, unsigned int generation, unsigned int stream, unsigned int round,
                                                       unsigned int seed_lo, unsigned int seed_hi) {
    const uint4 r = philox4x32_10(generation, stream, (unsigned int)i, round, seed_lo, seed_hi);
    return ((unsigned long long)r.x << 32) | (unsigned int)i;
}

__device__ __forceinline__ unsigned int bucket_of(unsigned long long key, int bits) {
    return bits == 0 ? 0u : (unsigned int)(key >> (64 - bits));
}

// Sort step 1: the sizes of row y's buckets (row y: permutation round0 + y of
// `stream` in `generation`), added to counts[y 2^bits ...] (zeroed by the host).
extern "C" __global__ void ecga_run_bucket_count(unsigned int* __restrict__ counts, int n, int bits, unsigned int generation,
                                                 unsigned int stream, unsigned int round0, unsigned int seed_lo,
                                                 unsigned int seed_hi) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned long long key = perm_key(i, generation, stream, round0 + blockIdx.y, seed_lo, seed_hi);
    atomicAdd(&counts[((size_t)blockIdx.y << bits) + bucket_of(key, bits)], 1u);
}

// Sort step 2: each bucket's first place in row x, the exclusive prefix sum of
// the row's counts, into starts and cursors: block x, thread t summing a run of
// buckets, thread 0 the runs' sums.
extern "C" __global__ void __launch_bounds__(SCAN_THREADS)
    ecga_run_bucket_scan(const unsigned int* __restrict__ counts, unsigned int* __restrict__ starts,
                         unsigned int* __restrict__ cursors, int bits) {
    __shared__ unsigned int sums[SCAN_THREADS];
    const int B = 1 << bits, per = (B + SCAN_THREADS - 1) / SCAN_THREADS;
    const size_t row = (size_t)blockIdx.x << bits;
    const int lo = min(B, (int)threadIdx.x * per), hi = min(B, lo + per);
    unsigned int sum = 0u;
    for (int b = lo; b < hi; ++b) sum += counts[row + b];
    sums[threadIdx.x] = sum;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned int at = 0u;
        for (int t = 0; t < SCAN_THREADS; ++t) {
            const unsigned int v = sums[t];
            sums[t] = at;
            at += v;
        }
    }
    __syncthreads();
    unsigned int at = sums[threadIdx.x];
    for (int b = lo; b < hi; ++b) {
        starts[row + b] = at;
        cursors[row + b] = at;
        at += counts[row + b];
    }
}

// Sort step 3: each key of row y into its bucket's run of scratch's row y, in
// any order within the bucket (a cursor per bucket).
extern "C" __global__ void ecga_run_bucket_scatter(unsigned long long* __restrict__ scratch, unsigned int* __restrict__ cursors,
                                                   int n, int P, int bits, unsigned int generation, unsigned int stream,
                                                   unsigned int round0, unsigned int seed_lo, unsigned int seed_hi) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned long long key = perm_key(i, generation, stream, round0 + blockIdx.y, seed_lo, seed_hi);
    const unsigned int at = atomicAdd(&cursors[((size_t)blockIdx.y << bits) + bucket_of(key, bits)], 1u);
    scratch[(size_t)blockIdx.y * P + at] = key;
}

// Sort step 4: bucket x RANK_WARPS + w of row y by warp w of block (x, y): its
// key e goes to place start + (the bucket's keys smaller than e) of keys' row y.
// A lane takes keys lane, lane + 32, ... and compares each with the whole bucket,
// 32 keys at a time through shuffles (~0 pads: no key is as large).
extern "C" __global__ void __launch_bounds__(RANK_WARPS * 32)
    ecga_run_bucket_rank(const unsigned long long* __restrict__ scratch, const unsigned int* __restrict__ starts,
                         const unsigned int* __restrict__ counts, unsigned long long* __restrict__ keys, int P, int bits) {
    const int lane = threadIdx.x & 31;
    const int bucket = blockIdx.x * RANK_WARPS + (threadIdx.x >> 5);
    if (bucket >= (1 << bits)) return;  // the whole warp
    const size_t at = ((size_t)blockIdx.y << bits) + bucket;
    const int start = (int)starts[at], size = (int)counts[at];
    const unsigned long long* in = scratch + (size_t)blockIdx.y * P + start;
    unsigned long long* out = keys + (size_t)blockIdx.y * P + start;
    for (int i0 = 0; i0 < size; i0 += 32) {
        const unsigned long long mine = i0 + lane < size ? in[i0 + lane] : ~0ull;
        int rank = 0;
        for (int j0 = 0; j0 < size; j0 += 32) {
            const unsigned long long other = j0 + lane < size ? in[j0 + lane] : ~0ull;
#pragma unroll
            for (int t = 0; t < 32; ++t) rank += __shfl_sync(0xffffffffu, other, t) < mine ? 1 : 0;
        }
        if (i0 + lane < size) out[rank] = mine;
    }
}

// Selected individuals j of rounds r0 .. r1 - 1 (j in [r0 q, min(r1 q, n))):
// round r = j / q, tournament c = j % q of permutation row r - r0 (sorted keys),
// its s members at positions c s .. c s + s - 1; the fittest wins, the first of
// them on ties.
extern "C" __global__ void ecga_run_winners(const unsigned long long* __restrict__ sorted, const unsigned int* __restrict__ fitness,
                                            unsigned int* __restrict__ winners, int n, int P, int s, int q, int r0, int r1) {
    const long long j = (long long)r0 * q + (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= (long long)r1 * q || j >= n) return;
    const int r = (int)(j / q) - r0, c = (int)(j % q);
    const unsigned long long* row = sorted + (size_t)r * P + (size_t)c * s;
    unsigned int best = (unsigned int)row[0];
    unsigned int best_f = fitness[best];
    for (int t = 1; t < s; ++t) {
        const unsigned int x = (unsigned int)row[t];
        const unsigned int f = fitness[x];
        if (f > best_f) {
            best = x;
            best_f = f;
        }
    }
    winners[j] = best;
}

// Locus loci[p] of individual j of `out` = the same locus of individual
// parent(p, j) of `in`, for positions p = p0 + blockIdx.y, j over 64 wpl
// (threads past n write the zero padding). Selection (sampling 0): locus p,
// parent = winners[j]; sampling (1): locus loci[p], parent = low half of
// sorted[(pos_group[p] - g0) * P + j], the permutation of the position's MPM
// group (groups g0 .. of this batch). A warp ballots 32 bits, its lane 0 writes
// them as one half word.
extern "C" __global__ void ecga_run_gather(const unsigned long long* __restrict__ in, unsigned long long* __restrict__ out,
                                           const unsigned int* __restrict__ winners, const unsigned long long* __restrict__ sorted,
                                           const int* __restrict__ loci, const int* __restrict__ pos_group, int sampling, int p0,
                                           int g0, int n, int wpl, int P) {
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= 64 * wpl) return;  // whole warps: 64 wpl is a multiple of 32
    const int p = p0 + blockIdx.y;
    const int l = sampling ? loci[p] : p;
    unsigned int bit = 0u;
    if (j < n) {
        const unsigned int parent = sampling ? (unsigned int)sorted[(size_t)(pos_group[p] - g0) * P + j] : winners[j];
        bit = (unsigned int)(in[(size_t)l * wpl + (parent >> 6)] >> (parent & 63)) & 1u;
    }
    const unsigned int half = __ballot_sync(0xffffffffu, bit);
    if ((threadIdx.x & 31) == 0) reinterpret_cast<unsigned int*>(out)[2 * (size_t)l * wpl + (j >> 5)] = half;
}

// Ones of `count` words, added to *ones.
extern "C" __global__ void ecga_run_ones(const unsigned long long* __restrict__ words, size_t count, unsigned long long* ones) {
    unsigned long long c = 0ull;
    for (size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x; t < count; t += (size_t)gridDim.x * blockDim.x)
        c += (unsigned long long)__popcll(words[t]);
    for (int o = 16; o > 0; o >>= 1) c += __shfl_down_sync(0xffffffffu, c, o);
    if ((threadIdx.x & 31) == 0 && c) atomicAdd(ones, c);
}

// The convergence test of `run`: *differs is set unless every individual equals
// individual 0 (each locus word all zeros or all ones, as individual 0's allele).
extern "C" __global__ void ecga_run_converged(const unsigned long long* __restrict__ words, int n, int ell, int wpl,
                                              unsigned int* differs) {
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= (size_t)ell * wpl) return;
    const int l = (int)(t / wpl), w = (int)(t % wpl);
    const unsigned long long want = (words[(size_t)l * wpl] & 1ull) ? valid_mask(n, w) : 0ull;
    if (words[t] != want) atomicOr(differs, 1u);
}
