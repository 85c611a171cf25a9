// The island GA of Jaros, "Multi-GPU Island-Based Genetic Algorithm for Solving
// the Knapsack Problem" (IEEE CEC 2012), Section V: one kernel per phase, one warp
// per individual (or offspring pair) as the paper, or several (the split design of
// genetic manipulation and evaluation), all islands of the GPU in the same launches
// (the warp index runs over island x work item, island-major). A GPU holds the
// islands island_base, island_base + 1, ... of the ring (all of them on one GPU):
// `island` in a kernel is local to the GPU's buffers, the Philox key is the ring's
// island_base + island.
//
// The CPU reference is src/library/island/; its module documentation is the
// specification these kernels follow bit for bit: the Philox counter table, the
// tie rules, the migration order and the padding rules.
//
// Population layout (Section IV.A): chromosome-major and bit-packed, item i of
// individual k of island s is bit i % 32 of word (s * N + k) * L + i / 32; L (the
// words per chromosome) is a multiple of 32 (1024 genes, one word per lane). Words
// from item_words on are zero, and so are the bits of the last item word past the
// items (last_mask). Fitness values are 64-bit, one per individual.
//
// Random numbers (Section V.A): Philox4x32-10 at counter
//   [generation, (purpose << 28) | index, c2, seed_high]  under key  [seed_low, island].
// A number r picks index __umulhi(r, n) of n; a probability threshold T (64-bit,
// round(p * 2^32)) fires when r < T: T = 2^32 always fires, T = 0 never.

#define FULL_MASK 0xffffffffu
#define WARP_SIZE 32u

// Purpose tags of the counter table (island.rs, `Purpose`).
#define PURPOSE_INITIAL 0u
#define PURPOSE_SELECTION 1u
#define PURPOSE_CROSSOVER_MASK 2u
#define PURPOSE_MUTATION 3u
#define PURPOSE_REPLACEMENT 4u
#define PURPOSE_EMIGRATION 5u
#define PURPOSE_IMMIGRATION 6u
#define TAG_SHIFT 28u
// Philox calls per chromosome word for mutation: 16 x 4 = 64 numbers, 32 per child.
#define MUTATION_CALLS 16u

struct Philox4 {
    unsigned int x, y, z, w;
};

// Philox4x32-10 (Salmon et al., SC '11), line for line as src/library/philox.rs.
__device__ __forceinline__ Philox4 philox4x32_10(unsigned int c0, unsigned int c1, unsigned int c2, unsigned int c3, unsigned int k0,
                                                 unsigned int k1) {
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
    Philox4 out;
    out.x = c0;
    out.y = c1;
    out.z = c2;
    out.w = c3;
    return out;
}

// The four numbers of (generation, purpose, index, c2) on `island` (island.rs, `CounterRng::draw`).
__device__ __forceinline__ Philox4 draw(unsigned int seed_low, unsigned int seed_high, unsigned int island, unsigned int generation,
                                        unsigned int purpose, unsigned int index, unsigned int c2) {
    return philox4x32_10(generation, (purpose << TAG_SHIFT) | index, c2, seed_high, seed_low, island);
}

// r < T in 64 bits, as 0 or 1 (the mutation bits compare in 32 bits: children_word).
__device__ __forceinline__ unsigned int fires(unsigned int r, unsigned long long threshold) {
    return (unsigned long long)r < threshold ? 1u : 0u;
}

// Binary tournament over the n fitness values: the fitter of the candidates picked by
// r0 and r1; ties go to the second.
__device__ __forceinline__ unsigned int tournament(const unsigned long long* fitness, unsigned int n, unsigned int r0, unsigned int r1) {
    const unsigned int a = __umulhi(r0, n);
    const unsigned int b = __umulhi(r1, n);
    return fitness[a] > fitness[b] ? a : b;
}

// Inverse binary tournament: the less fit of the two; ties go to the second.
__device__ __forceinline__ unsigned int inverse_tournament(const unsigned long long* fitness, unsigned int n, unsigned int r0,
                                                           unsigned int r1) {
    const unsigned int a = __umulhi(r0, n);
    const unsigned int b = __umulhi(r1, n);
    return fitness[a] < fitness[b] ? a : b;
}

// Mask of the item bits of word w (zero for padding).
__device__ __forceinline__ unsigned int word_mask(unsigned int w, unsigned int item_words, unsigned int last_mask) {
    return w + 1u < item_words ? FULL_MASK : (w + 1u == item_words ? last_mask : 0u);
}

// Global index of the calling thread's warp; blocks are whole warps.
__device__ __forceinline__ unsigned long long warp_index() {
    return (unsigned long long)blockIdx.x * (blockDim.x / WARP_SIZE) + threadIdx.x / WARP_SIZE;
}

__device__ __forceinline__ unsigned int lane_index() {
    return threadIdx.x % WARP_SIZE;
}

// The penalised price (src/library/knapsack/): the price when weight <= capacity,
// else price - ratio * (weight - capacity), saturating at 0 (and the product at 2^64 - 1).
__device__ __forceinline__ unsigned long long penalised_price(unsigned long long price, unsigned long long weight,
                                                              unsigned long long capacity, unsigned long long ratio) {
    if (weight <= capacity) return price;
    const unsigned long long excess = weight - capacity;
    const unsigned long long penalty = __umul64hi(ratio, excess) != 0ull ? ~0ull : ratio * excess;
    return price > penalty ? price - penalty : 0ull;
}

