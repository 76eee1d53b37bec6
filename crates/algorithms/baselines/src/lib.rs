//! Baselines for bohf: MaxMinLCB, GP-UCB, GP-TS and uniform random duels.
