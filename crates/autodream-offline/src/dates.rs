//! Relative date resolution (placeholder: being built).
