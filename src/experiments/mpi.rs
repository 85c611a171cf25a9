//! `mpirun -np N evorepro reproduce <paper> --profile P` (`--features mpi`):
//! one profile over N MPI ranks, on one host or several.
//!
//! Rank 0 is the only writer and the dispatcher: it checks and opens the run
//! as one process would ([`Run::start`]: the records store, its lock, the
//! ceilings), hands the cases out one at a time, longest first (by case
//! weight), to whichever worker asks, and stores each case's rows through the
//! ordinary [`crate::records::RecordStore`] the moment they arrive, so the
//! records folder has one writer and `--resume` works exactly as in one
//! process. Ranks 1..N are workers: each loads the spec and the cases itself
//! and runs the case it is handed with [`run_one`], sending back the rows
//! ([`crate::records::encode_rows`], exact). Every row gets rank 0's common
//! columns (run id, commit, spec hash, fingerprint), as in one process.
//!
//! Devices: the workers of one host (counted by the node-local communicator,
//! rank 0 not counted) take GPUs 0, 1, … in turn; a worker beyond the host's
//! GPUs is CPU-only. Each case says what it needs ([`super::Paper::resource`]):
//! a worker with a GPU takes the longest GPU case left, else the longest other;
//! a CPU-only worker only cases that need no GPU ([`plan::next_case`]). When no
//! worker has a GPU, every worker runs any case on the CPU, as `--backend cpu`
//! would.
//!
//! A rank that dies ends the job (`mpirun` stops the others); every case
//! stored before stays stored, so the next `--resume` reruns only the cases
//! that were in flight.

use super::plan::{self, Resource};
use super::{Case, Experiment, Finished, Progress, Run, RunOptions, check_run, run_one};
use crate::records;
use anyhow::{Context, Result, bail};
use mpi::collective::{CommunicatorCollectives, SystemOperation};
use mpi::environment::Universe;
use mpi::point_to_point::{Destination, Source};
use mpi::topology::{Communicator, SimpleCommunicator};
use std::time::Instant;

/// Worker → rank 0: ready (one byte: has a GPU).
const HELLO: i32 = 1;
/// Rank 0 → worker: run the case of this index (u64).
const CASE: i32 = 2;
/// Rank 0 → worker: no more cases.
const STOP: i32 = 3;
/// Worker → rank 0: a case's rows (a [`Header`], then [`records::encode_rows`]).
const RESULT: i32 = 4;
/// Worker → rank 0: the case failed (the error's text).
const FAILED: i32 = 5;

/// MPI, when this process was started by an MPI launcher (`mpirun`, `srun`
/// with PMI/PMIx) with more than one rank; None otherwise (one process).
pub fn init() -> Result<Option<Universe>> {
    let launched = ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"].iter().any(|v| std::env::var_os(v).is_some());
    if !launched {
        return Ok(None);
    }
    let universe = mpi::initialize().context("MPI could not be initialised")?;
    Ok((universe.world().size() > 1).then_some(universe))
}

/// This rank's number in the world.
pub fn rank(universe: &Universe) -> i32 {
    universe.world().rank()
}

/// The GPU this worker takes: its place among the workers of its host (rank 0
/// not counted), if the host has that many GPUs. Collective: every rank calls it.
fn node_local_device(world: &SimpleCommunicator) -> Option<usize> {
    let local = world.split_shared(world.rank());
    let mut lowest = 0;
    local.all_reduce_into(&world.rank(), &mut lowest, SystemOperation::min());
    let place = local.rank() - i32::from(lowest == 0);
    let gpus = crate::gpu::probe().unwrap_or(0);
    usize::try_from(place).ok().filter(|&p| p < gpus)
}

/// Runs `exp` over the world's ranks; rank 0 returns what was written, the workers None.
/// Any rank's error aborts the job (records stored so far stay; `--resume` continues).
pub fn reproduce(universe: &Universe, exp: &'static Experiment, opts: &RunOptions) -> Result<Option<Finished>> {
    let world = universe.world();
    if opts.shard.is_some() {
        bail!("--shard splits a profile over separate jobs; over MPI ranks run without it");
    }
    let device = node_local_device(&world);
    let outcome = if world.rank() == 0 { dispatch(&world, exp, opts).map(Some) } else { work(&world, exp, opts, device).map(|()| None) };
    match outcome {
        Ok(done) => Ok(done),
        Err(e) => {
            crate::say!("error on MPI rank {}: {e:#}", world.rank());
            world.abort(1)
        }
    }
}

