//! Secret redaction (placeholder: being built).
