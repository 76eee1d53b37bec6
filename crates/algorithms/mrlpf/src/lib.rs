//! MR-LPF: multi-round learning from preference-based feedback.
