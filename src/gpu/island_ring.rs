//! Jaros's multi-GPU island GA (Sections IV and V.E): the ring of islands split over several GPUs of one host. Each
//! GPU holds a contiguous part of the ring, its islands batched in the same launches as on one GPU
//! ([`GpuIslands::part`]); at migration the emigrants of each GPU's last island go to the next GPU over NCCL (the
//! paper sent them over MPI between one GTX 580 per island), and that GPU's first island merges them. The random
//! numbers are keyed by the islands' places in the ring, so the ring evolves bit for bit as on one GPU and as the CPU
//! reference ([`ring_check`]).

use anyhow::{Result, anyhow, ensure};
use cudarc::nccl::{Comm, result as nccl};

use super::Gpu;
use super::island::{
    BuildIslands, CheckLine, Design, DeviceIslands, Emigrants, GpuIslands, IslandState, check_against_reference, check_cases, run_on,
};
use crate::error::GpuError;
use crate::library::island::{Config, PhaseTimes, RunResult, Statistics};
use crate::library::knapsack::{Evaluator, Fitness, Instance};
use std::path::Path;

/// The NCCL library's version (e.g. 22805 for 2.28.5), for logs.
pub fn nccl_version() -> Result<i32> {
    nccl::get_nccl_version().map_err(|e| anyhow!("ncclGetVersion: {:?}", e.0))
}

/// Whether NCCL can be used here with `gpus` GPUs; `Err` is the one-line reason a report shows as "not run here".
pub fn probe(gpus: usize) -> Result<(), GpuError> {
    if gpus < 2 {
        return Err(GpuError::Unavailable(format!("{gpus} GPU on this machine: the ring over NCCL needs 2 or more")));
    }
    // SAFETY: only tries to dlopen the library; calls nothing in it.
    if !unsafe { cudarc::nccl::sys::is_culib_present() } {
        return Err(GpuError::Unavailable("libnccl not found".into()));
    }
    Ok(())
}

/// The ring's link as NCCL sees it: bytes per second that each GPU sends to the next while receiving from the previous
/// (the migration's pattern), timed on the host around `repeats` exchanges of `bytes` after one warm-up; median, GB/s.
pub fn link_bandwidth(gpus: &[Gpu], bytes: usize, repeats: usize) -> Result<f64> {
    probe(gpus.len())?;
    let n = gpus.len();
    let comms = Comm::from_devices(gpus.iter().map(|g| g.stream.clone()).collect())
        .map_err(|e| anyhow!("NCCL communicators for {n} GPUs: {:?}", e.0))?;
    let mut send = Vec::new();
    let mut recv = Vec::new();
    for g in gpus {
        send.push(g.stream.alloc_zeros::<u8>(bytes).map_err(|e| anyhow!("link buffer on GPU {}: {e:?}", g.info.ordinal))?);
        recv.push(g.stream.alloc_zeros::<u8>(bytes).map_err(|e| anyhow!("link buffer on GPU {}: {e:?}", g.info.ordinal))?);
    }
    let err = |e: nccl::NcclError| anyhow!("NCCL link measurement: {:?}", e.0);
    let mut once = || -> Result<f64> {
        let t0 = std::time::Instant::now();
        nccl::group_start().map_err(err)?;
        let mut posted = Ok(());
        for (k, (comm, r)) in comms.iter().zip(recv.iter_mut()).enumerate() {
            let (next, previous) = (((k + 1) % n) as i32, ((k + n - 1) % n) as i32);
            posted = comm.send(&send[k], next).and_then(|()| comm.recv(r, previous).map(drop));
            if posted.is_err() {
                break;
            }
        }
        let ended = nccl::group_end();
        posted.map_err(err)?;
        ended.map_err(err)?;
        for g in gpus {
            g.stream.synchronize().map_err(|e| anyhow!("GPU {}: {e:?}", g.info.ordinal))?;
        }
        Ok(t0.elapsed().as_secs_f64())
    };
    once()?;
    let times = (0..repeats.max(1)).map(|_| once()).collect::<Result<Vec<f64>>>()?;
    Ok(bytes as f64 / crate::stats::median(&times) / 1e9)
}

/// GPUs `0..count`, each with its own stream ([`Gpu::with_own_stream`]), for a [`Ring`].
pub fn open_gpus(count: usize) -> Result<Vec<Gpu>, GpuError> {
    (0..count).map(|ordinal| Gpu::open(ordinal)?.with_own_stream()).collect()
}

/// The islands of a ring split over several GPUs, with one NCCL communicator per GPU.
pub struct Ring<'g> {
    parts: Vec<GpuIslands<'g>>,
    /// Each part's first island in the ring.
    first: Vec<usize>,
    /// Per part, the emigrants received from the previous part.
    incoming: Vec<Emigrants>,
    comms: Vec<Comm>,
}

/// Islands per GPU: as even as possible, the first GPUs one more.
pub fn split(islands: usize, gpus: usize) -> Vec<usize> {
    (0..gpus).map(|g| islands / gpus + usize::from(g < islands % gpus)).collect()
}