/// What a worker sends with a case's rows.
struct Header {
    case: u64,
    /// Seconds `run_case` took.
    case_s: f64,
    /// Seconds from sending the previous case's rows to receiving this case (0 for the first).
    wait_s: f64,
    /// Seconds spent encoding the rows.
    encode_s: f64,
}

const HEADER_BYTES: usize = 32;

impl Header {
    fn bytes(&self) -> [u8; HEADER_BYTES] {
        let mut b = [0; HEADER_BYTES];
        b[..8].copy_from_slice(&self.case.to_le_bytes());
        for (i, x) in [self.case_s, self.wait_s, self.encode_s].into_iter().enumerate() {
            b[8 * (i + 1)..8 * (i + 2)].copy_from_slice(&x.to_le_bytes());
        }
        b
    }

    fn read(b: &[u8]) -> Option<Header> {
        let word = |i: usize| -> Option<[u8; 8]> { b.get(8 * i..8 * (i + 1))?.try_into().ok() };
        let float = |i| Some(f64::from_le_bytes(word(i)?));
        Some(Header { case: u64::from_le_bytes(word(0)?), case_s: float(1)?, wait_s: float(2)?, encode_s: float(3)? })
    }
}

/// Rank 0: open the run, hand out the cases longest first, store what comes back.
///
/// The main thread only hands out: it reads a result's header, sends that worker
/// its next case at once, and passes the rows to a storing thread (decoding, the
/// common columns, the Parquet rewrite), so no worker waits while a case is stored.
fn dispatch(world: &SimpleCommunicator, exp: &'static Experiment, opts: &RunOptions) -> Result<Finished> {
    let started = Instant::now();
    let mut run = Run::start(exp, opts)?;
    // Rank 0 only writes: its GPU (opened for the fingerprint and ceilings) is left to a worker.
    drop(run.env.gpu.take());
    let todo: Vec<Case> = run.todo().into_iter().cloned().collect();
    let resources: Vec<Resource> = run.cases.iter().map(|c| run.paper.resource(c)).collect();
    let mut queue: Vec<usize> = todo.iter().map(|c| run.cases.iter().position(|d| d.id == c.id).expect("a planned case")).collect();
    // Longest first: the queue is taken from its end.
    queue.sort_by_key(|&i| (run.cases[i].weight, std::cmp::Reverse(i)));
    let workers = world.size() - 1;
    let mut has_gpu = vec![false; world.size() as usize];
    for _ in 0..workers {
        let (msg, status) = world.any_process().receive_vec_with_tag::<u8>(HELLO);
        has_gpu[status.source_rank() as usize] = msg.first() == Some(&1);
    }
    let gpu_workers = has_gpu.iter().filter(|&&g| g).count();
    if gpu_workers > 0 && (gpu_workers as i32) < workers {
        let cpu_cases = queue.iter().filter(|&&i| resources[i] != Resource::Gpu).count();
        crate::say!(
            "{}: {gpu_workers} of {workers} workers have a GPU; the others take only the {cpu_cases} of {} cases that need none",
            exp.id,
            queue.len()
        );
    }
    let mut failure: Option<String> = None;
    let (mut handout_s, mut encode_s, mut busy_s) = (0.0, 0.0, 0.0);
    // Hands `rank` its next case (a rank without a GPU none that needs one; any when no worker has a GPU),
    // or stops it; whether it got a case.
    let hand_out = |rank: i32, queue: &mut Vec<usize>, failed: bool| -> bool {
        let to = world.process_at_rank(rank);
        let next = if failed { None } else { plan::next_case(queue, &resources, gpu_workers == 0 || has_gpu[rank as usize]) };
        match next {
            Some(i) => {
                to.send_with_tag(&(i as u64).to_le_bytes()[..], CASE);
                true
            }
            None => {
                to.send_with_tag(&[0u8][..], STOP);
                false
            }
        }
    };
    let n_cases = run.cases.len();
    let todo_refs: Vec<&Case> = todo.iter().collect();
    let (cases, writer) = (&run.cases, &mut run.writer);
    let store_s = std::thread::scope(|scope| -> Result<f64> {
        let (results, arrived) = std::sync::mpsc::channel::<(i32, Vec<u8>)>();
        let storing = scope.spawn(move || -> Result<f64> {
            let mut progress = Progress::new(exp.id, &todo_refs);
            let mut spent = 0.0;
            for (rank, msg) in arrived {
                let t = Instant::now();
                let header = Header::read(&msg).with_context(|| format!("a malformed result from MPI rank {rank}"))?;
                let rows = records::decode_rows(&msg[HEADER_BYTES..]).with_context(|| format!("malformed rows from MPI rank {rank}"))?;
                let case = &cases[header.case as usize];
                writer.store_case(case, rows, header.case_s)?;
                spent += t.elapsed().as_secs_f64();
                progress.finished(case);
            }
            progress.clear();
            Ok(spent)
        });
        let mut active = 0;
        for rank in 1..world.size() {
            active += i32::from(hand_out(rank, &mut queue, false));
        }
        while active > 0 && !storing.is_finished() {
            // Polled, not a blocking receive: MPI's blocking receive spins, taking a core from the workers.
            let Some(status) = world.any_process().immediate_probe() else {
                std::thread::sleep(std::time::Duration::from_millis(1));
                continue;
            };
            let rank = status.source_rank();
            let (msg, status) = world.process_at_rank(rank).receive_vec_with_tag::<u8>(status.tag());
            if status.tag() == FAILED {
                failure.get_or_insert_with(|| format!("MPI rank {rank}: {}", String::from_utf8_lossy(&msg)));
                hand_out(rank, &mut queue, true);
                active -= 1;
                continue;
            }
            let header = Header::read(&msg).with_context(|| format!("a malformed result from MPI rank {rank}"))?;
            anyhow::ensure!((header.case as usize) < n_cases, "MPI rank {rank} sent case {}, the profile has {n_cases}", header.case);
            handout_s += header.wait_s;
            encode_s += header.encode_s;
            busy_s += header.case_s;
            // The next case first, so the worker runs while this one is stored.
            if !hand_out(rank, &mut queue, failure.is_some()) {
                active -= 1;
            }
            if results.send((rank, msg)).is_err() {
                break;
            }
        }
        drop(results);
        storing.join().map_err(|_| anyhow::anyhow!("the storing thread panicked"))?
    })?;
    let wall = started.elapsed().as_secs_f64();
    let overhead = handout_s + encode_s;
    crate::say!(
        "{}: {} cases over {workers} workers in {wall:.1} s (the cases' own times add up to {busy_s:.1} s: {:.2}× faster than one after another); \
         case hand-out waits {handout_s:.3} s, row encoding {encode_s:.3} s: {:.2}% of the workers' time; rank 0 decoded and stored \
         the rows in {store_s:.3} s beside them",
        exp.id,
        todo.len(),
        busy_s / wall.max(1e-9),
        100.0 * overhead / (f64::from(workers) * wall).max(1e-9)
    );
    if let Some(why) = failure {
        run.finish()?;
        bail!("{why}");
    }
    run.finish()
}