// Initial population: word w of individual k of island s is out[0] of
// (generation 0, PURPOSE_INITIAL, k, w), masked to the items. One warp per individual.
extern "C" __global__ void island_initialise(unsigned int* __restrict__ population, unsigned int islands, unsigned int island_size,
                                             unsigned int words, unsigned int item_words, unsigned int last_mask, unsigned int seed_low,
                                             unsigned int seed_high, unsigned int island_base) {
    const unsigned long long warp = warp_index();
    if (warp >= (unsigned long long)islands * island_size) return;
    const unsigned int island = (unsigned int)(warp / island_size);
    const unsigned int individual = (unsigned int)(warp % island_size);
    unsigned int* chromosome = population + warp * words;
    for (unsigned int w = lane_index(); w < words; w += WARP_SIZE) {
        unsigned int gene = 0u;
        if (w < item_words) {
            gene = draw(seed_low, seed_high, island_base + island, 0u, PURPOSE_INITIAL, individual, w).x & word_mask(w, item_words, last_mask);
        }
        chromosome[w] = gene;
    }
}

// Word w of both children of one pair (Section V.B): uniform crossover by a random
// mask per word (eq. 1), bit-flip mutation from 32 numbers per word and child (eq. 2),
// padding masked. Number 4k + j is out[j] of call k: numbers 0..31 flip child 1,
// 32..63 child 2.
__device__ __forceinline__ void children_word(const unsigned int* __restrict__ parent1, const unsigned int* __restrict__ parent2,
                                              unsigned int w, unsigned int item_words, unsigned int last_mask, bool crossover,
                                              unsigned long long mutation_threshold, unsigned int seed_low, unsigned int seed_high,
                                              unsigned int island, unsigned int generation, unsigned int pair, unsigned int& gene1,
                                              unsigned int& gene2) {
    gene1 = 0u;
    gene2 = 0u;
    if (w >= item_words) return;
    const unsigned int a = parent1[w];
    const unsigned int b = parent2[w];
    const unsigned int mask = crossover ? draw(seed_low, seed_high, island, generation, PURPOSE_CROSSOVER_MASK, pair, w).x : 0u;
    unsigned int flip1 = 0u;
    unsigned int flip2 = 0u;
    // T = 0 never fires (no draw needed: the numbers are counter-based, so no other draw moves); else r < T is
    // r <= T - 1, a 32-bit compare for every T in (0, 2^32] (issue #39: one compare a number, not two).
    if (mutation_threshold != 0ull) {
        const unsigned int limit = (unsigned int)(mutation_threshold - 1ull);
        // Unrolled whole (issue #39): the shifts become constants and the branch on k goes, so the fused kernel holds
        // 48 registers a thread, not 76, and its 512 pair blocks at 2048 per island fit one wave of an H200 (four
        // blocks an SM, not two); an unroll by 4 kept 76 (gpu-notes, island section).
#pragma unroll
        for (unsigned int k = 0; k < MUTATION_CALLS; ++k) {
            const Philox4 r = draw(seed_low, seed_high, island, generation, PURPOSE_MUTATION, pair, MUTATION_CALLS * w + k);
            const unsigned int bits = (r.x <= limit ? 1u : 0u) | (r.y <= limit ? 2u : 0u) | (r.z <= limit ? 4u : 0u) |
                                      (r.w <= limit ? 8u : 0u);
            if (k < MUTATION_CALLS / 2u) {
                flip1 |= bits << (4u * k);
            } else {
                flip2 |= bits << (4u * (k - MUTATION_CALLS / 2u));
            }
        }
    }
    const unsigned int valid = word_mask(w, item_words, last_mask);
    gene1 = ((~mask & a) | (mask & b)) ^ (flip1 & valid);
    gene2 = ((mask & a) | (~mask & b)) ^ (flip2 & valid);
}

// One island's parents as a generation's selection sees them: their fitness and, where
// the previous generation's replacement is left pending (`pending`, the fused design:
// island_manipulate_evaluate settles it), that generation's offspring fitness values
// (`offspring_size` of them).
struct Parents {
    const unsigned long long* fitness;
    const unsigned long long* previous_fitness;
    unsigned int offspring_size;
    unsigned int pending;
};

// The offspring index that says a slot keeps its own chromosome.
#define NO_SOURCE 0xffffffffu

// Slot `slot` after the pending replacement of generation `generation - 1`: the same
// draw and strict comparison as island_replace (Section V.D), so that the slot holds
// offspring `source` of that generation where it would have been copied, else its own
// chromosome (source = NO_SOURCE). Returns the slot's fitness.
__device__ __forceinline__ unsigned long long settled(const Parents& parents, unsigned int seed_low, unsigned int seed_high,
                                                      unsigned int island, unsigned int generation, unsigned int slot,
                                                      unsigned int& source) {
    const unsigned long long own = parents.fitness[slot];
    source = NO_SOURCE;
    if (parents.pending == 0u) return own;
    const unsigned int chosen =
        __umulhi(draw(seed_low, seed_high, island, generation - 1u, PURPOSE_REPLACEMENT, slot, 0u).x, parents.offspring_size);
    const unsigned long long candidate = parents.previous_fitness[chosen];
    if (candidate > own) {
        source = chosen;
        return candidate;
    }
    return own;
}

