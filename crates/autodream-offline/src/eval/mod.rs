//! Evaluation on the LoCoMo benchmark (being built).
