//! A spec value with the place it was written: read as the value itself
//! ([`Deref`]), its span kept for the errors of loading ([`super::SpecFile::invalid`]).

use serde::{Deserialize, Deserializer};
use std::ops::{Deref, Range};

/// A value of a spec and its byte span in the file (TOML's `Spanned`), used as the value.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Spanned<T>(toml::Spanned<T>);

impl<T> Spanned<T> {
    /// `value` written at `span` (a default's: `0..0`).
    pub fn new(span: Range<usize>, value: T) -> Spanned<T> {
        Spanned(toml::Spanned::new(span, value))
    }

    /// Where the value was written (bytes of the spec's text).
    pub fn span(&self) -> Range<usize> {
        self.0.span()
    }

    pub fn into_inner(self) -> T {
        self.0.into_inner()
    }
}

impl<T> Deref for Spanned<T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.0.get_ref()
    }
}

impl<T: std::fmt::Display> std::fmt::Display for Spanned<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Spanned<T> {
    /// TOML's own spanned value (its deserializer records the span of exactly that type).
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        toml::Spanned::<T>::deserialize(d).map(Spanned)
    }
}
