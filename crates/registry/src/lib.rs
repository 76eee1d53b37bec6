//! # bohf-registry
//!
//! The one crate that names the algorithm crates: it registers the papers' algorithms with the
//! engine's [`Registry`] under the names the specs use ([`builtin`]), with their box modes
//! ([`BoxModeConfig`] and the bounds of [`limits`](bohf_experiments::limits) on a box search) and
//! their memory estimates ([`AlgorithmEntry::with_memory`]). Its entries are the one list of algorithms:
//! `docs/generated/algorithms.md` (`cargo xtask docs`) is written from them.
//!
//! The engine (`bohf-experiments`) defines the interface ([`RegisteredAlgorithm`],
//! [`AlgorithmEntry`], [`Registry`]) and depends on no algorithm crate; everything that builds
//! the papers' algorithms takes the registry this crate returns:
//!
//! ```no_run
//! use bohf_experiments::{Experiment, ExperimentSpec};
//!
//! let spec = ExperimentSpec::from_file("specs/quick.toml")?;
//! let results = Experiment::new(spec, &bohf_registry::builtin())?.run()?;
//! # Ok::<(), bohf_experiments::ExperimentError>(())
//! ```
//!
//! An algorithm joins with a [`RegisteredAlgorithm`] implementation on [`Builtin<ItsType>`]
//! (one `registered!` line below for the usual `XConfig::check()`/`X::new(ctx, valid)` pair, one
//! more for a box mode's) and one entry in [`builtin`], both in this file; registrations that also
//! check costs or a box search are in `impls.rs`. See `docs/extending.md`.
#![warn(missing_docs)]

mod impls;

pub use impls::BoxModeConfig;

use bohf_experiments::QueryKind::{Choice, Duel, Evaluate, Label};
use bohf_experiments::limits::{Allocation, ProblemShape};
#[cfg(doc)]
use bohf_experiments::registry::RegisteredAlgorithm;
use bohf_experiments::registry::{AlgorithmEntry, Registry};
use std::marker::PhantomData;

/// The [`RegisteredAlgorithm`] implementation of the usual pair: `registered!(X, XConfig,
/// ValidXConfig)` (on a finite candidate set) or `registered!(box X, XConfig, ValidXConfig)` (on a
/// box) checks with `XConfig::check()` and builds with `X::new(ctx, valid)`.
macro_rules! registered {
    (@on $domain:ty, $ty:ty, $cfg:ty, $checked:ty) => {
        impl bohf_experiments::registry::RegisteredAlgorithm<$domain> for Builtin<$ty> {
            type Algorithm = $ty;
            type Config = $cfg;
            type Checked = $checked;
            fn check(config: &$cfg) -> bohf_core::Result<$checked> {
                config.check()
            }
            fn build(ctx: &bohf_core::SearchContext<$domain>, config: $checked) -> bohf_core::Result<$ty> {
                <$ty>::new(ctx, config)
            }
        }
    };
    (box $ty:ty, $cfg:ty, $checked:ty) => {
        registered!(@on bohf_core::BoxDomain, $ty, $cfg, $checked);
    };
    ($ty:ty, $cfg:ty, $checked:ty) => {
        registered!(@on bohf_core::FiniteDomain, $ty, $cfg, $checked);
    };
}

registered!(bohf_pfts::PfTs, bohf_pfts::PfTsConfig, bohf_pfts::ValidPfTsConfig);
registered!(bohf_mrlpf::MrLpf, bohf_mrlpf::MrLpfConfig, bohf_mrlpf::ValidMrLpfConfig);
registered!(bohf_baselines::MaxMinLcb, bohf_baselines::MaxMinLcbConfig, bohf_baselines::ValidMaxMinLcbConfig);
registered!(bohf_baselines::GpTs, bohf_baselines::GpTsConfig, bohf_baselines::ValidGpTsConfig);
registered!(bohf_baselines::RandomDuels, bohf_baselines::RandomDuelsConfig, bohf_baselines::ValidRandomDuelsConfig);
registered!(
    box bohf_baselines::RandomDuelsBox,
    bohf_baselines::RandomDuelsConfig,
    bohf_baselines::ValidRandomDuelsConfig
);
registered!(bohf_popbo::PopBo, bohf_popbo::PopBoConfig, bohf_popbo::ValidPopBoConfig);
registered!(bohf_cobol::Cobol, bohf_cobol::CobolConfig, bohf_cobol::ValidCobolConfig);
registered!(bohf_eubo::Eubo, bohf_eubo::EuboConfig, bohf_eubo::ValidEuboConfig);
registered!(bohf_eubo::Qeubo, bohf_eubo::QeuboConfig, bohf_eubo::ValidQeuboConfig);
registered!(bohf_eubo::Dts, bohf_eubo::DtsConfig, bohf_eubo::ValidDtsConfig);

