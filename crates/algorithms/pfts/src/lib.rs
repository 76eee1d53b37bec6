//! PF-TS: Thompson sampling for BO from preferential feedback, with double-TS pairing.
