//! The reference algorithm library: CPU implementations every GPU kernel is
//! checked against.

pub mod biohel;
pub mod biohel_learning;
pub mod boa;
pub mod dataset;
pub mod ecga;
pub mod island;
pub mod knapsack;
pub mod nonseparable;
pub mod philox;
pub mod trap;