// The parents of pair `pair` of `island` (binary tournaments, every caller drawing the
// same numbers) and whether they cross over.
__device__ __forceinline__ void select_pair(const unsigned long long* __restrict__ parent_fitness, unsigned int island_size,
                                            unsigned long long crossover_threshold, unsigned int seed_low, unsigned int seed_high,
                                            unsigned int island, unsigned int generation, unsigned int pair, unsigned int& first,
                                            unsigned int& second, bool& crossover) {
    const Philox4 select = draw(seed_low, seed_high, island, generation, PURPOSE_SELECTION, pair, 0u);
    first = tournament(parent_fitness, island_size, select.x, select.y);
    second = tournament(parent_fitness, island_size, select.z, select.w);
    crossover = fires(draw(seed_low, seed_high, island, generation, PURPOSE_SELECTION, pair, 1u).x, crossover_threshold) != 0u;
}

// select_pair over the settled slots, by a whole warp: lane k settles candidate k mod 4
// (one replacement draw a lane, not four) and the four meet by shuffles; the same
// tournaments (ties go to the second), and `first_source`, `second_source` say where the
// winners' chromosomes are.
__device__ __forceinline__ void select_settled_pair(const Parents& parents, unsigned int island_size,
                                                    unsigned long long crossover_threshold, unsigned int seed_low,
                                                    unsigned int seed_high, unsigned int island, unsigned int generation,
                                                    unsigned int pair, unsigned int& first, unsigned int& second,
                                                    unsigned int& first_source, unsigned int& second_source, bool& crossover) {
    const Philox4 select = draw(seed_low, seed_high, island, generation, PURPOSE_SELECTION, pair, 0u);
    const unsigned int k = lane_index() & 3u;
    const unsigned int r = k == 0u ? select.x : k == 1u ? select.y : k == 2u ? select.z : select.w;
    const unsigned int candidate = __umulhi(r, island_size);
    unsigned int source;
    const unsigned long long fitness = settled(parents, seed_low, seed_high, island, generation, candidate, source);
    unsigned int c[4], s[4];
    unsigned long long f[4];
#pragma unroll
    for (unsigned int j = 0; j < 4u; ++j) {
        c[j] = __shfl_sync(FULL_MASK, candidate, j);
        s[j] = __shfl_sync(FULL_MASK, source, j);
        f[j] = __shfl_sync(FULL_MASK, fitness, j);
    }
    first = f[0] > f[1] ? c[0] : c[1];
    first_source = f[0] > f[1] ? s[0] : s[1];
    second = f[2] > f[3] ? c[2] : c[3];
    second_source = f[2] > f[3] ? s[2] : s[3];
    crossover = fires(draw(seed_low, seed_high, island, generation, PURPOSE_SELECTION, pair, 1u).x, crossover_threshold) != 0u;
}

// Genetic manipulation (Section V.B): `groups` warps per offspring pair (1: the
// paper's warp per pair). Every lane draws the same selection numbers (no shared
// memory, no barrier); lane l of group g then builds words 32 g + l, 32 (g + groups)
// + l, ... of both children (children_word). Children of pair p are offspring 2p and
// 2p + 1 of the island.
extern "C" __global__ void island_genetic_manipulation(const unsigned int* __restrict__ population,
                                                       const unsigned long long* __restrict__ fitness, unsigned int* __restrict__ offspring,
                                                       unsigned int islands, unsigned int island_size, unsigned int pairs,
                                                       unsigned int words, unsigned int item_words, unsigned int last_mask,
                                                       unsigned long long crossover_threshold, unsigned long long mutation_threshold,
                                                       unsigned int seed_low, unsigned int seed_high, unsigned int generation,
                                                       unsigned int groups, unsigned int island_base) {
    const unsigned long long warp = warp_index();
    if (warp >= (unsigned long long)islands * pairs * groups) return;
    const unsigned long long pair_index = warp / groups;
    const unsigned int group = (unsigned int)(warp % groups);
    const unsigned int island = (unsigned int)(pair_index / pairs);
    const unsigned int pair = (unsigned int)(pair_index % pairs);
    const unsigned int* parents = population + (unsigned long long)island * island_size * words;
    unsigned int first, second;
    bool crossover;
    select_pair(fitness + (unsigned long long)island * island_size, island_size, crossover_threshold, seed_low, seed_high,
                island_base + island, generation, pair, first, second, crossover);
    const unsigned int* parent1 = parents + (unsigned long long)first * words;
    const unsigned int* parent2 = parents + (unsigned long long)second * words;
    unsigned int* child1 = offspring + pair_index * 2ull * words;
    unsigned int* child2 = child1 + words;

    for (unsigned int w = group * WARP_SIZE + lane_index(); w < words; w += groups * WARP_SIZE) {
        unsigned int gene1, gene2;
        children_word(parent1, parent2, w, item_words, last_mask, crossover, mutation_threshold, seed_low, seed_high,
                      island_base + island, generation, pair, gene1, gene2);
        child1[w] = gene1;
        child2[w] = gene2;
    }
}