/// A worker: load the cases, say hello, run what rank 0 hands out until it says stop.
fn work(world: &SimpleCommunicator, exp: &Experiment, opts: &RunOptions, device: Option<usize>) -> Result<()> {
    let mine = RunOptions {
        profile: opts.profile.clone(),
        // A worker beyond its host's GPUs leaves them to the others; without any GPU the choice stands (as its reason).
        backend: if device.is_none() && crate::gpu::probe().unwrap_or(0) > 0 { super::BackendChoice::Cpu } else { opts.backend },
        device: device.unwrap_or(0),
        out: opts.out.clone(),
        resume: opts.resume,
        spec: opts.spec.clone(),
        shard: None,
        max_cases: opts.max_cases,
    };
    let checked = check_run(exp, &mine)?;
    let root = world.process_at_rank(0);
    super::warm_up(checked.paper.as_ref(), &checked.cases.iter().collect::<Vec<_>>(), &checked.env, &format!("rank {}", world.rank()))?;
    root.send_with_tag(&[u8::from(checked.env.gpu.is_some())][..], HELLO);
    // Until a result is sent: the wait for the first case is rank 0's checks and ceilings, as in one process.
    let mut asked: Option<Instant> = None;
    loop {
        let (msg, status) = root.receive_vec::<u8>();
        if status.tag() == STOP {
            return Ok(());
        }
        let wait_s = asked.map_or(0.0, |t| t.elapsed().as_secs_f64());
        let index = u64::from_le_bytes(msg.get(..8).and_then(|b| b.try_into().ok()).context("a malformed case from rank 0")?);
        let case = checked.cases.get(index as usize).with_context(|| format!("rank 0 sent case {index}, the profile has fewer"))?;
        match run_one(checked.paper.as_ref(), case, &checked.env) {
            Ok((rows, case_s)) => {
                let encoding = Instant::now();
                let body = records::encode_rows(&rows);
                let encode_s = encoding.elapsed().as_secs_f64();
                let mut msg = Header { case: index, case_s, wait_s, encode_s }.bytes().to_vec();
                msg.extend(body);
                asked = Some(Instant::now());
                root.send_with_tag(&msg[..], RESULT);
            }
            Err(e) => root.send_with_tag(format!("{e:#}").as_bytes(), FAILED),
        }
    }
}
