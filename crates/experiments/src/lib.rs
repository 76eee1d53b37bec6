//! Experiments for bohf: TOML specs, a parallel deterministic runner, regret metrics, results and plots.