// The fused kernel's evaluation of one chunk (32 words, 1024 items) of both children, by a whole warp: for each
// word k of the chunk, lane b loads item 32 (chunk + k) + b from `items` (price and weight interleaved, one 8-byte
// load, coalesced) whatever the genes, so that the loads do not wait for the genes (nsight compute: a branch on the
// bit left the evaluation stalled on L1 most of the time), and adds it to each child whose word k, broadcast by a
// shuffle, holds bit b. `Sum` is 32 bits where every price and every weight of the instance sum below 2^32 (the
// host's `narrow`: a lane's sums over one chunk fit, half the adds; issue #39), else 64 bits; the chunk's sums are
// then added to the lane's running sums.
template <typename Sum>
__device__ __forceinline__ void add_chunk(const uint2* __restrict__ items, unsigned int chunk, unsigned int lane, unsigned int gene1,
                                          unsigned int gene2, unsigned long long& price1, unsigned long long& weight1,
                                          unsigned long long& price2, unsigned long long& weight2) {
    // Item 32 (chunk + k) + lane is row[32 k]: a constant offset from one address, not an address a load (issue #39:
    // five instructions a load before).
    const uint2* row = items + (unsigned long long)chunk * WARP_SIZE + lane;
    Sum p1 = 0, w1 = 0, p2 = 0, w2 = 0;
#pragma unroll
    for (unsigned int k = 0; k < WARP_SIZE; ++k) {
        const uint2 item = row[k * WARP_SIZE];
        const bool in1 = (__shfl_sync(FULL_MASK, gene1, k) >> lane) & 1u;
        const bool in2 = (__shfl_sync(FULL_MASK, gene2, k) >> lane) & 1u;
        p1 += in1 ? (Sum)item.x : (Sum)0;
        w1 += in1 ? (Sum)item.y : (Sum)0;
        p2 += in2 ? (Sum)item.x : (Sum)0;
        w2 += in2 ? (Sum)item.y : (Sum)0;
    }
    price1 += p1;
    weight1 += w1;
    price2 += p2;
    weight2 += w2;
}

