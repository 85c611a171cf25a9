//! The reference algorithm library: CPU implementations every GPU kernel is
//! checked against.

pub mod biohel;
pub mod boa;
pub mod dataset;
pub mod ecga;
pub mod nonseparable;
pub mod trap;