/// The registration of the algorithm type `A` of an algorithm crate: the type the registry
/// implements [`RegisteredAlgorithm`] on (the trait is the engine's and `A` an algorithm crate's,
/// so the implementation needs a type of this crate); it builds an `A`.
pub struct Builtin<A>(PhantomData<fn() -> A>);

/// The papers' algorithms under the names the specs use (see the crate documentation).
///
/// Long because it is the one list of the algorithms (each entry: name, description, box mode,
/// paper, queries, memory estimate); splitting it would make a second list.
pub fn builtin() -> Registry {
    let mut r = Registry::empty();
    // The memory estimates list what grows with n candidates and the horizon T: every
    // kernel method holds the n×n base Gram of the candidates.
    let gram = |s: &ProblemShape| {
        Allocation::matrix(format!("an n×n Gram (n = {})", s.candidates), s.candidates, s.candidates)
    };
    let pairs_t = |s: &ProblemShape| {
        Allocation::matrix(format!("a T×T Gram of the queries (T = {})", s.horizon), s.horizon, s.horizon)
    };
    let square = |s: &ProblemShape, what: &str| {
        Allocation::matrix(format!("{what} (n = {})", s.candidates), s.candidates, s.candidates)
    };
    // The Laplace preference GP (EUBO, qEUBO, DTS) after T queries of q options each: at most
    // m = q·T latent points (at most n on a finite domain) and p = T·q(q − 1)/2 difference rows
    // (a best-of-q choice is written as its q(q − 1)/2 pairs): an m×m Gram, and the p×p matrix
    // B, its inverse and S = Ŵ B⁻¹ Ŵ of the evidence gradient.
    let laplace = move |s: &ProblemShape, q: usize| {
        let m =
            if s.candidates > 0 { s.candidates.min(q.saturating_mul(s.horizon)) } else { q.saturating_mul(s.horizon) };
        let p = s.horizon.saturating_mul(q * (q - 1) / 2);
        vec![
            Allocation::matrix(format!("an m×m latent Gram (m = {m} compared points)"), m, m),
            Allocation::of(
                format!(
                    "three p×p matrices of the difference rows (p = {p}: T = {} queries × {} pairs)",
                    s.horizon,
                    q * (q - 1) / 2
                ),
                3 * std::mem::size_of::<f64>(),
                &[p, p],
            ),
        ]
    };
    // GP-UCB and GP-TS: the Gram, the T×T system of the evaluated points, and its T×n cross-covariance.
    let scalar = move |s: &ProblemShape| {
        vec![
            gram(s),
            pairs_t(s),
            Allocation::matrix(
                format!("a T×n cross-covariance (T = {}, n = {})", s.horizon, s.candidates),
                s.horizon,
                s.candidates,
            ),
        ]
    };
    let entries = [
        AlgorithmEntry::of::<Builtin<bohf_pfts::PfTs>>(
            "pf-ts",
            "PF-TS: Thompson sampling from preferential feedback with double-TS pairing",
        )
        .documented(
            "Lazzaro, Buffelli, Shiu & Vakili (2026), PF-TS, Algorithm 1 (double Thompson sampling from preferences)",
            "duels (x, x′), one per step: the maximisers of two joint posterior samples of the utility",
        )
        .asks(&[Duel])
        .with_memory(move |s| vec![gram(s), square(s, "an n×n sampling factor"), pairs_t(s)]),
        AlgorithmEntry::of::<Builtin<bohf_mrlpf::MrLpf>>(
            "mr-lpf",
            "MR-LPF: multi-round learning from preferences with elimination (Kayal et al. 2025)",
        )
        .documented(
            "Kayal et al. (2025), MR-LPF, Algorithm 1 (multi-round learning from preferences with elimination)",
            "duels, in rounds of N_r = ⌈√(N_{r−1}T)⌉ max-variance pairs of the surviving set M_r",
        )
        .asks(&[Duel])
        .with_memory(move |s| vec![gram(s), square(s, "n×n pair variances"), pairs_t(s)]),
        AlgorithmEntry::of::<Builtin<bohf_baselines::MaxMinLcb>>(
            "maxminlcb",
            "MaxMinLCB: max-min lower confidence bounds on duels (Pásztor et al. 2024)",
        )
        .documented(
            "Pásztor, Krause et al. (2024), MaxMinLCB (as used by the MR-LPF and PF-TS experiments)",
            "duels, one per step: the max–min of the lower confidence bound of P(x ≻ x′)",
        )
        .asks(&[Duel])
        .with_memory(move |s| vec![gram(s), square(s, "an n×n matrix of pair bounds"), pairs_t(s)]),
        AlgorithmEntry::of::<Builtin<bohf_baselines::GpUcb>>("gp-ucb", "GP-UCB with scalar feedback")
            .with_box::<Builtin<bohf_baselines::GpUcbBox>>()
            .documented(
                "Srinivas et al. (2010), GP-UCB with scalar feedback (baseline)",
                "scalar evaluations f(x) + noise, one per step: argmax of m + βσ (on a box: multistart L-BFGS-B from a Sobol design, `GpUcbBox`)",
            )
            .asks(&[Evaluate])
            .with_memory(scalar),
        AlgorithmEntry::of::<Builtin<bohf_baselines::GpTs>>("gp-ts", "GP-TS with scalar feedback")
            .documented(
                "Chowdhury & Gopalan (2017), GP-TS with scalar feedback (baseline of PF-TS)",
                "scalar evaluations, one per step: the maximiser of a joint posterior sample",
            )
            .asks(&[Evaluate])
            .with_memory(scalar),
        AlgorithmEntry::of::<Builtin<bohf_baselines::RandomDuels>>("random", "uniformly random duels")
            .with_box::<Builtin<bohf_baselines::RandomDuelsBox>>()
            .documented("baseline", "uniformly random duels (on a box: uniform draws, `RandomDuelsBox`)")
            .asks(&[Duel]),
        AlgorithmEntry::of::<Builtin<bohf_popbo::PopBo>>(
            "pop-bo",
            "POP-BO: optimistic preferential BO with likelihood-ratio confidence sets (Xu et al. 2024)",
        )
        .with_box::<Builtin<bohf_popbo::PopBoBox>>()
        .documented(
            "Xu et al. (2024), POP-BO, Algorithm 1 (principled optimistic preferential BO, likelihood-ratio confidence sets)",
            "duels (x_t, x_{t−1}), one per step: the new point against the previous one, x_t maximising the optimistic advantage (on a box: multistart projected gradient ascent, `PopBoBox`)",
        )
        .asks(&[Duel])
        .with_memory(move |s| vec![gram(s), pairs_t(s)]),
        AlgorithmEntry::of::<Builtin<bohf_cobol::Cobol>>(
            "cobol",
            "COBOL: BO with an expert's accept/reject labels, no-harm and handover tests (Xu, Adachi et al. 2024)",
        )
        .with_box::<Builtin<bohf_cobol::Cobol>>()
        .documented(
            "Xu, Adachi, Jones & Osborne (2024), COBOL, Algorithm 1 (also COBOHL, Algorithm 2, and vanilla GP-LCB with `variant`)",
            "labels (accept/reject) of x^c while g's interval is wider than g_thr, and evaluations f(x) of x^c or x^u; a rejected point is not evaluated",
        )
        .asks(&[Label, Evaluate])
        .with_memory(move |s| vec![pairs_t(s)])
        .maps_to_unit_cube(),
        AlgorithmEntry::of::<Builtin<bohf_compgpucb::CompGpUcb>>(
            "comp-gp-ucb",
            "COMP-GP-UCB: cheap duels against random opponents and direct queries of f (Xu, Joshi, Singh & Dubrawski 2020)",
        )
        .with_box::<Builtin<bohf_compgpucb::CompGpUcbBox>>()
        .documented(
            "Xu, Joshi, Singh & Dubrawski (2020), COMP-GP-UCB, Algorithm 1 (known ζ; Algorithm 2 with `unknown_zeta`)",
            "duels (x_t, x′) against uniformly random opponents x′ while β^r σ^r(x_t) ≥ γ, and evaluations f(x_t) of the constrained UCB maximiser otherwise (on a box: multistart L-BFGS-B, phase 2 by screening and a penalised local search kept feasible, `CompGpUcbBox`)",
        )
        .asks(&[Duel, Evaluate])
        .with_memory(move |s| vec![pairs_t(s)]),
        AlgorithmEntry::of::<Builtin<bohf_compgpucb::Kss>>(
            "kss",
            "Kernel Self-Sparring: duels of two GP Thompson samples' argmaxes (Sui et al. 2017; COMP-GP-UCB's baseline)",
        )
        .documented(
            "Sui, Zhuang, Burdick & Yue (2017), Kernel Self-Sparring, as COMP-GP-UCB's duels-only baseline (Xu et al. 2020, Sec. 4.2)",
            "duels only: the argmaxes of two independent joint posterior samples of a GP on the 0/1 duel outcomes (after ⌊Λ₀/λ_c⌋ random duels)",
        )
        .asks(&[Duel])
        // Two observations per duel: a 2T×2T system, and the n×n posterior covariance it samples.
        .with_memory(move |s| {
            vec![
                Allocation::matrix(format!("a 2T×2T Gram (T = {})", s.horizon), 2 * s.horizon, 2 * s.horizon),
                square(s, "an n×n posterior covariance"),
            ]
        }),
        AlgorithmEntry::of::<Builtin<bohf_compgpucb::MfGpUcb>>(
            "mf-gp-ucb",
            "MF-GP-UCB with duels as the low fidelity (Kandasamy et al. 2016; COMP-GP-UCB's baseline)",
        )
        .documented(
            "Kandasamy et al. (2016), MF-GP-UCB with the MF code's switching and γ/ζ rules, duels as the low fidelity (Xu et al. 2020, Sec. 4.2)",
            "duels (x_t, x′) against uniformly random opponents x′ while β σ¹(x_t) ≥ γ, else evaluations f(x_t); x_t maximises min{UCB¹ + ζ, UCB²}",
        )
        .asks(&[Duel, Evaluate])
        .with_memory(move |s| vec![pairs_t(s)]),
        AlgorithmEntry::of::<Builtin<bohf_eubo::Eubo>>(
            "eubo",
            "EUBO: the duel maximising the expected utility of the best option, on the Laplace preference GP",
        )
        .with_box::<Builtin<bohf_eubo::Eubo>>()
        .documented(
            "Lin, Astudillo, Frazier & Bakshy (2022), EUBO, eq. (6) (closed form by Clark 1961); Laplace preference GP of Chu & Ghahramani (2005)",
            "duels (x, x′), one per step: argmax E[max(f(x), f(x′))] over screened candidate pairs (on a box: multistart L-BFGS over the product box)",
        )
        .asks(&[Duel])
        .with_memory(move |s| laplace(s, 2))
        .maps_to_unit_cube(),
        AlgorithmEntry::of::<Builtin<bohf_eubo::Qeubo>>(
            "qeubo",
            "qEUBO: Monte Carlo expected utility of the best of q options with fixed base samples, on the Laplace preference GP (duels at q = 2, best-of-q choices at q ≥ 3)",
        )
        .with_box::<Builtin<bohf_eubo::Qeubo>>()
        .documented(
            "Astudillo, Lin, Bakshy & Frazier (2023), qEUBO, eq. (2) (sample-average approximation); choices learnt by the multinomial-logit likelihood in the Laplace GP",
            "one query per step: at q = 2 a duel, the argmax of the qEUBO sample average over screened candidate pairs; at q ≥ 3 a best-of-q choice, exact over the q-subsets of the screened candidates (at most 4096) or greedy with swaps; on a box: multistart L-BFGS over the product box",
        )
        .asks(&[Duel])
        // Best-of-q choices at q ≥ 3.
        .may_ask(&[Choice])
        .with_memory_for_params(move |s, params| {
            // q from the params (default 2, bounded by the config's check to [2, MAX_Q]).
            let q = params
                .get("q")
                .and_then(toml::Value::as_integer)
                .and_then(|q| usize::try_from(q).ok())
                .unwrap_or(bohf_eubo::QeuboConfig::default().q)
                .clamp(2, bohf_eubo::MAX_Q);
            laplace(s, q)
        })
        .maps_to_unit_cube(),
        AlgorithmEntry::of::<Builtin<bohf_eubo::Dts>>(
            "dts",
            "DTS: dueling Thompson sampling on the Laplace preference GP (González et al. 2017)",
        )
        .with_box::<Builtin<bohf_eubo::Dts>>()
        .documented(
            "González, Dai, Damianou & Lawrence (2017), PBO, dueling Thompson sampling (§4.3), on the Laplace utility GP",
            "duels (x, x′), one per step: x the argmax of a joint posterior sample of f, x′ the argmax of the variance of P(x ≻ x′) (on a box: over a Sobol pool)",
        )
        .asks(&[Duel])
        .with_memory(move |s| {
            let mut parts = laplace(s, 2);
            parts.push(square(s, "an n×n posterior covariance"));
            parts
        })
        .maps_to_unit_cube(),
    ];
    for e in entries {
        r.register(e).expect("built-in names are distinct");
    }
    r
}