// Genetic manipulation and evaluation fused (the `fused` design, beyond the paper;
// issue #25): one block of `blockDim.x / 32` warps (at most FUSED_WARPS) per offspring
// pair, block b taking pair b of the grid (island-major). Lane l of warp g builds
// words 32 g + l, 32 (g + groups) + l, ... of both children as
// island_genetic_manipulation does (the same numbers, the same children) and, while
// it holds them, the warp adds up the price and weight of its 32 words for both
// children (add_chunk). The warps' integer sums meet in
// shared memory in a fixed order and thread 0 writes both penalised prices: the
// offspring are never read back, and evaluation is no launch of its own. Chromosome
// words are a multiple of 32 (the layout), so every lane of a warp runs the same
// iterations.
//
// Replacement is no launch of its own either (issue #39): generation g's replacement is
// left pending and settled here, in generation g + 1 (`pending`; `previous` and
// `previous_fitness` are generation g's offspring, `offspring` and `offspring_fitness`
// another pair of buffers for generation g + 1's). Selection reads each candidate slot
// as settled (select_settled_pair: the replacement's draw and comparison, so the
// winner's chromosome is read from the offspring it would hold), and block p of an
// island writes slots p, p + pairs, ... settled (a warp a slot): every slot's fitness
// into `settled_fitness` (another buffer than `fitness`, which the other blocks'
// selection reads) and the chromosome of each replaced slot into `population`. No block
// reads a replaced slot's chromosome from `population` (it reads the offspring), so the
// copies race with no read. Bit-identical to island_replace, then this kernel without a
// pending replacement.
//
// At most 48 registers a thread (issue #39): four blocks of 10 warps an SM, so the 512
// pair blocks of one island of 2048 on the 10,000 items are one wave of an H200's 132
// SMs; left to itself the compiler took 56 (three blocks an SM, 1.29 waves), 20.6-21.4
// µs a launch against 19.5 (gpu-notes, island section).
#define FUSED_WARPS 32u
extern "C" __global__ void __maxnreg__(48) island_manipulate_evaluate(unsigned int* __restrict__ population,
                                                      const unsigned long long* __restrict__ fitness,
                                                      unsigned long long* __restrict__ settled_fitness,
                                                      const unsigned int* __restrict__ previous,
                                                      const unsigned long long* __restrict__ previous_fitness, unsigned int pending,
                                                      unsigned int* __restrict__ offspring,
                                                      unsigned long long* __restrict__ offspring_fitness, unsigned int pairs,
                                                      unsigned int island_size, unsigned int offspring_size, unsigned int words,
                                                      unsigned int item_words, unsigned int last_mask,
                                                      unsigned long long crossover_threshold, unsigned long long mutation_threshold,
                                                      unsigned int seed_low, unsigned int seed_high, unsigned int generation,
                                                      unsigned int island_base, const uint2* __restrict__ items,
                                                      unsigned long long capacity, unsigned long long ratio, unsigned int narrow) {
    __shared__ unsigned long long sums[4][FUSED_WARPS];
    const unsigned int groups = blockDim.x / WARP_SIZE;
    const unsigned int group = threadIdx.x / WARP_SIZE;
    const unsigned int lane = lane_index();
    const unsigned long long pair_index = blockIdx.x;
    const unsigned int island = (unsigned int)(pair_index / pairs);
    const unsigned int pair = (unsigned int)(pair_index % pairs);
    const unsigned long long first_parent = (unsigned long long)island * island_size;
    const unsigned long long first_previous = (unsigned long long)island * offspring_size;
    const unsigned int* parents = population + first_parent * words;
    const Parents settled_parents = {fitness + first_parent, previous_fitness + first_previous, offspring_size, pending};

    // This block's slots, settled: warp g takes slots pair + g·pairs, pair + (g + groups)·pairs, ...
    for (unsigned int slot = pair + group * pairs; slot < island_size; slot += groups * pairs) {
        unsigned int source;
        const unsigned long long slot_fitness = settled(settled_parents, seed_low, seed_high, island_base + island, generation, slot, source);
        if (lane == 0u) settled_fitness[first_parent + slot] = slot_fitness;
        if (source != NO_SOURCE) {
            const unsigned int* from = previous + (first_previous + source) * words;
            unsigned int* to = population + (first_parent + slot) * words;
            for (unsigned int w = lane; w < words; w += WARP_SIZE) to[w] = from[w];
        }
    }

    unsigned int first, second, first_source, second_source;
    bool crossover;
    select_settled_pair(settled_parents, island_size, crossover_threshold, seed_low, seed_high, island_base + island, generation, pair, first,
                second, first_source, second_source, crossover);
    const unsigned int* parent1 =
        first_source == NO_SOURCE ? parents + (unsigned long long)first * words : previous + (first_previous + first_source) * words;
    const unsigned int* parent2 =
        second_source == NO_SOURCE ? parents + (unsigned long long)second * words : previous + (first_previous + second_source) * words;
    unsigned int* child1 = offspring + pair_index * 2ull * words;
    unsigned int* child2 = child1 + words;

    unsigned long long price1 = 0ull, weight1 = 0ull, price2 = 0ull, weight2 = 0ull;
    for (unsigned int chunk = group * WARP_SIZE; chunk < words; chunk += groups * WARP_SIZE) {
        unsigned int gene1, gene2;
        children_word(parent1, parent2, chunk + lane, item_words, last_mask, crossover, mutation_threshold, seed_low, seed_high,
                      island_base + island, generation, pair, gene1, gene2);
        child1[chunk + lane] = gene1;
        child2[chunk + lane] = gene2;
        if (narrow) {
            add_chunk<unsigned int>(items, chunk, lane, gene1, gene2, price1, weight1, price2, weight2);
        } else {
            add_chunk<unsigned long long>(items, chunk, lane, gene1, gene2, price1, weight1, price2, weight2);
        }
    }
    for (unsigned int offset = WARP_SIZE / 2u; offset > 0u; offset /= 2u) {
        price1 += __shfl_down_sync(FULL_MASK, price1, offset);
        weight1 += __shfl_down_sync(FULL_MASK, weight1, offset);
        price2 += __shfl_down_sync(FULL_MASK, price2, offset);
        weight2 += __shfl_down_sync(FULL_MASK, weight2, offset);
    }
    if (lane == 0u) {
        sums[0][group] = price1;
        sums[1][group] = weight1;
        sums[2][group] = price2;
        sums[3][group] = weight2;
    }
    __syncthreads();
    if (threadIdx.x == 0u) {
        for (unsigned int g = 1u; g < groups; ++g) {
            price1 += sums[0][g];
            weight1 += sums[1][g];
            price2 += sums[2][g];
            weight2 += sums[3][g];
        }
        offspring_fitness[2ull * pair_index] = penalised_price(price1, weight1, capacity, ratio);
        offspring_fitness[2ull * pair_index + 1ull] = penalised_price(price2, weight2, capacity, ratio);
    }
}

// Adds to (price, weight) the items of `chromosome` in its chunks of 32 words (1024
// items) first, first + stride, ...: each lane loads one word of the chunk; then for
// each word, broadcast by a shuffle, lane b adds the price and weight of item 32 w + b
// when its bit is set (coalesced reads of prices and weights, which hold words * 32
// entries, zero past the items). Called by every lane of a warp.
__device__ __forceinline__ void add_chunks(const unsigned int* __restrict__ chromosome, unsigned int first, unsigned int stride,
                                           unsigned int words, const unsigned int* __restrict__ prices,
                                           const unsigned int* __restrict__ weights, unsigned long long& price,
                                           unsigned long long& weight) {
    const unsigned int lane = lane_index();
    for (unsigned int chunk = first * WARP_SIZE; chunk < words; chunk += stride * WARP_SIZE) {
        const unsigned int mine = chromosome[chunk + lane];
#pragma unroll
        for (unsigned int k = 0; k < WARP_SIZE; ++k) {
            const unsigned int word = __shfl_sync(FULL_MASK, mine, k);
            if ((word >> lane) & 1u) {
                const unsigned long long item = (unsigned long long)(chunk + k) * WARP_SIZE + lane;
                price += prices[item];
                weight += weights[item];
            }
        }
    }
    for (unsigned int offset = WARP_SIZE / 2u; offset > 0u; offset /= 2u) {
        price += __shfl_down_sync(FULL_MASK, price, offset);
        weight += __shfl_down_sync(FULL_MASK, weight, offset);
    }
}