impl<'g> Ring<'g> {
    /// The initial islands of `config` split over `gpus` ([`split`]), with kernels of `design`.
    pub fn new(gpus: &'g [Gpu], evaluator: &Evaluator<'_>, config: &Config, design: Design) -> Result<Ring<'g>> {
        probe(gpus.len())?;
        ensure!(config.islands >= gpus.len(), "{} islands cannot be split over {} GPUs", config.islands, gpus.len());
        let (mut parts, mut first, mut incoming) = (Vec::new(), Vec::new(), Vec::new());
        let mut next = 0;
        for (gpu, count) in gpus.iter().zip(split(config.islands, gpus.len())) {
            let part = GpuIslands::part(gpu, evaluator, config, design, next, count)?;
            incoming.push(part.emigrants_buffer()?);
            parts.push(part);
            first.push(next);
            next += count;
        }
        let comms = Comm::from_devices(gpus.iter().map(|g| g.stream.clone()).collect())
            .map_err(|e| anyhow!("NCCL communicators for {} GPUs: {:?}", gpus.len(), e.0))?;
        let mut ring = Ring { parts, first, incoming, comms };
        // NCCL connects its point-to-point links on the first exchange: do that now, on the zeroed buffers, so that no
        // timed generation pays for it.
        ring.exchange()?;
        ring.settle()?;
        Ok(ring)
    }

    /// Sends each part's last island's emigrants to the next part, in one NCCL group (every GPU sends and receives at
    /// once, so no pair waits on another).
    fn exchange(&mut self) -> Result<()> {
        let n = self.parts.len();
        let err = |e: nccl::NcclError| anyhow!("NCCL ring exchange of emigrants: {:?}", e.0);
        nccl::group_start().map_err(err)?;
        let mut posted = Ok(());
        for (k, (comm, incoming)) in self.comms.iter().zip(&mut self.incoming).enumerate() {
            let (next, previous) = (((k + 1) % n) as i32, ((k + n - 1) % n) as i32);
            let (genomes, fitness) = self.parts[k].last_emigrants();
            posted = comm
                .send(&genomes, next)
                .and_then(|()| comm.send(&fitness, next))
                .and_then(|()| comm.recv(&mut incoming.genomes, previous).map(drop))
                .and_then(|()| comm.recv(&mut incoming.fitness, previous).map(drop));
            if posted.is_err() {
                break;
            }
        }
        // The group is closed even when a call failed, so NCCL is not left inside it.
        let ended = nccl::group_end();
        posted.map_err(err)?;
        ended.map_err(err)?;
        Ok(())
    }

    /// The part holding ring island `island`, and the island's index there.
    fn locate(&self, island: usize) -> (usize, usize) {
        let part = self.first.partition_point(|&f| f <= island) - 1;
        (part, island - self.first[part])
    }
}

impl DeviceIslands for Ring<'_> {
    fn generation(&mut self, generation: u32) -> Result<()> {
        let decisions = self.parts.iter_mut().map(|part| part.start_generation(generation)).collect::<Result<Vec<bool>>>()?;
        ensure!(decisions.iter().all(|&d| d == decisions[0]), "the ring's GPUs disagree on migrating after generation {generation}");
        if decisions[0] {
            self.exchange()?;
        }
        for (part, incoming) in self.parts.iter_mut().zip(&self.incoming) {
            part.finish_generation(generation, Some(incoming))?;
        }
        Ok(())
    }

    fn download(&self) -> Result<Vec<IslandState>> {
        let mut islands = Vec::new();
        for part in &self.parts {
            islands.extend(part.download()?);
        }
        Ok(islands)
    }

    fn statistics(&self, evaluator: &Evaluator<'_>) -> Result<Statistics> {
        let fitness: Vec<Vec<Fitness>> = self.parts.iter().map(GpuIslands::fitness).collect::<Result<_, _>>()?;
        let island_size = self.parts[0].island_size();
        let islands: Vec<&[Fitness]> = fitness.iter().flat_map(|f| f.chunks(island_size)).collect();
        Ok(Statistics::of(evaluator, &islands, |island, index| {
            let (part, local) = self.locate(island);
            self.parts[part].chromosome(local, index)
        })?)
    }

    fn settle(&mut self) -> Result<()> {
        self.parts.iter_mut().try_for_each(GpuIslands::settle)?;
        self.parts.iter().try_for_each(GpuIslands::synchronize)
    }

    /// Per phase the slowest GPU's time (the GPUs run the phases side by side).
    fn phase_times(&mut self) -> Result<PhaseTimes> {
        let mut times = PhaseTimes::default();
        for part in &mut self.parts {
            let t = part.phase_times()?;
            times.genetic_manipulation = times.genetic_manipulation.max(t.genetic_manipulation);
            times.evaluation = times.evaluation.max(t.evaluation);
            times.replacement = times.replacement.max(t.replacement);
            times.migration = times.migration.max(t.migration);
        }
        Ok(times)
    }
}

/// [`super::island::run`] with the ring split over `gpus`.
pub fn run(gpus: &[Gpu], instance: &Instance, config: &Config, design: Design) -> Result<RunResult> {
    let evaluator = Evaluator::new(instance);
    run_on(&mut Ring::new(gpus, &evaluator, config, design)?, &evaluator, config)
}

/// [`super::island::self_check`] for the ring: every configuration of several islands, split over as many of `gpus`
/// as it has islands (two islands: one on each of two GPUs), against the CPU reference generation by generation, bit
/// for bit.
pub fn ring_check(gpus: &[Gpu], seed: u64, small: bool, datasets: &Path) -> Result<Vec<CheckLine>> {
    let cases = check_cases(small).into_iter().filter(|c| c.islands >= 2).collect();
    let build: &BuildIslands<'_> = &|evaluator: &Evaluator<'_>, config: &Config, design| -> Result<Box<dyn DeviceIslands + '_>> {
        Ok(Box::new(Ring::new(&gpus[..config.islands.min(gpus.len())], evaluator, config, design)?))
    };
    check_against_reference(cases, seed, datasets, build)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn islands_are_split_as_evenly_as_possible_first_gpus_first() {
        assert_eq!(split(14, 2), vec![7, 7]);
        assert_eq!(split(7, 2), vec![4, 3]);
        assert_eq!(split(5, 3), vec![2, 2, 1]);
        assert_eq!(split(2, 2), vec![1, 1]);
        assert_eq!(split(14, 4).iter().sum::<usize>(), 14);
    }
}
