//! Phase times from CUDA events, read every [`CLOCK_WINDOW`] generations (the module documentation's Timing).

use std::time::Duration;

use cudarc::driver::{CudaEvent, sys::CUevent_flags};

use crate::error::GpuError;
use crate::gpu::{Gpu, launch_err};
use crate::library::island::PhaseTimes;

/// Generations whose phase events are recorded before their times are read (reading waits for the GPU).
pub const CLOCK_WINDOW: usize = 64;

/// Phase times from CUDA events: per generation, one before genetic manipulation and one after each phase (after
/// migration only when it migrated; none after evaluation where manipulation evaluates, whose evaluation time is then
/// part of manipulation's); read and summed every [`CLOCK_WINDOW`] generations.
pub(super) struct PhaseClock {
    pub(super) events: Vec<[CudaEvent; 5]>,
    /// Genetic manipulation evaluates the offspring ([`Design::Fused`]): no event after evaluation.
    ///
    /// [`Design::Fused`]: super::Design::Fused
    fused: bool,
    pub(super) migrated: [bool; CLOCK_WINDOW],
    /// Generations recorded and not yet read.
    pub(super) pending: usize,
    pub(super) times: PhaseTimes,
}

impl PhaseClock {
    pub(super) fn new(gpu: &Gpu, fused: bool) -> Result<PhaseClock, GpuError> {
        let e = launch_err("island phase events");
        let event = || gpu.ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT)).map_err(&e);
        let events = (0..CLOCK_WINDOW).map(|_| Ok([event()?, event()?, event()?, event()?, event()?])).collect::<Result<_, GpuError>>()?;
        Ok(PhaseClock { events, fused, migrated: [false; CLOCK_WINDOW], pending: 0, times: PhaseTimes::default() })
    }

    /// Adds the phase times of the pending generations (waits for them).
    pub(super) fn collect(&mut self) -> Result<(), GpuError> {
        let e = launch_err("island phase events");
        let span = |from: &CudaEvent, to: &CudaEvent| {
            from.elapsed_ms(to).map(|ms| Duration::from_secs_f64(f64::from(ms.max(0.0)) / 1e3)).map_err(&e)
        };
        for (events, &migrated) in self.events.iter().zip(&self.migrated).take(self.pending) {
            self.times.genetic_manipulation += span(&events[0], &events[1])?;
            let evaluated = if self.fused { &events[1] } else { &events[2] };
            self.times.evaluation += span(&events[1], evaluated)?;
            self.times.replacement += span(evaluated, &events[3])?;
            if migrated {
                self.times.migration += span(&events[3], &events[4])?;
            }
        }
        self.pending = 0;
        Ok(())
    }
}