// Greedy repair of the `repair` and `feasible-init` variants (island.rs, `Repair`; not
// in the paper): one warp per chromosome of `genomes`. The warp sums the chromosome's
// weight (add_chunks, then broadcast from lane 0); while it exceeds the capacity, items
// are dropped in `order` (the items of positive weight by increasing price/weight, ties
// by index), 32 at a time: lane l takes item order[c + l] and its weight if packed; an
// inclusive scan of those weights gives each lane the packed weight before it in the
// chunk, and a packed item is dropped iff that is below the excess left. This is the
// reference's rule (drop the next packed item while the weight exceeds the capacity):
// the prefix only grows, so the dropped items are the packed ones before the first that
// is kept. Each dropped item's bit is cleared by its own lane (atomicAnd: lanes share
// words; a lane reads only its own item's bit, which no other lane changes).
extern "C" __global__ void island_repair(unsigned int* __restrict__ genomes, unsigned long long count, unsigned int words,
                                         const unsigned int* __restrict__ prices, const unsigned int* __restrict__ weights,
                                         const unsigned int* __restrict__ order, unsigned int order_count,
                                         unsigned long long capacity) {
    const unsigned long long warp = warp_index();
    if (warp >= count) return;
    unsigned int* chromosome = genomes + warp * words;
    const unsigned int lane = lane_index();
    unsigned long long price = 0ull;
    unsigned long long weight = 0ull;
    add_chunks(chromosome, 0u, 1u, words, prices, weights, price, weight);
    weight = __shfl_sync(FULL_MASK, weight, 0);
    // Warp-uniform from here on: every lane holds the same excess.
    unsigned long long excess = weight > capacity ? weight - capacity : 0ull;
    for (unsigned int c = 0u; c < order_count && excess > 0ull; c += WARP_SIZE) {
        const unsigned int k = c + lane;
        unsigned int item = 0u;
        unsigned long long packed = 0ull;
        if (k < order_count) {
            item = order[k];
            if ((chromosome[item / WARP_SIZE] >> (item % WARP_SIZE)) & 1u) packed = weights[item];
        }
        unsigned long long scan = packed;
        for (unsigned int offset = 1u; offset < WARP_SIZE; offset *= 2u) {
            const unsigned long long below = __shfl_up_sync(FULL_MASK, scan, offset);
            if (lane >= offset) scan += below;
        }
        const bool drop = packed > 0ull && scan - packed < excess;
        if (drop) atomicAnd(&chromosome[item / WARP_SIZE], ~(1u << (item % WARP_SIZE)));
        unsigned long long dropped = drop ? packed : 0ull;
        for (unsigned int offset = WARP_SIZE / 2u; offset > 0u; offset /= 2u) dropped += __shfl_xor_sync(FULL_MASK, dropped, offset);
        excess = dropped >= excess ? 0ull : excess - dropped;
    }
}

// Fitness evaluation (Section V.C): one warp per chromosome of `genomes`, every chunk
// of it in turn (add_chunks); lane 0 writes the penalised price.
extern "C" __global__ void island_evaluate(const unsigned int* __restrict__ genomes, unsigned long long* __restrict__ fitness,
                                           unsigned long long count, unsigned int words, const unsigned int* __restrict__ prices,
                                           const unsigned int* __restrict__ weights, unsigned long long capacity,
                                           unsigned long long ratio) {
    const unsigned long long warp = warp_index();
    if (warp >= count) return;
    unsigned long long price = 0ull;
    unsigned long long weight = 0ull;
    add_chunks(genomes + warp * words, 0u, 1u, words, prices, weights, price, weight);
    if (lane_index() == 0u) fitness[warp] = penalised_price(price, weight, capacity, ratio);
}

