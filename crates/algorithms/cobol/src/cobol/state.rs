//! COBOL's saved state ([`Optimizer::save_state`]): what a checkpoint of an unfinished run keeps,
//! so that a run of many labels (hours of conic programs) continues where it stopped.

use super::{Cobol, Pt, Space};
use crate::DualRule;
use bohf_core::{Error, Optimizer, Point, Result};
use bohf_kernels::{KernelKind, Stationary};
use serde::{Deserialize, Serialize};

/// The format's version: a state of another version is refused, not misread.
const VERSION: u32 = 1;

/// A kernel as saved (the start of f's last fit).
#[derive(Debug, Serialize, Deserialize)]
struct KernelState {
    kind: KernelKind,
    variance: f64,
    lengthscales: Vec<f64>,
}

impl KernelState {
    fn of(k: &Stationary) -> Self {
        Self { kind: k.kind(), variance: k.variance(), lengthscales: k.lengthscales().to_vec() }
    }

    /// The kernel, validated as [`Stationary`]'s constructors validate.
    fn kernel(&self) -> Result<Stationary> {
        match self.lengthscales.as_slice() {
            [l] => Stationary::new(self.kind, *l)?.with_variance(self.variance),
            ls => Stationary::new(self.kind, 1.0)?.with_variance(self.variance)?.with_ard(ls.to_vec()),
        }
    }
}

/// Everything of [`Cobol`] that its history has changed (the rest is its configuration).
#[derive(Debug, Serialize, Deserialize)]
struct State {
    version: u32,
    /// The algorithm's display name, so that another variant's state is refused.
    algorithm: String,
    /// (x, candidate index, f = −u).
    evaluations: Vec<(Vec<f64>, Option<usize>, f64)>,
    /// (x, reject).
    labels: Vec<(Vec<f64>, bool)>,
    initial_label_queries: usize,
    initial_done: bool,
    lambda: f64,
    norm_bound: f64,
    c_alpha: f64,
    iteration: usize,
    expert_queries: usize,
    /// (x, candidate index) of the evaluation awaited after an accepted label.
    awaiting_evaluation: Option<(Vec<f64>, Option<usize>)>,
    /// The start kernel of f's last fit and the number of evaluations it was fitted on.
    model_fit: Option<(KernelState, usize)>,
    /// Where g's last MLEs ended ([`crate::model::MleStarts`]); absent in states saved before
    /// 2026-11-30 (the next MLE then starts cold).
    #[serde(default)]
    mle_starts: crate::model::MleStarts,
    /// [`crate::Variant::Pinpoint`]: the accepted draw awaiting its iteration's decision.
    #[serde(default)]
    pinpointed: Option<(Vec<f64>, Option<usize>)>,
    /// [`crate::Variant::Pinpoint`]: the draws made for the current pinpoint.
    #[serde(default)]
    pinpoint_draws: usize,
}

fn bad(reason: impl Into<String>) -> Error {
    Error::invalid("state", reason)
}

pub(super) fn save(c: &Cobol) -> Result<String> {
    if c.pending.is_some() {
        return Err(bad("a suggestion is pending: COBOL saves its state only between steps (after an answer)"));
    }
    let model_fit = match &c.model_fit {
        Some((start, n)) => {
            let saved = KernelState::of(start);
            // The restored fit must start from the same kernel, to the bit.
            if saved.kernel()? != *start {
                return Err(bad(format!("the start kernel {start:?} does not survive saving")));
            }
            Some((saved, *n))
        }
        None => None,
    };
    let state = State {
        version: VERSION,
        algorithm: c.name().to_string(),
        evaluations: c.evals.iter().map(|(p, f)| (p.x.clone(), p.index, *f)).collect(),
        labels: c.labels.clone(),
        initial_label_queries: c.initial_label_queries,
        initial_done: c.initial_done,
        lambda: c.lambda,
        norm_bound: c.norm_bound,
        c_alpha: c.c_alpha,
        iteration: c.iteration,
        expert_queries: c.expert_queries,
        awaiting_evaluation: c.awaiting_evaluation.as_ref().map(|p| (p.x.clone(), p.index)),
        model_fit,
        mle_starts: c.mle_starts.clone(),
        pinpointed: c.pinpointed.as_ref().map(|p| (p.x.clone(), p.index)),
        pinpoint_draws: c.pinpoint_draws,
    };
    // serde_json with float_roundtrip: every f64 is read back to the same bits.
    serde_json::to_string(&state).map_err(|e| bad(format!("cannot write COBOL's state: {e}")))
}

