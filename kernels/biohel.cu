// BioHEL's rule evaluation on the GPU (Franco, Krasnogor & Bacardit, "Speeding Up
// the Evaluation of Evolutionary Learning Systems using GPGPUs", GECCO 2010,
// Section 3.2): for every rule of a population, over one window of instances, the
// three counts — instances matching the condition, instances of the rule's class,
// and instances matching both.
//
// The CPU reference is src/library/biohel.rs (`SerialEvaluator`); the counts are
// integers and must be equal exactly.
//
// Instances: attribute-major, values[a * n + i] (consecutive threads read
// consecutive instances, the coalesced access of Section 3.4), labels[i]; the
// whole set is copied once per GA (row-major, as stored, then transposed by
// biohel_transpose) and a window is addressed by its offset (Section 3.3).
// Rules: rule_class[r]; conditions rule_start[r] .. rule_start[r + 1] - 1 of
// conds, each COND_WORDS words: attribute, kind (0 interval, 1 nominal), then
// low, high as float bits (interval) or a 128-bit value mask (nominal).

#define COND_WORDS 6

// Whether value v satisfies a condition of kind `kind` (0 interval, 1 nominal)
// whose words 2..5 are w0..w3 (scalars, so that they stay in registers). Nominal: value v matches when bit v
// of the mask is set; v is converted as the CPU's `v as u32` does (toward zero,
// saturating; NaN never matches) and values of 128 or more never match.
__device__ __forceinline__ bool value_holds(float v, unsigned int kind, unsigned int w0, unsigned int w1, unsigned int w2,
                                            unsigned int w3) {
    if (kind == 0u) return v >= __uint_as_float(w0) && v <= __uint_as_float(w1);
    const unsigned int u = __float2uint_rz(v);
    const unsigned int word = u < 64u ? (u < 32u ? w0 : w1) : (u < 96u ? w2 : w3);
    return !isnan(v) && u < 128u && ((word >> (u & 31u)) & 1u);
}

// Whether instance i satisfies condition `cond`.
__device__ __forceinline__ bool condition_holds(const float* __restrict__ values, int n, int i, const unsigned int* __restrict__ cond) {
    const float v = values[(size_t)cond[0] * n + i];
    return cond[1] == 0u ? value_holds(v, 0u, cond[2], cond[3], 0u, 0u) : value_holds(v, 1u, cond[2], cond[3], cond[4], cond[5]);
}

// Whether instance i satisfies every condition of rule r: one loop over the
// conditions with the kind tested inside (Section 3.4: better than two loops).
__device__ __forceinline__ bool rule_matches(const float* __restrict__ values, int n, int i, const unsigned int* __restrict__ conds,
                                             int begin, int end) {
    for (int c = begin; c < end; ++c) {
        if (!condition_holds(values, n, i, conds + c * COND_WORDS)) return false;
    }
    return true;
}

// The instances arrive as the data set stores them, row-major (rows[k * attrs +
// a], rows r0 .. r0 + rows_count of the resident chunk), and are written
// attribute-major into values[a * n + r0 + k] through 32 x 32 tiles in shared
// memory, so both the read and the write are coalesced. Block (32, 8); grid
// (ceil(rows_count / 32), ceil(attrs / 32)). The host used to transpose before
// the upload; on the device it costs two passes over the bytes at device bandwidth.
#define TRANSPOSE_TILE 32
#define TRANSPOSE_ROWS 8
extern "C" __global__ void biohel_transpose(const float* __restrict__ rows, int rows_count, int attrs, float* __restrict__ values, int n,
                                            int r0) {
    __shared__ float tile[TRANSPOSE_TILE][TRANSPOSE_TILE + 1];
    const int k0 = blockIdx.x * TRANSPOSE_TILE, a0 = blockIdx.y * TRANSPOSE_TILE;
    const int tx = threadIdx.x, ty = threadIdx.y;
    for (int j = ty; j < TRANSPOSE_TILE; j += TRANSPOSE_ROWS) {
        const int k = k0 + j, a = a0 + tx;
        if (k < rows_count && a < attrs) tile[j][tx] = rows[(size_t)k * attrs + a];
    }
    __syncthreads();
    for (int j = ty; j < TRANSPOSE_TILE; j += TRANSPOSE_ROWS) {
        const int a = a0 + j, k = k0 + tx;
        if (k < rows_count && a < attrs) values[(size_t)a * n + r0 + k] = tile[tx][j];
    }
}