// Fitness evaluation with `split` warps of a block of EVALUATE_WARPS per chromosome
// (split divides EVALUATE_WARPS): warp part q takes chunks q, q + split, ...
// (add_chunks); the parts' sums meet in shared memory and the first lane of part 0
// writes the penalised price.
#define EVALUATE_WARPS 8u
extern "C" __global__ void island_evaluate_split(const unsigned int* __restrict__ genomes, unsigned long long* __restrict__ fitness,
                                                 unsigned long long count, unsigned int words, const unsigned int* __restrict__ prices,
                                                 const unsigned int* __restrict__ weights, unsigned long long capacity,
                                                 unsigned long long ratio, unsigned int split) {
    __shared__ unsigned long long price_part[EVALUATE_WARPS];
    __shared__ unsigned long long weight_part[EVALUATE_WARPS];
    const unsigned int warp_in_block = threadIdx.x / WARP_SIZE;
    const unsigned int part = warp_in_block % split;
    const unsigned long long chromosome_index = (unsigned long long)blockIdx.x * (EVALUATE_WARPS / split) + warp_in_block / split;
    const bool valid = chromosome_index < count;
    unsigned long long price = 0ull;
    unsigned long long weight = 0ull;
    if (valid) {
        add_chunks(genomes + chromosome_index * words, part, split, words, prices, weights, price, weight);
        if (lane_index() == 0u) {
            price_part[warp_in_block] = price;
            weight_part[warp_in_block] = weight;
        }
    }
    __syncthreads();
    if (valid && part == 0u && lane_index() == 0u) {
        for (unsigned int q = 1u; q < split; ++q) {
            price += price_part[warp_in_block + q];
            weight += weight_part[warp_in_block + q];
        }
        fitness[chromosome_index] = penalised_price(price, weight, capacity, ratio);
    }
}

// Replacement (Section V.D): one warp per parent slot. Lane 0 draws the offspring the
// slot is compared with and, when that is strictly fitter, takes its fitness (lane 0
// alone reads and writes the slot's fitness); the whole warp then copies the genome.
// Each slot is written only by its own warp.
extern "C" __global__ void island_replace(unsigned int* __restrict__ population, unsigned long long* __restrict__ fitness,
                                          const unsigned int* __restrict__ offspring,
                                          const unsigned long long* __restrict__ offspring_fitness, unsigned int islands,
                                          unsigned int island_size, unsigned int offspring_size, unsigned int words,
                                          unsigned int seed_low, unsigned int seed_high, unsigned int generation, unsigned int island_base) {
    const unsigned long long warp = warp_index();
    if (warp >= (unsigned long long)islands * island_size) return;
    const unsigned int island = (unsigned int)(warp / island_size);
    const unsigned int slot = (unsigned int)(warp % island_size);
    const unsigned int lane = lane_index();
    const unsigned long long first_offspring = (unsigned long long)island * offspring_size;
    unsigned int chosen = 0u;
    unsigned int better = 0u;
    if (lane == 0u) {
        chosen = __umulhi(draw(seed_low, seed_high, island_base + island, generation, PURPOSE_REPLACEMENT, slot, 0u).x, offspring_size);
        const unsigned long long candidate = offspring_fitness[first_offspring + chosen];
        if (candidate > fitness[warp]) {
            fitness[warp] = candidate;
            better = 1u;
        }
    }
    better = __shfl_sync(FULL_MASK, better, 0);
    chosen = __shfl_sync(FULL_MASK, chosen, 0);
    if (better) {
        const unsigned int* source = offspring + (first_offspring + chosen) * words;
        unsigned int* target = population + warp * words;
        for (unsigned int w = lane; w < words; w += WARP_SIZE) target[w] = source[w];
    }
}

// Emigrant selection (Section V.E.1): one warp per emigrant e of each island, written
// to emigrants[(s * count + e) * L]. Emigrant 0 is the island's best (the lowest index
// of the highest fitness, found by a warp reduction); the others win a binary
// tournament drawn with the sender's key.
extern "C" __global__ void island_select_emigrants(const unsigned int* __restrict__ population,
                                                   const unsigned long long* __restrict__ fitness, unsigned int* __restrict__ emigrants,
                                                   unsigned long long* __restrict__ emigrant_fitness, unsigned int islands,
                                                   unsigned int island_size, unsigned int count, unsigned int words,
                                                   unsigned int seed_low, unsigned int seed_high, unsigned int generation, unsigned int island_base) {
    const unsigned long long warp = warp_index();
    if (warp >= (unsigned long long)islands * count) return;
    const unsigned int island = (unsigned int)(warp / count);
    const unsigned int e = (unsigned int)(warp % count);
    const unsigned int lane = lane_index();
    const unsigned long long* island_fitness = fitness + (unsigned long long)island * island_size;
    unsigned int chosen;
    if (e == 0u) {
        // (fitness, index) pairs: higher fitness wins, then the lower index. Lanes
        // without an individual hold index 0xffffffff, which every real one beats.
        unsigned long long best = 0ull;
        unsigned int best_index = 0xffffffffu;
        for (unsigned int i = lane; i < island_size; i += WARP_SIZE) {
            const unsigned long long f = island_fitness[i];
            if (f > best || (f == best && i < best_index)) {
                best = f;
                best_index = i;
            }
        }
        for (unsigned int offset = WARP_SIZE / 2u; offset > 0u; offset /= 2u) {
            const unsigned long long other = __shfl_down_sync(FULL_MASK, best, offset);
            const unsigned int other_index = __shfl_down_sync(FULL_MASK, best_index, offset);
            if (other > best || (other == best && other_index < best_index)) {
                best = other;
                best_index = other_index;
            }
        }
        chosen = __shfl_sync(FULL_MASK, best_index, 0);
    } else {
        const Philox4 r = draw(seed_low, seed_high, island_base + island, generation, PURPOSE_EMIGRATION, e, 0u);
        chosen = tournament(island_fitness, island_size, r.x, r.y);
    }
    const unsigned int* source = population + ((unsigned long long)island * island_size + chosen) * words;
    unsigned int* target = emigrants + warp * words;
    for (unsigned int w = lane; w < words; w += WARP_SIZE) target[w] = source[w];
    if (lane == 0u) emigrant_fitness[warp] = island_fitness[chosen];
}