/// A saved point, checked against the domain (a candidate's index and coordinates must agree).
fn point(c: &Cobol, what: &str, x: &[f64], index: Option<usize>) -> Result<Pt> {
    let p = match (index, &c.space) {
        (Some(i), Space::Finite(_)) => Point::candidate(i, x.to_vec()),
        (None, Space::Box(..)) => Point::continuous(x.to_vec()),
        _ => return Err(bad(format!("{what}: a point of another kind of domain"))),
    };
    // Checks a candidate's index and coordinates, or a box point's bounds.
    c.checked(&p).map_err(|e| bad(format!("{what}: {e}")))
}

/// Restores into `target` (freshly built); on an error `target` is unchanged.
pub(super) fn restore(target: &mut Cobol, text: &str) -> Result<()> {
    let mut c = target.clone();
    let s: State = serde_json::from_str(text).map_err(|e| bad(format!("not a saved COBOL state: {e}")))?;
    if s.version != VERSION {
        return Err(bad(format!("saved by format version {}, this build reads version {VERSION}", s.version)));
    }
    if s.algorithm != c.name() {
        return Err(bad(format!("saved by {}, restored into {}", s.algorithm, c.name())));
    }
    if c.pending.is_some() || !c.evals.is_empty() || !c.labels.is_empty() || c.initial_label_queries > 0 {
        return Err(bad("restore into a freshly built optimizer (this one has already made queries)"));
    }
    let finite = |name: &str, v: f64| {
        if v.is_finite() { Ok(v) } else { Err(bad(format!("{name} must be finite, got {v}"))) }
    };
    let mut evals = Vec::with_capacity(s.evaluations.len());
    for (k, (x, index, f)) in s.evaluations.iter().enumerate() {
        evals.push((point(&c, &format!("evaluation {k}"), x, *index)?, finite("an evaluated f", *f)?));
    }
    let d = c.scaling.dim();
    for (k, (x, _)) in s.labels.iter().enumerate() {
        if x.len() != d || x.iter().any(|v| !v.is_finite()) {
            return Err(bad(format!("label {k}: {x:?} is not a finite point of dimension {d}")));
        }
    }
    let awaiting = match &s.awaiting_evaluation {
        Some((x, index)) => Some(point(&c, "the awaited evaluation", x, *index)?),
        None => None,
    };
    let pinpointed = match &s.pinpointed {
        Some((x, index)) => Some(point(&c, "the pinpoint", x, *index)?),
        None => None,
    };
    // The paper's projection keeps λ ≥ 0; λ < 0 is a state the unprojected dual reaches (departure 4).
    if finite("lambda", s.lambda)? < 0.0 && c.config.dual == DualRule::Projected {
        return Err(bad(format!("lambda must be non-negative under the projected dual (Eq. (5)), got {}", s.lambda)));
    }
    for (name, v) in [("norm_bound", s.norm_bound), ("c_alpha", s.c_alpha)] {
        if finite(name, v)? < 0.0 {
            return Err(bad(format!("{name} must be non-negative, got {v}")));
        }
    }
    let fit = match &s.model_fit {
        Some((k, n)) if *n <= evals.len() => Some((k.kernel().map_err(|e| bad(format!("f's start kernel: {e}")))?, *n)),
        Some((_, n)) => return Err(bad(format!("f's fit used {n} evaluations, but {} are saved", evals.len()))),
        None => None,
    };
    c.evals = evals;
    c.labels = s.labels;
    c.initial_label_queries = s.initial_label_queries;
    c.initial_done = s.initial_done;
    (c.lambda, c.norm_bound, c.c_alpha) = (s.lambda, s.norm_bound, s.c_alpha);
    c.iteration = s.iteration;
    c.expert_queries = s.expert_queries;
    c.awaiting_evaluation = awaiting;
    c.pinpointed = pinpointed;
    c.pinpoint_draws = s.pinpoint_draws;
    c.known_mles.clear();
    c.mle_starts = s.mle_starts;
    c.last_step = None;
    if let Some((start, n)) = fit {
        c.fit_model(start, n)?;
    }
    *target = c;
    Ok(())
}