// The paper's kernel 1 (Algorithm 1): one thread per (rule, instance) pair, blocks
// of blockDim.x instances and one rule (grid (ceil(window / blockDim.x), rules)).
// Each thread computes its three flags; the block reduces the three values at
// once in shared memory and thread 0 writes them to three separate areas
// (Figure 2): partial[(metric * rules + r) * blocks + b], metric 0 = condition,
// 1 = action (class), 2 = match (both).
extern "C" __global__ void biohel_match_paper(const float* __restrict__ values, const unsigned short* __restrict__ labels, int n,
                                              int offset, int window, const int* __restrict__ rule_class,
                                              const int* __restrict__ rule_start, const unsigned int* __restrict__ conds,
                                              int rules, unsigned int* __restrict__ partial) {
    extern __shared__ unsigned int s[];
    unsigned int* s_cond = s;
    unsigned int* s_action = s + blockDim.x;
    unsigned int* s_match = s + 2 * blockDim.x;
    int t = threadIdx.x;
    int r = blockIdx.y;
    int k = blockIdx.x * blockDim.x + t;
    unsigned int cond = 0, action = 0;
    if (k < window) {
        int i = offset + k;
        cond = rule_matches(values, n, i, conds, rule_start[r], rule_start[r + 1]) ? 1u : 0u;
        action = labels[i] == (unsigned short)rule_class[r] ? 1u : 0u;
    }
    s_cond[t] = cond;
    s_action[t] = action;
    s_match[t] = cond & action;
    __syncthreads();
    // Tree reduction of the three values (blockDim.x a power of two).
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (t < stride) {
            s_cond[t] += s_cond[t + stride];
            s_action[t] += s_action[t + stride];
            s_match[t] += s_match[t + stride];
        }
        __syncthreads();
    }
    if (t == 0) {
        int blocks = gridDim.x;
        partial[(0 * rules + r) * blocks + blockIdx.x] = s_cond[0];
        partial[(1 * rules + r) * blocks + blockIdx.x] = s_action[0];
        partial[(2 * rules + r) * blocks + blockIdx.x] = s_match[0];
    }
}

// The paper's kernel 2: reduces each row of the three areas to one value, one
// block per (rule, metric) row (grid (rules, 3)). The paper calls it repeatedly
// until one block is left; a block-stride loop over the row does the same in one
// launch. Writes counts[r * 3 + metric].
extern "C" __global__ void biohel_reduce_paper(const unsigned int* __restrict__ partial, int blocks, int rules,
                                               unsigned int* __restrict__ counts) {
    extern __shared__ unsigned int s[];
    int t = threadIdx.x;
    int r = blockIdx.x;
    int metric = blockIdx.y;
    const unsigned int* row = partial + (size_t)(metric * rules + r) * blocks;
    unsigned int sum = 0;
    for (int b = t; b < blocks; b += blockDim.x) sum += row[b];
    s[t] = sum;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (t < stride) s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0) counts[r * 3 + metric] = s[0];
}

