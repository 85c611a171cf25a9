//! What every paper's spec holds and how the runner sees it, whatever the
//! paper: [`PaperSpec`] with the macros that implement it and declare a
//! profile's common keys, [`SpecOutline`] and [`ProfileAbout`].

use super::{ClaimSpec, PaperMeta, SpecFile};
use crate::error::SpecError;
use serde::de::DeserializeOwned;
use std::collections::BTreeMap;

/// What every paper's spec holds — `[paper]`, `[profiles.*]` (each with
/// `description` and `smoke`), `[[claims]]` — and its own validation (values
/// that parse but cannot run), so that loading a paper
/// ([`crate::experiments::load_spec`]) and the runner's view of it
/// ([`SpecOutline`]) are written once. [`paper_spec!`] implements it.
pub trait PaperSpec: DeserializeOwned {
    type Profile;
    fn paper(&self) -> &PaperMeta;
    fn profiles(&self) -> &BTreeMap<String, Self::Profile>;
    fn claims(&self) -> &[ClaimSpec];
    /// What the profile says of itself.
    fn about(profile: &Self::Profile) -> ProfileAbout;
    fn validate(&self, file: &SpecFile) -> Result<(), SpecError>;
}

/// Implements [`PaperSpec`] for a spec type with fields `paper`, `profiles` and
/// `claims`, whose profile type has `description` and `smoke`, checked by
/// `validate(file, spec)`.
#[macro_export]
macro_rules! paper_spec {
    ($spec:ty, $profile:ty, $validate:path) => {
        impl $crate::spec::PaperSpec for $spec {
            type Profile = $profile;
            fn paper(&self) -> &$crate::spec::PaperMeta {
                &self.paper
            }
            fn profiles(&self) -> &std::collections::BTreeMap<String, $profile> {
                &self.profiles
            }
            fn claims(&self) -> &[$crate::spec::ClaimSpec] {
                &self.claims
            }
            fn about(p: &$profile) -> $crate::spec::ProfileAbout {
                $crate::spec::ProfileAbout { description: p.description.clone(), smoke: p.smoke }
            }
            fn validate(&self, file: &$crate::spec::SpecFile) -> Result<(), $crate::error::SpecError> {
                $validate(file, self)
            }
        }
    };
}

/// Declares a paper's `[profiles.*]` table: the fields every profile has
/// (`description`, `smoke`, read by [`paper_spec!`]) and then the paper's own;
/// unknown keys are refused.
#[macro_export]
macro_rules! paper_profile {
    ($(#[$attr:meta])* $vis:vis struct $name:ident { $($fields:tt)* }) => {
        $(#[$attr])*
        #[derive(Debug, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        $vis struct $name {
            /// One line for `evorepro list` and `--dry-run`: what the profile is for.
            #[serde(default)]
            pub description: Option<String>,
            /// A smoke test of the harness: its records never decide a paper's claim.
            #[serde(default)]
            pub smoke: bool,
            $($fields)*
        }
    };
}

/// A loaded spec as the runner sees it, whatever the paper: its `[paper]`
/// table, profiles and claims.
pub trait SpecOutline {
    fn meta(&self) -> &PaperMeta;
    fn profile_names(&self) -> Vec<String>;
    /// What a profile is for (the default for one the spec lacks).
    fn about(&self, profile: &str) -> ProfileAbout;
    fn claim_specs(&self) -> Vec<&ClaimSpec>;
}

impl<S: PaperSpec> SpecOutline for S {
    fn meta(&self) -> &PaperMeta {
        self.paper()
    }
    fn profile_names(&self) -> Vec<String> {
        self.profiles().keys().cloned().collect()
    }
    fn about(&self, profile: &str) -> ProfileAbout {
        self.profiles().get(profile).map(S::about).unwrap_or_default()
    }
    fn claim_specs(&self) -> Vec<&ClaimSpec> {
        self.claims().iter().collect()
    }
}

/// What a profile is for, besides the cases it plans (keys `description` and
/// `smoke` of every `[profiles.*]` table; neither counts in the spec's hash).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProfileAbout {
    pub description: Option<String>,
    /// A smoke test of the harness (the `quick` profiles): its records never
    /// decide a paper's claim ([`crate::claims::smoke_gate`]).
    pub smoke: bool,
}