// Immigrant merge (Section V.E.3): one block per receiving island s, which takes the
// emigrants of island s - 1 in order j = 0, 1, ..., count - 1; island 0 of this GPU takes
// `incoming`: the last island's emigrants where one GPU holds the whole ring, else
// those of the previous GPU's last island, received over NCCL (the
// deterministic equivalent of the paper's per-individual locks), MERGE_CHUNK at a time:
// 1. every thread draws the inverse tournament of one immigrant of the chunk (the
//    receiver's key) into shared memory;
// 2. thread 0 alone decides the chunk in order on the island's fitness as it stands
//    after the earlier immigrants, replacing the loser's fitness when the immigrant
//    is strictly fitter, and notes the slot it took;
// 3. the warps copy the genomes of the chunk's accepted immigrants that no later
//    immigrant of the chunk displaced, so no two warps write one slot (a later chunk
//    overwrites after the barrier).
#define MERGE_CHUNK 256u
#define NO_SLOT 0xffffffffu
extern "C" __global__ void island_merge_immigrants(unsigned int* __restrict__ population, unsigned long long* __restrict__ fitness,
                                                   const unsigned int* __restrict__ emigrants,
                                                   const unsigned long long* __restrict__ emigrant_fitness,
                                                   const unsigned int* __restrict__ incoming,
                                                   const unsigned long long* __restrict__ incoming_fitness, unsigned int islands,
                                                   unsigned int island_size, unsigned int count, unsigned int words,
                                                   unsigned int seed_low, unsigned int seed_high, unsigned int generation, unsigned int island_base) {
    __shared__ unsigned int draw_x[MERGE_CHUNK];
    __shared__ unsigned int draw_y[MERGE_CHUNK];
    __shared__ unsigned int taken[MERGE_CHUNK];
    const unsigned int island = blockIdx.x;
    if (island >= islands) return;
    // The sender's emigrants: local island s - 1's, or for s = 0 `incoming`.
    const unsigned int* sent = island == 0u ? incoming : emigrants + (unsigned long long)(island - 1u) * count * words;
    const unsigned long long* sent_fitness = island == 0u ? incoming_fitness : emigrant_fitness + (unsigned long long)(island - 1u) * count;
    const unsigned int lane = lane_index();
    const unsigned int warp = threadIdx.x / WARP_SIZE;
    const unsigned int warps = blockDim.x / WARP_SIZE;
    unsigned long long* island_fitness = fitness + (unsigned long long)island * island_size;
    unsigned int* residents = population + (unsigned long long)island * island_size * words;
    for (unsigned int base = 0u; base < count; base += MERGE_CHUNK) {
        const unsigned int chunk = min(MERGE_CHUNK, count - base);
        if (threadIdx.x < chunk) {
            const Philox4 r = draw(seed_low, seed_high, island_base + island, generation, PURPOSE_IMMIGRATION, base + threadIdx.x, 0u);
            draw_x[threadIdx.x] = r.x;
            draw_y[threadIdx.x] = r.y;
        }
        __syncthreads();
        if (threadIdx.x == 0u) {
            for (unsigned int k = 0; k < chunk; ++k) {
                const unsigned int resident = inverse_tournament(island_fitness, island_size, draw_x[k], draw_y[k]);
                const unsigned long long candidate = sent_fitness[base + k];
                taken[k] = NO_SLOT;
                if (candidate > island_fitness[resident]) {
                    island_fitness[resident] = candidate;
                    taken[k] = resident;
                }
            }
        }
        __syncthreads();
        for (unsigned int k = warp; k < chunk; k += warps) {
            const unsigned int slot = taken[k];
            bool displaced = false;
            for (unsigned int later = k + 1u + lane; later < chunk; later += WARP_SIZE) displaced |= taken[later] == slot;
            displaced = __any_sync(FULL_MASK, displaced);
            if (slot != NO_SLOT && !displaced) {
                const unsigned int* source = sent + (unsigned long long)(base + k) * words;
                unsigned int* target = residents + (unsigned long long)slot * words;
                for (unsigned int w = lane; w < words; w += WARP_SIZE) target[w] = source[w];
            }
        }
        __syncthreads();
    }
}

// The integer ceiling of genetic manipulation, whose mutation masks take
// MUTATION_CALLS Philox calls per chromosome word and pair: every thread makes
// `calls` draws and folds their numbers into one word, which it writes so that
// nothing is optimised away.
extern "C" __global__ void island_philox_rate(unsigned int* __restrict__ out, unsigned int calls, unsigned int seed_low,
                                              unsigned int seed_high) {
    const unsigned int thread = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int folded = 0u;
    for (unsigned int k = 0; k < calls; ++k) {
        const Philox4 r = draw(seed_low, seed_high, 0u, k, PURPOSE_MUTATION, thread, k);
        folded ^= r.x ^ r.y ^ r.z ^ r.w;
    }
    out[thread] = folded;
}