// The faster design for current GPUs (v3; GPU notes): one warp takes a group of
// 32 * BALLOT_SPAN instances (BALLOT_SPAN per lane, so that many independent value loads are
// in flight per condition) and tests them against rules of the block's tile of
// TILE_RULES rules, so the instances' values are read from DRAM once per tile and
// the rules' conditions (words loaded once per condition and warp) are reused
// across the span. Counts come from warp votes (__ballot_sync + __popc: one
// instruction per 32 instances instead of a shared-memory tree); lane j keeps
// rule j's counts in registers, the warps of a block add them in shared memory
// and the block adds them to counts[r * 3 + metric] with one atomic per rule and
// metric (integer additions: the order does not change the result). The loop
// over a rule's conditions exits as soon as no instance of the warp still
// matches. Grid (rule tiles, instance chunks of `chunk`, rule-slice blocks): the
// tiles of one chunk are consecutive blocks, so they run at the same time and
// share the chunk's values in L2. Rule slice q of `slices` takes rules q, q +
// slices, ... of the tile; block z takes slices z * (slices / gridDim.z) onwards,
// and its warps the (instance group, slice) pairs of its chunk. So a small window
// still gives every tile up to 32 warps (v2: one warp per 128 instances and tile,
// and it lost to the paper's kernel on windows of a few hundred instances).
// blockDim.x a multiple of 32; counts zeroed by the host.
#define TILE_RULES 32
#define BALLOT_SPAN 4
extern "C" __global__ void biohel_match_ballot(const float* __restrict__ values, const unsigned short* __restrict__ labels, int n,
                                               int offset, int window, const int* __restrict__ rule_class,
                                               const int* __restrict__ rule_start, const unsigned int* __restrict__ conds,
                                               int rules, int chunk, int slices, unsigned int* __restrict__ counts) {
    __shared__ int s_start[TILE_RULES + 1];
    __shared__ unsigned short s_class[TILE_RULES];
    __shared__ unsigned int s_counts[TILE_RULES * 3];
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const int warps = blockDim.x >> 5;
    const int r0 = blockIdx.x * TILE_RULES;
    const int tile = min(TILE_RULES, rules - r0);
    for (int j = threadIdx.x; j <= tile; j += blockDim.x) s_start[j] = rule_start[r0 + j];
    for (int j = threadIdx.x; j < tile; j += blockDim.x) s_class[j] = (unsigned short)rule_class[r0 + j];
    for (int j = threadIdx.x; j < TILE_RULES * 3; j += blockDim.x) s_counts[j] = 0;
    __syncthreads();
    const int first = blockIdx.y * chunk;
    const int last = min(window, first + chunk);
    const int groups = (last - first + 32 * BALLOT_SPAN - 1) / (32 * BALLOT_SPAN);
    const int block_slices = slices / gridDim.z;
    unsigned int c_cond = 0, c_action = 0, c_match = 0;  // rule `lane` of the tile
    for (int item = warp; item < groups * block_slices; item += warps) {
        const int k0 = first + (item % groups) * 32 * BALLOT_SPAN;
        int idx[BALLOT_SPAN];
        bool in[BALLOT_SPAN];
        unsigned short label[BALLOT_SPAN];
#pragma unroll
        for (int s = 0; s < BALLOT_SPAN; ++s) {
            const int k = k0 + s * 32 + lane;
            in[s] = k < last;
            idx[s] = offset + (in[s] ? k : first);
            label[s] = labels[idx[s]];
        }
        for (int j = blockIdx.z * block_slices + item / groups; j < tile; j += slices) {
            bool m[BALLOT_SPAN];
            bool any = false;
#pragma unroll
            for (int s = 0; s < BALLOT_SPAN; ++s) {
                m[s] = in[s];
                any = any || m[s];
            }
            const int end = s_start[j + 1];
            for (int c = s_start[j]; c < end; ++c) {
                if (!__any_sync(0xffffffffu, any)) break;
                const unsigned int* cond = conds + c * COND_WORDS;
                const size_t column = (size_t)cond[0] * n;
                const unsigned int kind = cond[1];
                const unsigned int w0 = cond[2], w1 = cond[3];
                const unsigned int w2 = kind != 0u ? cond[4] : 0u, w3 = kind != 0u ? cond[5] : 0u;
                any = false;
#pragma unroll
                for (int s = 0; s < BALLOT_SPAN; ++s) {
                    m[s] = m[s] && value_holds(values[column + idx[s]], kind, w0, w1, w2, w3);
                    any = any || m[s];
                }
            }
            const unsigned short cls = s_class[j];
            unsigned int cc = 0, ca = 0, cm = 0;
#pragma unroll
            for (int s = 0; s < BALLOT_SPAN; ++s) {
                const bool a = in[s] && label[s] == cls;
                cc += __popc(__ballot_sync(0xffffffffu, m[s]));
                ca += __popc(__ballot_sync(0xffffffffu, a));
                cm += __popc(__ballot_sync(0xffffffffu, m[s] && a));
            }
            if (lane == j) {
                c_cond += cc;
                c_action += ca;
                c_match += cm;
            }
        }
    }
    if (lane < tile && (c_cond | c_action)) {
        atomicAdd(&s_counts[lane * 3 + 0], c_cond);
        atomicAdd(&s_counts[lane * 3 + 1], c_action);
        atomicAdd(&s_counts[lane * 3 + 2], c_match);
    }
    __syncthreads();
    for (int j = threadIdx.x; j < tile * 3; j += blockDim.x) {
        if (s_counts[j]) atomicAdd(&counts[r0 * 3 + j], s_counts[j]);
    }
}
