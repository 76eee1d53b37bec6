//! # bohf-problems
//!
//! Test problems for bohf, all in the **maximisation convention** (functions that are published
//! as minimisation problems are negated, in one place: [`Sense::to_max`]):
//!
//! * [`functions`]: the benchmark functions the five papers use (Ackley, Branin, Hartmann, Levy,
//!   Michalewicz, …, CurrinExp and Borehole with two fidelities), behind the [`TestFunction`] trait,
//!   each with its formula, domain and known optimum, and a lookup by name ([`by_name`]).
//! * [`grid`]: [`GridFunction`], a utility tabulated on a finite candidate set.
//! * [`rescale`]: the papers' affine rescalings of utilities over a grid (to [−3, 3], of the
//!   difference matrix, standardisation), with the coefficients exposed.
//! * [`rkhs`]: kernel-ridge means through knots (MR-LPF, PF-TS), POP-BO's minimum-norm
//!   interpolants, and joint GP-prior draws on a candidate set.
//! * [`datasets`]: loaders for real data (the OCx24 catalyst table, the MAGIC telescope data), with
//!   typed [`DataError`]s.
//! * [`svm`]: COMP-GP-UCB's SVM-tuning task on MAGIC (an RBF C-SVM trained by SMO).
//! * [`popbo`]: POP-BO's problems (Table 2's standardised 2-D functions, GP-sample instances,
//!   6-D Ackley); [`thermal`]: Fanger's PMV/PPD (ISO 7730) and the thermal-comfort problems.
//! * [`presets`]: the papers' 1-D and catalyst problems on their candidate sets, with the authors'
//!   rescalings.
//! * [`respondents`]: simulated people answering queries: BTL/Thurstone duels, noisy values,
//!   COBOL's synthetic expert, COMP-GP-UCB's biased comparisons, behind the [`Respondent`] trait.
//!
//! All randomness comes from a caller-given RNG, so a seeded stream reproduces every draw.
//!
//! ```
//! use bohf_core::{rng, Answer, FiniteDomain, Query};
//! use bohf_problems::{by_name, DuelModel, DuelRespondent, GridFunction, Respondent, Rescaled};
//!
//! // 1-D Ackley tabulated on 100 points of [−5, 5] and mapped to [−3, 3] (MaxMinLCB's setting).
//! let ackley = by_name("ackley", Some(1))?;
//! let grid = FiniteDomain::linspace(-5.0, 5.0, 100)?;
//! let utility = GridFunction::tabulate(&Rescaled::to_range_on(ackley, &grid, -3.0, 3.0)?, &grid)?;
//! let (best, worst) = (utility.argmax(), 0);
//!
//! // A BTL respondent answers duels between candidates.
//! let mut person = DuelRespondent::new(utility.clone(), DuelModel::btl())?;
//! let query = Query::Duel(grid.point(best)?, grid.point(worst)?);
//! let answer = person.answer(&query, &mut rng::seeded(7))?;
//! assert!(matches!(answer, Answer::Duel { .. }));
//! # Ok::<(), bohf_core::Error>(())
//! ```
#![warn(missing_docs)]

pub mod datasets;
pub mod functions;
pub mod grid;
pub mod popbo;
pub mod presets;
pub mod rescale;
pub mod respondents;
pub mod rkhs;
pub mod svm;
pub mod thermal;

pub use datasets::{DataError, MagicData, Ocx24Filter, load_magic, load_ocx24};
pub use functions::{FunctionSpec, KnownOptimum, PublishedFigures, Sense, TestFunction, by_name, low_fidelity};
pub use grid::GridFunction;
pub use presets::{AckleySign, Scaling};
pub use rescale::{Affine, Rescaled};
pub use respondents::{
    BiasedComparisons, Combined, DuelModel, DuelRespondent, MvnBeliefExpert, NoisyValue, Respondent, SyntheticExpert,
    Utility,
};
pub use rkhs::{GpPriorSampler, RkhsFunction, gp_sample, min_norm_interpolant};
