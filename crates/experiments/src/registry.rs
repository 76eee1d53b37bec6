//! The algorithm registry: a name in a spec → the algorithm's config, deserialised from the spec's
//! `params` table and validated → a boxed [`Optimizer`] built for the problem's [`SearchContext`].
//!
//! [`Registry::builtin`] holds the papers' algorithms under the names the specs use; its entries
//! are the one list of them: `docs/generated/algorithms.md` (`cargo xtask docs`) is written from
//! them (name, description, paper, queries, and the config's defaults and field docs).
//!
//! An algorithm joins by implementing [`RegisteredAlgorithm`] (its config type, the config's one
//! check returning the validated type, and the constructor that takes it; one `registered!` line)
//! and being added with [`AlgorithmEntry::of`] and [`AlgorithmEntry::documented`]; anything else
//! (e.g. a wrapper with its own parameters) can be registered from closures with
//! [`AlgorithmEntry::new`]. See `docs/extending.md`.
//!
//! **Domain kinds.** Each entry declares, once, the kinds of domain it works on
//! ([`bohf_core::DomainKind`]): a finite candidate set ([`AlgorithmEntry::of`]), a box
//! ([`AlgorithmEntry::of_box`]), or both ([`AlgorithmEntry::with_box`] adds a box mode, e.g.
//! `pop-bo` builds [`bohf_popbo::PopBoBox`] on a box). Each kind has its own config type and
//! constructor. [`AlgorithmEntry::check_for`] and [`AlgorithmEntry::build`] refuse a kind the entry
//! does not declare with an error naming the algorithm and the domain, so no constructor checks it.

use crate::error::{ExperimentError, Result};
use crate::limits::{Allocation, ProblemShape};
use bohf_core::{AtField, BoxDomain, Domain, DomainKind, FiniteDomain, Optimizer, QueryCosts, SearchContext};
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::fmt;
use std::sync::Arc;

/// An optimiser built by the registry.
pub type BoxedOptimizer = Box<dyn Optimizer + Send>;

/// An algorithm the registry can build on a domain of type `D` (a [`FiniteDomain`] by default, or a
/// [`BoxDomain`]): a config type with serde, the config's one check returning the validated type,
/// and a constructor `X::new(&SearchContext<D>, validated)` taking that type (the convention of
/// every algorithm crate: `XConfig::check() -> ValidXConfig`).
pub trait RegisteredAlgorithm<D = FiniteDomain>: Optimizer + Send + Sized + 'static {
    /// The configuration, deserialised from a spec's `params` table (missing keys take their
    /// defaults, unknown keys are errors).
    type Config: DeserializeOwned + Serialize + Default;
    /// The validated configuration, the only thing [`RegisteredAlgorithm::build`] takes.
    type Checked;
    /// Checks the config; an error names the invalid field by its path in the `params` table, as
    /// written in TOML (e.g. `inference.mle.lambda`).
    fn check(config: &Self::Config) -> bohf_core::Result<Self::Checked>;
    /// Builds the algorithm for a problem.
    fn build(ctx: &SearchContext<D>, config: Self::Checked) -> bohf_core::Result<Self>;
    /// Checks the run's costs and budget ([`QueryCosts`], from the spec's `[budget]`; `None`
    /// without one) for what the algorithm `config` needs of them; errors name the budget's field
    /// (`budget.duel`, `budget.evaluate`, `budget.total`). The default needs nothing.
    fn check_costs(config: &Self::Config, costs: Option<&QueryCosts>) -> bohf_core::Result<()> {
        let _ = (config, costs);
        Ok(())
    }
    /// The config struct whose fields document the `box_search` table of a box mode
    /// ([`BoxModeConfig`]), for the generated reference; `None` for modes without one.
    fn box_search_type() -> Option<&'static str> {
        None
    }
}

macro_rules! registered {
    ($ty:ty, $cfg:ty, $checked:ty) => {
        impl RegisteredAlgorithm for $ty {
            type Config = $cfg;
            type Checked = $checked;
            fn check(config: &$cfg) -> bohf_core::Result<$checked> {
                config.check()
            }
            fn build(ctx: &SearchContext, config: $checked) -> bohf_core::Result<Self> {
                <$ty>::new(ctx, config)
            }
        }
    };
}

registered!(bohf_pfts::PfTs, bohf_pfts::PfTsConfig, bohf_pfts::ValidPfTsConfig);
registered!(bohf_mrlpf::MrLpf, bohf_mrlpf::MrLpfConfig, bohf_mrlpf::ValidMrLpfConfig);
registered!(bohf_baselines::MaxMinLcb, bohf_baselines::MaxMinLcbConfig, bohf_baselines::ValidMaxMinLcbConfig);
impl RegisteredAlgorithm for bohf_baselines::GpUcb {
    type Config = bohf_baselines::GpUcbConfig;
    type Checked = bohf_baselines::ValidGpUcbConfig;
    fn check(config: &Self::Config) -> bohf_core::Result<Self::Checked> {
        config.check()
    }
    fn build(ctx: &SearchContext, config: Self::Checked) -> bohf_core::Result<Self> {
        Self::new(ctx, config)
    }
    /// Λ₀ > 0 needs an evaluation cost > 0.
    fn check_costs(config: &Self::Config, costs: Option<&QueryCosts>) -> bohf_core::Result<()> {
        config.initial_values(costs).map(|_| ())
    }
}
registered!(bohf_baselines::GpTs, bohf_baselines::GpTsConfig, bohf_baselines::ValidGpTsConfig);
registered!(bohf_baselines::RandomDuels, bohf_baselines::RandomDuelsConfig, bohf_baselines::ValidRandomDuelsConfig);
registered!(bohf_popbo::PopBo, bohf_popbo::PopBoConfig, bohf_popbo::ValidPopBoConfig);

impl RegisteredAlgorithm<BoxDomain> for bohf_baselines::RandomDuelsBox {
    type Config = bohf_baselines::RandomDuelsConfig;
    type Checked = bohf_baselines::ValidRandomDuelsConfig;
    fn check(config: &Self::Config) -> bohf_core::Result<Self::Checked> {
        config.check()
    }
    fn build(ctx: &SearchContext<BoxDomain>, config: Self::Checked) -> bohf_core::Result<Self> {
        Self::new(ctx, config)
    }
}
registered!(bohf_cobol::Cobol, bohf_cobol::CobolConfig, bohf_cobol::ValidCobolConfig);

/// The registration of an algorithm that reads the run's costs ([`bohf_compgpucb::Costs`]).
macro_rules! costed {
    ($ty:ty, $cfg:ty, $checked:ty) => {
        impl RegisteredAlgorithm for $ty {
            type Config = $cfg;
            type Checked = $checked;
            fn check(config: &$cfg) -> bohf_core::Result<$checked> {
                config.check()
            }
            fn build(ctx: &SearchContext, config: $checked) -> bohf_core::Result<Self> {
                <$ty>::new(ctx, config)
            }
            /// λ_c > 0, λ_l ≥ λ_c, Λ > 0 ([`bohf_compgpucb::Costs::of_context`]).
            fn check_costs(_: &$cfg, costs: Option<&QueryCosts>) -> bohf_core::Result<()> {
                bohf_compgpucb::Costs::of_context(costs).map(|_| ())
            }
        }
    };
}

costed!(bohf_compgpucb::Kss, bohf_compgpucb::KssConfig, bohf_compgpucb::ValidKssConfig);
costed!(bohf_compgpucb::MfGpUcb, bohf_compgpucb::MfGpUcbConfig, bohf_compgpucb::ValidMfGpUcbConfig);

impl RegisteredAlgorithm for bohf_compgpucb::CompGpUcb {
    type Config = bohf_compgpucb::CompGpUcbConfig;
    type Checked = bohf_compgpucb::ValidCompGpUcbConfig;
    fn check(config: &Self::Config) -> bohf_core::Result<Self::Checked> {
        config.check()
    }
    fn build(ctx: &SearchContext, config: Self::Checked) -> bohf_core::Result<Self> {
        Self::new(ctx, config)
    }
    /// λ_c > 0, λ_l ≥ λ_c, Λ > 0 ([`bohf_compgpucb::Costs::of_context`]); Algorithm 2 needs a budget.
    fn check_costs(config: &Self::Config, costs: Option<&QueryCosts>) -> bohf_core::Result<()> {
        let costs = bohf_compgpucb::Costs::of_context(costs)?;
        config.stage_labels(&costs).map(|_| ())
    }
}
registered!(bohf_eubo::Eubo, bohf_eubo::EuboConfig, bohf_eubo::ValidEuboConfig);
registered!(bohf_eubo::Qeubo, bohf_eubo::QeuboConfig, bohf_eubo::ValidQeuboConfig);
registered!(bohf_eubo::Dts, bohf_eubo::DtsConfig, bohf_eubo::ValidDtsConfig);

/// The `params` of an algorithm's box mode: the algorithm's own config `C` (the same keys as on a
/// finite candidate set) plus a `box_search` table `S`, the settings of the continuous search of
/// the box. `pop-bo`: [`bohf_popbo::PopBoConfig`] with [`bohf_popbo::BoxSearchConfig`]
/// (`design`, `samples`, `starts`, `climbs`, `iterations`, `step_tolerance`; `initial` must stay
/// `random`, x₀ is drawn uniformly in the box). `gp-ucb`: [`bohf_baselines::GpUcbConfig`] with
/// [`bohf_optim::MultistartConfig`] (`design`, `samples`, `starts`, `local`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BoxModeConfig<C, S> {
    /// The algorithm's config (every key of the `params` table but `box_search`).
    pub config: C,
    /// The `box_search` table.
    pub box_search: S,
}

impl<C: Serialize, S: Serialize> Serialize for BoxModeConfig<C, S> {
    fn serialize<Se: serde::Serializer>(&self, s: Se) -> std::result::Result<Se::Ok, Se::Error> {
        use serde::ser::Error as _;
        let mut t = toml::Table::try_from(&self.config).map_err(Se::Error::custom)?;
        t.insert("box_search".into(), toml::Value::try_from(&self.box_search).map_err(Se::Error::custom)?);
        t.serialize(s)
    }
}

impl<'de, C: DeserializeOwned, S: DeserializeOwned + Default> serde::Deserialize<'de> for BoxModeConfig<C, S> {
    fn deserialize<De: serde::Deserializer<'de>>(d: De) -> std::result::Result<Self, De::Error> {
        use serde::de::Error as _;
        let mut t = toml::Table::deserialize(d)?;
        let box_search = match t.remove("box_search") {
            Some(v) => v.try_into().map_err(|e: toml::de::Error| De::Error::custom(e.message()))?,
            None => S::default(),
        };
        let config = toml::Value::Table(t).try_into().map_err(|e: toml::de::Error| De::Error::custom(e.message()))?;
        Ok(Self { config, box_search })
    }
}

/// Errors unless `value` ≤ `max`, naming `box_search.<field>` (the bounds of [`crate::limits`] on a
/// box search, for hostile specs).
fn box_bound(field: &str, value: usize, max: usize) -> bohf_core::Result<()> {
    if value > max {
        return Err(bohf_core::Error::invalid(
            bohf_core::field_path("box_search", field),
            format!("at most {max} is supported, got {value}"),
        ));
    }
    Ok(())
}

/// Errors unless `points` × d ≤ [`crate::limits::MAX_BOX_SAMPLE_VALUES`] (the points a box search
/// screens: `design` + `samples`, or COBOL's `candidates`), naming `box_search.<field>`.
fn box_samples(field: &str, points: usize, domain: &BoxDomain) -> bohf_core::Result<()> {
    let d = domain.dim();
    if points.saturating_mul(d) > crate::limits::MAX_BOX_SAMPLE_VALUES {
        return Err(bohf_core::Error::invalid(
            format!("box_search.{field}"),
            format!(
                "{points} screened points × {d} dimensions is more than {} coordinates (the limit)",
                crate::limits::MAX_BOX_SAMPLE_VALUES
            ),
        ));
    }
    Ok(())
}

impl RegisteredAlgorithm<BoxDomain> for bohf_popbo::PopBoBox {
    type Config = BoxModeConfig<bohf_popbo::PopBoConfig, bohf_popbo::BoxSearchConfig>;
    type Checked = (bohf_popbo::ValidPopBoConfig, bohf_popbo::ValidBoxSearchConfig);
    /// POP-BO's check, the search's check, and the bounds of [`crate::limits`] on `starts` and
    /// `iterations`.
    fn check(c: &Self::Config) -> bohf_core::Result<Self::Checked> {
        let s = &c.box_search;
        box_bound("starts", s.starts, crate::limits::MAX_BOX_SEARCH_STEPS)?;
        box_bound("iterations", s.iterations, crate::limits::MAX_BOX_SEARCH_STEPS)?;
        Ok((c.config.check()?, s.check().at("box_search")?))
    }
    /// Refuses (`design` + `samples`) × d above [`crate::limits::MAX_BOX_SAMPLE_VALUES`], then builds.
    fn build(ctx: &SearchContext<BoxDomain>, (config, search): Self::Checked) -> bohf_core::Result<Self> {
        box_samples("samples", search.design.saturating_add(search.samples), ctx.domain())?;
        bohf_popbo::PopBoBox::new(ctx.domain().clone(), config, search)
    }
    fn box_search_type() -> Option<&'static str> {
        Some(short_type_name(std::any::type_name::<bohf_popbo::BoxSearchConfig>()))
    }
}

impl RegisteredAlgorithm<BoxDomain> for bohf_baselines::GpUcbBox {
    type Config = BoxModeConfig<bohf_baselines::GpUcbConfig, bohf_optim::MultistartConfig>;
    type Checked = (bohf_baselines::ValidGpUcbConfig, bohf_optim::ValidMultistartConfig);
    /// GP-UCB's check, the search's check, and the bounds of [`crate::limits`] on `samples`,
    /// `starts` and `local.max_iterations`.
    fn check(c: &Self::Config) -> bohf_core::Result<Self::Checked> {
        let s = &c.box_search;
        box_bound("samples", s.samples, crate::limits::MAX_BOX_SAMPLE_VALUES)?;
        box_bound("starts", s.starts, crate::limits::MAX_BOX_SEARCH_STEPS)?;
        box_bound("local.max_iterations", s.local.max_iterations, crate::limits::MAX_BOX_SEARCH_STEPS)?;
        Ok((c.config.check()?, s.check().at("box_search")?))
    }
    /// Refuses (`design` + `samples`) × d above [`crate::limits::MAX_BOX_SAMPLE_VALUES`], then builds.
    fn build(ctx: &SearchContext<BoxDomain>, (config, search): Self::Checked) -> bohf_core::Result<Self> {
        box_samples("samples", search.design.saturating_add(search.samples), ctx.domain())?;
        bohf_baselines::GpUcbBox::new(ctx.domain().clone(), config, search)?.with_costs(ctx.costs())
    }
    /// Λ₀ > 0 needs an evaluation cost > 0.
    fn check_costs(c: &Self::Config, costs: Option<&QueryCosts>) -> bohf_core::Result<()> {
        c.config.initial_values(costs).map(|_| ())
    }
    fn box_search_type() -> Option<&'static str> {
        Some(short_type_name(std::any::type_name::<bohf_optim::MultistartConfig>()))
    }
}

impl RegisteredAlgorithm<BoxDomain> for bohf_compgpucb::CompGpUcbBox {
    type Config = BoxModeConfig<bohf_compgpucb::CompGpUcbConfig, bohf_compgpucb::CompBoxSearch>;
    type Checked = (bohf_compgpucb::ValidCompGpUcbConfig, bohf_compgpucb::ValidCompBoxSearch);
    /// COMP-GP-UCB's check, the search's check, and the bounds of [`crate::limits`] on `samples`,
    /// `starts` and `local.max_iterations`.
    fn check(c: &Self::Config) -> bohf_core::Result<Self::Checked> {
        let s = &c.box_search;
        box_bound("samples", s.samples, crate::limits::MAX_BOX_SAMPLE_VALUES)?;
        box_bound("starts", s.starts, crate::limits::MAX_BOX_SEARCH_STEPS)?;
        box_bound("local.max_iterations", s.local.max_iterations, crate::limits::MAX_BOX_SEARCH_STEPS)?;
        Ok((c.config.check()?, s.check().at("box_search")?))
    }
    /// Refuses (`design` + `samples`) × d above [`crate::limits::MAX_BOX_SAMPLE_VALUES`], then builds.
    fn build(ctx: &SearchContext<BoxDomain>, (config, search): Self::Checked) -> bohf_core::Result<Self> {
        box_samples("samples", search.design.saturating_add(search.samples), ctx.domain())?;
        bohf_compgpucb::CompGpUcbBox::new(ctx, config, search)
    }
    /// As on candidates.
    fn check_costs(c: &Self::Config, costs: Option<&QueryCosts>) -> bohf_core::Result<()> {
        <bohf_compgpucb::CompGpUcb as RegisteredAlgorithm>::check_costs(&c.config, costs)
    }
    fn box_search_type() -> Option<&'static str> {
        Some(short_type_name(std::any::type_name::<bohf_compgpucb::CompBoxSearch>()))
    }
}

impl RegisteredAlgorithm<BoxDomain> for bohf_cobol::Cobol {
    type Config = BoxModeConfig<bohf_cobol::CobolConfig, bohf_cobol::CobolBoxSearch>;
    type Checked = (bohf_cobol::ValidCobolConfig, bohf_cobol::ValidCobolBoxSearch);
    /// COBOL's check, the search's check, and the bounds of [`crate::limits`] on `candidates`,
    /// `lcb.samples`, `lcb.starts` and `lcb.local.max_iterations`.
    fn check(c: &Self::Config) -> bohf_core::Result<Self::Checked> {
        let s = &c.box_search;
        box_bound("candidates", s.candidates, crate::limits::MAX_BOX_SAMPLE_VALUES)?;
        box_bound("lcb.samples", s.lcb.samples, crate::limits::MAX_BOX_SAMPLE_VALUES)?;
        box_bound("lcb.starts", s.lcb.starts, crate::limits::MAX_BOX_SEARCH_STEPS)?;
        box_bound("lcb.local.max_iterations", s.lcb.local.max_iterations, crate::limits::MAX_BOX_SEARCH_STEPS)?;
        Ok((c.config.check()?, s.check().at("box_search")?))
    }
    /// Refuses `candidates` × d above [`crate::limits::MAX_BOX_SAMPLE_VALUES`], then builds.
    fn build(ctx: &SearchContext<BoxDomain>, (config, search): Self::Checked) -> bohf_core::Result<Self> {
        box_samples("candidates", search.candidates, ctx.domain())?;
        bohf_cobol::Cobol::new_box(ctx, config, search)
    }
    fn box_search_type() -> Option<&'static str> {
        Some(short_type_name(std::any::type_name::<bohf_cobol::CobolBoxSearch>()))
    }
}

/// The box modes of EUBO and qEUBO: the config plus a [`bohf_optim::MultistartConfig`] over the
/// 2d-dimensional product box of the duel, with the bounds of [`crate::limits`] as for `gp-ucb`.
macro_rules! pair_search_box_mode {
    ($ty:ty, $cfg:ty, $valid:ty) => {
        impl RegisteredAlgorithm<BoxDomain> for $ty {
            type Config = BoxModeConfig<$cfg, bohf_optim::MultistartConfig>;
            type Checked = ($valid, bohf_optim::ValidMultistartConfig);
            /// The config's check, the search's check, and the bounds of [`crate::limits`] on
            /// `samples`, `starts` and `local.max_iterations`.
            fn check(c: &Self::Config) -> bohf_core::Result<Self::Checked> {
                let s = &c.box_search;
                box_bound("samples", s.samples, crate::limits::MAX_BOX_SAMPLE_VALUES)?;
                box_bound("starts", s.starts, crate::limits::MAX_BOX_SEARCH_STEPS)?;
                box_bound("local.max_iterations", s.local.max_iterations, crate::limits::MAX_BOX_SEARCH_STEPS)?;
                Ok((c.config.check()?, s.check().at("box_search")?))
            }
            /// Refuses (`design` + `samples`) × 2d above [`crate::limits::MAX_BOX_SAMPLE_VALUES`], then builds.
            fn build(ctx: &SearchContext<BoxDomain>, (config, search): Self::Checked) -> bohf_core::Result<Self> {
                let d = ctx.domain().dim();
                let product = BoxDomain::cube(0.0, 1.0, 2 * d)?;
                box_samples("samples", search.design.saturating_add(search.samples), &product)?;
                <$ty>::new_box(ctx, config, search)
            }
            fn box_search_type() -> Option<&'static str> {
                Some(short_type_name(std::any::type_name::<bohf_optim::MultistartConfig>()))
            }
        }
    };
}

pair_search_box_mode!(bohf_eubo::Eubo, bohf_eubo::EuboConfig, bohf_eubo::ValidEuboConfig);
pair_search_box_mode!(bohf_eubo::Qeubo, bohf_eubo::QeuboConfig, bohf_eubo::ValidQeuboConfig);

/// DTS on a box: the same config (its `pool` of Sobol points is the box search).
impl RegisteredAlgorithm<BoxDomain> for bohf_eubo::Dts {
    type Config = bohf_eubo::DtsConfig;
    type Checked = bohf_eubo::ValidDtsConfig;
    fn check(c: &Self::Config) -> bohf_core::Result<Self::Checked> {
        c.check()
    }
    /// Refuses `pool` × d above [`crate::limits::MAX_BOX_SAMPLE_VALUES`], then builds.
    fn build(ctx: &SearchContext<BoxDomain>, config: Self::Checked) -> bohf_core::Result<Self> {
        let d = ctx.domain().dim();
        if config.pool.saturating_mul(d) > crate::limits::MAX_BOX_SAMPLE_VALUES {
            return Err(bohf_core::Error::invalid(
                "pool",
                format!(
                    "{} pool points × {d} dimensions is more than {} coordinates (the limit)",
                    config.pool,
                    crate::limits::MAX_BOX_SAMPLE_VALUES
                ),
            ));
        }
        bohf_eubo::Dts::new_box(ctx, config)
    }
}

type CheckFn = dyn Fn(&toml::Table, &str) -> Result<()> + Send + Sync;
type MemoryFn = dyn Fn(&ProblemShape, &toml::Table) -> Vec<Allocation> + Send + Sync;
type BuildFn = dyn Fn(&SearchContext<Domain>, &toml::Table) -> bohf_core::Result<BoxedOptimizer> + Send + Sync;
type DefaultsFn = dyn Fn() -> toml::Table + Send + Sync;
type CostsFn = dyn Fn(&toml::Table, Option<&QueryCosts>) -> bohf_core::Result<()> + Send + Sync;

/// How an entry works on one kind of domain: its parameters' check, its constructor, its default
/// parameters and config type.
#[derive(Clone)]
struct Mode {
    kind: DomainKind,
    check: Arc<CheckFn>,
    build: Arc<BuildFn>,
    /// [`RegisteredAlgorithm::check_costs`] on a `params` table (one that does not parse passes:
    /// the parameters' own check names it).
    costs: Arc<CostsFn>,
    defaults: Arc<DefaultsFn>,
    /// The config struct's name (modes of a [`RegisteredAlgorithm`] only).
    config_type: Option<&'static str>,
    /// [`RegisteredAlgorithm::box_search_type`].
    box_search_type: Option<&'static str>,
}

impl Mode {
    /// The mode of a [`RegisteredAlgorithm`] on domains of type `D` (of kind `kind`); `narrow`
    /// takes the typed context out of a context of either kind (`None` never happens: the entry
    /// dispatches on the kind first).
    fn of<D: 'static, A: RegisteredAlgorithm<D>>(
        kind: DomainKind,
        narrow: fn(&SearchContext<Domain>) -> Option<SearchContext<D>>,
    ) -> Self {
        Self {
            kind,
            check: Arc::new(|params, prefix| parse_params::<D, A>(params, prefix).map(|_| ())),
            build: Arc::new(move |ctx, params| {
                let config = parse_params::<D, A>(params, "params").map_err(|e| match e {
                    ExperimentError::Spec { field, reason } => bohf_core::Error::invalid(field, reason),
                    other => bohf_core::Error::invalid("params", other.to_string()),
                })?;
                let ctx = narrow(ctx).ok_or_else(|| bohf_core::Error::invalid("domain", format!("not {kind}")))?;
                if let Ok(raw) = deserialise::<A::Config>(params) {
                    A::check_costs(&raw, ctx.costs())?;
                }
                // What the constructor checks against the problem (e.g. POP-BO's `initial.index`)
                // names a config field, which lives under `params`.
                Ok(Box::new(A::build(&ctx, config).at("params")?) as BoxedOptimizer)
            }),
            costs: Arc::new(|params, costs| match deserialise::<A::Config>(params) {
                Ok(config) => A::check_costs(&config, costs),
                Err(_) => Ok(()),
            }),
            // A config that cannot be written as a TOML table (none of bohf's) has no defaults to show.
            defaults: Arc::new(|| toml::Table::try_from(A::Config::default()).unwrap_or_default()),
            config_type: Some(short_type_name(std::any::type_name::<A::Config>())),
            box_search_type: A::box_search_type(),
        }
    }
}

/// One algorithm of a [`Registry`]: its name, a description, the kinds of domain it works on, and
/// for each how to check its parameters and build it.
#[derive(Clone)]
pub struct AlgorithmEntry {
    name: String,
    description: String,
    /// One per kind of domain, finite first; never empty.
    modes: Vec<Mode>,
    memory: Arc<MemoryFn>,
    /// The paper and what the algorithm queries ([`AlgorithmEntry::documented`]).
    about: Option<(String, String)>,
}

impl fmt::Debug for AlgorithmEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AlgorithmEntry").field("name", &self.name).field("description", &self.description).finish()
    }
}

/// The checked config of `A` from a `params` table; errors name the field's path under `prefix`
/// (`prefix.inference.mle.lambda`), or `prefix` itself when no single key is to blame.
fn parse_params<D, A: RegisteredAlgorithm<D>>(params: &toml::Table, prefix: &str) -> Result<A::Checked> {
    let config: A::Config = deserialise::<A::Config>(params).map_err(|message| {
        let field = blame::<A::Config>(params).map_or(prefix.to_string(), |k| bohf_core::field_path(prefix, &k));
        ExperimentError::spec(field, message)
    })?;
    A::check(&config).map_err(|e| ExperimentError::in_field(prefix, e))
}

fn deserialise<C: DeserializeOwned>(params: &toml::Table) -> std::result::Result<C, String> {
    toml::Value::Table(params.clone()).try_into().map_err(|e: toml::de::Error| e.message().to_string())
}

/// The path (relative to `params`) of the key a deserialisation error is about (serde's messages
/// for a wrong type, e.g. `-1` for a count, do not say which key): innermost keys and array entries
/// first, the first whose replacement by a plain 1, 0.5 or false makes the table deserialise, else
/// the first whose default or removal does. `None` if no single key is to blame.
fn blame<C: DeserializeOwned + Serialize + Default>(params: &toml::Table) -> Option<String> {
    let defaults = toml::Value::Table(toml::Table::try_from(C::default()).unwrap_or_default());
    let root = toml::Value::Table(params.clone());
    let mut keys = Vec::new();
    collect_keys(&root, &mut Vec::new(), &mut keys);
    keys.sort_by_key(|k| std::cmp::Reverse(k.len()));
    let fixes = |key: &[Seg], probe: Option<toml::Value>| {
        let mut v = root.clone();
        replace_at(&mut v, key, probe);
        matches!(v, toml::Value::Table(t) if deserialise::<C>(&t).is_ok())
    };
    let plain = [toml::Value::Integer(1), toml::Value::Float(0.5), toml::Value::Boolean(false)];
    let found = keys
        .iter()
        .find(|k| plain.iter().any(|p| fixes(k, Some(p.clone()))))
        .or_else(|| keys.iter().find(|k| fixes(k, value_at(&defaults, k).cloned()) || fixes(k, None)))?;
    Some(found.iter().fold(String::new(), |path, seg| match seg {
        Seg::Key(k) => bohf_core::field_path(&path, k),
        Seg::Index(i) => bohf_core::field_path(&path, &format!("[{i}]")),
    }))
}

/// A step into a TOML value: a table key or an array index.
#[derive(Clone)]
enum Seg {
    Key(String),
    Index(usize),
}

fn collect_keys(v: &toml::Value, at: &mut Vec<Seg>, out: &mut Vec<Vec<Seg>>) {
    let children: Vec<(Seg, &toml::Value)> = match v {
        toml::Value::Table(t) => t.iter().map(|(k, c)| (Seg::Key(k.clone()), c)).collect(),
        toml::Value::Array(a) => a.iter().enumerate().map(|(i, c)| (Seg::Index(i), c)).collect(),
        _ => return,
    };
    for (seg, child) in children {
        at.push(seg);
        collect_keys(child, at, out);
        out.push(at.clone());
        at.pop();
    }
}

fn value_at<'a>(v: &'a toml::Value, path: &[Seg]) -> Option<&'a toml::Value> {
    path.iter().try_fold(v, |v, seg| match (seg, v) {
        (Seg::Key(k), toml::Value::Table(t)) => t.get(k),
        (Seg::Index(i), toml::Value::Array(a)) => a.get(*i),
        _ => None,
    })
}

/// Sets (`Some`) or removes (`None`; table keys only) the value at `path`.
fn replace_at(v: &mut toml::Value, path: &[Seg], probe: Option<toml::Value>) {
    let Some((last, parents)) = path.split_last() else { return };
    let mut v = v;
    for seg in parents {
        v = match (seg, v) {
            (Seg::Key(k), toml::Value::Table(t)) => match t.get_mut(k) {
                Some(c) => c,
                None => return,
            },
            (Seg::Index(i), toml::Value::Array(a)) => match a.get_mut(*i) {
                Some(c) => c,
                None => return,
            },
            _ => return,
        };
    }
    match (last, v, probe) {
        (Seg::Key(k), toml::Value::Table(t), Some(p)) => {
            t.insert(k.clone(), p);
        }
        (Seg::Key(k), toml::Value::Table(t), None) => {
            t.remove(k);
        }
        (Seg::Index(i), toml::Value::Array(a), Some(p)) if *i < a.len() => a[*i] = p,
        _ => {}
    }
}

impl AlgorithmEntry {
    /// The entry of a [`RegisteredAlgorithm`] on a finite candidate set (add a box mode with
    /// [`AlgorithmEntry::with_box`]).
    pub fn of<A: RegisteredAlgorithm>(name: impl Into<String>, description: impl Into<String>) -> Self {
        Self::with_mode(name, description, Mode::of::<FiniteDomain, A>(DomainKind::Finite, SearchContext::finite))
    }

    /// The entry of a [`RegisteredAlgorithm`] that works on a box only.
    pub fn of_box<A: RegisteredAlgorithm<BoxDomain>>(name: impl Into<String>, description: impl Into<String>) -> Self {
        Self::with_mode(name, description, Mode::of::<BoxDomain, A>(DomainKind::Box, SearchContext::boxed))
    }

    /// The same entry with a box mode: on a box problem it builds `A` from the spec's `params`,
    /// read as `A`'s config. Replaces a box mode given before.
    pub fn with_box<A: RegisteredAlgorithm<BoxDomain>>(mut self) -> Self {
        self.modes.retain(|m| m.kind != DomainKind::Box);
        self.modes.push(Mode::of::<BoxDomain, A>(DomainKind::Box, SearchContext::boxed));
        self
    }

    fn with_mode(name: impl Into<String>, description: impl Into<String>, mode: Mode) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            modes: vec![mode],
            memory: Arc::new(|_, _| Vec::new()),
            about: None,
        }
    }

    /// An entry from closures, on a finite candidate set: `check(params, prefix)` validates a
    /// `params` table (naming fields under `prefix`), `build(ctx, params)` builds the optimiser.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        check: impl Fn(&toml::Table, &str) -> Result<()> + Send + Sync + 'static,
        build: impl Fn(&SearchContext, &toml::Table) -> bohf_core::Result<BoxedOptimizer> + Send + Sync + 'static,
    ) -> Self {
        let build = move |ctx: &SearchContext<Domain>, params: &toml::Table| {
            let ctx = ctx.finite().ok_or_else(|| bohf_core::Error::invalid("domain", "not a finite candidate set"))?;
            build(&ctx, params)
        };
        let mode = Mode {
            kind: DomainKind::Finite,
            check: Arc::new(check),
            build: Arc::new(build),
            costs: Arc::new(|_, _| Ok(())),
            defaults: Arc::new(toml::Table::new),
            config_type: None,
            box_search_type: None,
        };
        Self::with_mode(name, description, mode)
    }

    /// The same entry with what the generated algorithm reference says of it: the paper (and
    /// algorithm number) it implements, and what it queries.
    pub fn documented(mut self, paper: impl Into<String>, queries: impl Into<String>) -> Self {
        self.about = Some((paper.into(), queries.into()));
        self
    }

    /// The paper and what the algorithm queries, if given ([`AlgorithmEntry::documented`]).
    pub fn about(&self) -> Option<(&str, &str)> {
        self.about.as_ref().map(|(p, q)| (p.as_str(), q.as_str()))
    }

    /// The name of the config struct (e.g. `PfTsConfig`) of the entry's first mode (the finite one
    /// if it has one), whose fields' `///` comments document the parameters; `None` for an entry
    /// made from closures.
    pub fn config_type(&self) -> Option<&'static str> {
        self.modes[0].config_type
    }

    /// The name of the config struct of the entry's mode on `kind` (`None` if it has none, or was
    /// made from closures).
    pub fn config_type_for(&self, kind: DomainKind) -> Option<&'static str> {
        self.mode(kind).and_then(|m| m.config_type)
    }

    /// The config struct documenting the `box_search` table of the entry's box mode (`None`
    /// without a box mode, or one without that table).
    pub fn box_search_type(&self) -> Option<&'static str> {
        self.mode(DomainKind::Box).and_then(|m| m.box_search_type)
    }

    /// The kinds of domain the entry works on, finite first.
    pub fn kinds(&self) -> Vec<DomainKind> {
        self.modes.iter().map(|m| m.kind).collect()
    }

    /// Whether the entry works on domains of `kind`.
    pub fn supports(&self, kind: DomainKind) -> bool {
        self.mode(kind).is_some()
    }

    fn mode(&self, kind: DomainKind) -> Option<&Mode> {
        self.modes.iter().find(|m| m.kind == kind)
    }

    /// Why the entry cannot run on `domain` (a description of it, e.g. "a box [0, 1] × [0, 1]"), if
    /// it does not support `kind`: "`mr-lpf` works on a finite candidate set only; the problem is
    /// a box [0, 1] × [0, 1]".
    pub fn unsupported(&self, kind: DomainKind, domain: &str) -> Option<String> {
        if self.supports(kind) {
            return None;
        }
        let kinds: Vec<String> = self.kinds().iter().map(ToString::to_string).collect();
        let only = if kinds.len() == 1 { " only" } else { "" };
        Some(format!("`{}` works on {}{only}; the problem is {domain}", self.name, kinds.join(" or ")))
    }

    /// The same entry with its memory estimate: `memory(shape)` lists the dominant allocations one
    /// run needs on a problem of that shape (whatever the entry's `params`).
    pub fn with_memory(self, memory: impl Fn(&ProblemShape) -> Vec<Allocation> + Send + Sync + 'static) -> Self {
        self.with_memory_for_params(move |shape, _| memory(shape))
    }

    /// [`AlgorithmEntry::with_memory`] for an estimate that depends on the run's `params` too (e.g.
    /// qEUBO's options per query q).
    pub fn with_memory_for_params(
        mut self,
        memory: impl Fn(&ProblemShape, &toml::Table) -> Vec<Allocation> + Send + Sync + 'static,
    ) -> Self {
        self.memory = Arc::new(memory);
        self
    }

    /// The dominant allocations of one run on a problem of this shape, with the default params.
    pub fn memory(&self, shape: &ProblemShape) -> Vec<Allocation> {
        (self.memory)(shape, &toml::Table::new())
    }

    /// The dominant allocations of one run on a problem of this shape with these `params`.
    pub fn memory_for(&self, shape: &ProblemShape, params: &toml::Table) -> Vec<Allocation> {
        (self.memory)(shape, params)
    }

    /// The default `params` table of the entry's first mode: the default config written as TOML
    /// (keys whose default is "none", e.g. an optional latent box, are absent); empty for an entry
    /// made from closures.
    pub fn default_params(&self) -> toml::Table {
        (self.modes[0].defaults)()
    }

    /// The default `params` table of the entry's mode on `kind` (`None` if it has none).
    pub fn default_params_for(&self, kind: DomainKind) -> Option<toml::Table> {
        self.mode(kind).map(|m| (m.defaults)())
    }

    /// The name specs use.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// A one-line description.
    pub fn description(&self) -> &str {
        &self.description
    }

    /// Checks a `params` table for the entry's first mode (the finite one if it has one); errors
    /// name the field by its TOML path under `prefix` (`prefix.inference.mle.lambda`).
    pub fn check(&self, params: &toml::Table, prefix: &str) -> Result<()> {
        (self.modes[0].check)(params, prefix)
    }

    /// Checks a `params` table for a problem on a domain of `kind`, described by `domain` (e.g.
    /// "a box [0, 1] × [0, 1]"): an entry that does not work on that kind is an error naming
    /// `name_field` (the algorithm's name in the spec), the algorithm and the domain
    /// ([`AlgorithmEntry::unsupported`]); otherwise the mode's check, naming fields under `prefix`.
    pub fn check_for(
        &self,
        kind: DomainKind,
        domain: &str,
        params: &toml::Table,
        name_field: &str,
        prefix: &str,
    ) -> Result<()> {
        match self.mode(kind) {
            Some(m) => (m.check)(params, prefix),
            None => Err(ExperimentError::spec(name_field, self.unsupported(kind, domain).unwrap_or_default())),
        }
    }

    /// Checks the run's costs and budget (`costs`, from the spec's `[budget]`) for what the entry's
    /// mode on `kind` needs with these `params` ([`RegisteredAlgorithm::check_costs`]); an error
    /// names the budget's field (`budget.duel`, …). A kind the entry does not support passes
    /// ([`AlgorithmEntry::check_for`] says so).
    pub fn check_costs(&self, kind: DomainKind, params: &toml::Table, costs: Option<&QueryCosts>) -> Result<()> {
        let Some(m) = self.mode(kind) else { return Ok(()) };
        (m.costs)(params, costs).map_err(|e| match e {
            bohf_core::Error::InvalidParameter { name, reason } => ExperimentError::spec(name, reason),
            other => ExperimentError::spec("budget", other.to_string()),
        })
    }

    /// Builds the optimiser for a problem on a finite candidate set, a box, or either
    /// (`SearchContext<Domain>`); the parameters should have been checked. A domain the entry does
    /// not work on is an error naming `domain`, the algorithm and the domain. For an entry of a
    /// [`RegisteredAlgorithm`], an invalid field is named by its path from the algorithm's table:
    /// `params.inference.mle.lambda`, `params.initial.index`. The context's costs
    /// ([`SearchContext::costs`]) are passed on; what the algorithm needs of them is checked first
    /// (errors name `budget.duel`, …).
    pub fn build<D: Clone + Into<Domain>>(
        &self,
        ctx: &SearchContext<D>,
        params: &toml::Table,
    ) -> bohf_core::Result<BoxedOptimizer> {
        let mut widened = SearchContext::new(ctx.domain().clone().into(), ctx.horizon())?;
        if let Some(c) = ctx.costs() {
            widened = widened.with_costs(*c);
        }
        let ctx = widened;
        match self.mode(ctx.kind()) {
            Some(m) => (m.build)(&ctx, params),
            None => Err(bohf_core::Error::invalid(
                "domain",
                self.unsupported(ctx.kind(), &ctx.domain().to_string()).unwrap_or_default(),
            )),
        }
    }
}

/// Algorithms by name.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    entries: Vec<AlgorithmEntry>,
}

impl Registry {
    /// A registry with no algorithm.
    pub fn empty() -> Self {
        Self::default()
    }

    /// The papers' algorithms (see the module documentation).
    pub fn builtin() -> Self {
        let mut r = Self::empty();
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
            let m = if s.candidates > 0 {
                s.candidates.min(q.saturating_mul(s.horizon))
            } else {
                q.saturating_mul(s.horizon)
            };
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
            AlgorithmEntry::of::<bohf_pfts::PfTs>(
                "pf-ts",
                "PF-TS: Thompson sampling from preferential feedback with double-TS pairing",
            )
            .documented(
                "Lazzaro, Buffelli, Shiu & Vakili (2026), PF-TS, Algorithm 1 (double Thompson sampling from preferences)",
                "duels (x, x′), one per step: the maximisers of two joint posterior samples of the utility",
            )
            .with_memory(move |s| vec![gram(s), square(s, "an n×n sampling factor"), pairs_t(s)]),
            AlgorithmEntry::of::<bohf_mrlpf::MrLpf>(
                "mr-lpf",
                "MR-LPF: multi-round learning from preferences with elimination (Kayal et al. 2025)",
            )
            .documented(
                "Kayal et al. (2025), MR-LPF, Algorithm 1 (multi-round learning from preferences with elimination)",
                "duels, in rounds of N_r = ⌈√(N_{r−1}T)⌉ max-variance pairs of the surviving set M_r",
            )
            .with_memory(move |s| vec![gram(s), square(s, "n×n pair variances"), pairs_t(s)]),
            AlgorithmEntry::of::<bohf_baselines::MaxMinLcb>(
                "maxminlcb",
                "MaxMinLCB: max-min lower confidence bounds on duels (Pásztor et al. 2024)",
            )
            .documented(
                "Pásztor, Krause et al. (2024), MaxMinLCB (as used by the MR-LPF and PF-TS experiments)",
                "duels, one per step: the max–min of the lower confidence bound of P(x ≻ x′)",
            )
            .with_memory(move |s| vec![gram(s), square(s, "an n×n matrix of pair bounds"), pairs_t(s)]),
            AlgorithmEntry::of::<bohf_baselines::GpUcb>("gp-ucb", "GP-UCB with scalar feedback")
                .with_box::<bohf_baselines::GpUcbBox>()
                .documented(
                    "Srinivas et al. (2010), GP-UCB with scalar feedback (baseline)",
                    "scalar evaluations f(x) + noise, one per step: argmax of m + βσ (on a box: multistart L-BFGS-B from a Sobol design, `GpUcbBox`)",
                )
                .with_memory(scalar),
            AlgorithmEntry::of::<bohf_baselines::GpTs>("gp-ts", "GP-TS with scalar feedback")
                .documented(
                    "Chowdhury & Gopalan (2017), GP-TS with scalar feedback (baseline of PF-TS)",
                    "scalar evaluations, one per step: the maximiser of a joint posterior sample",
                )
                .with_memory(scalar),
            AlgorithmEntry::of::<bohf_baselines::RandomDuels>("random", "uniformly random duels")
                .with_box::<bohf_baselines::RandomDuelsBox>()
                .documented("baseline", "uniformly random duels (on a box: uniform draws, `RandomDuelsBox`)"),
            AlgorithmEntry::of::<bohf_popbo::PopBo>(
                "pop-bo",
                "POP-BO: optimistic preferential BO with likelihood-ratio confidence sets (Xu et al. 2024)",
            )
            .with_box::<bohf_popbo::PopBoBox>()
            .documented(
                "Xu et al. (2024), POP-BO, Algorithm 1 (principled optimistic preferential BO, likelihood-ratio confidence sets)",
                "duels (x_t, x_{t−1}), one per step: the new point against the previous one, x_t maximising the optimistic advantage (on a box: multistart projected gradient ascent, `PopBoBox`)",
            )
            .with_memory(move |s| vec![gram(s), pairs_t(s)]),
            AlgorithmEntry::of::<bohf_cobol::Cobol>(
                "cobol",
                "COBOL: BO with an expert's accept/reject labels, no-harm and handover tests (Xu, Adachi et al. 2024)",
            )
            .with_box::<bohf_cobol::Cobol>()
            .documented(
                "Xu, Adachi, Jones & Osborne (2024), COBOL, Algorithm 1 (also COBOHL, Algorithm 2, and vanilla GP-LCB with `variant`)",
                "labels (accept/reject) of x^c while g's interval is wider than g_thr, and evaluations f(x) of x^c or x^u; a rejected point is not evaluated",
            )
            .with_memory(move |s| vec![pairs_t(s)]),
            AlgorithmEntry::of::<bohf_compgpucb::CompGpUcb>(
                "comp-gp-ucb",
                "COMP-GP-UCB: cheap duels against random opponents and direct queries of f (Xu, Joshi, Singh & Dubrawski 2020)",
            )
            .with_box::<bohf_compgpucb::CompGpUcbBox>()
            .documented(
                "Xu, Joshi, Singh & Dubrawski (2020), COMP-GP-UCB, Algorithm 1 (known ζ; Algorithm 2 with `unknown_zeta`)",
                "duels (x_t, x′) against uniformly random opponents x′ while β^r σ^r(x_t) ≥ γ, and evaluations f(x_t) of the constrained UCB maximiser otherwise (on a box: multistart L-BFGS-B, phase 2 by screening and a penalised local search kept feasible, `CompGpUcbBox`)",
            )
            .with_memory(move |s| vec![pairs_t(s)]),
            AlgorithmEntry::of::<bohf_compgpucb::Kss>(
                "kss",
                "Kernel Self-Sparring: duels of two GP Thompson samples' argmaxes (Sui et al. 2017; COMP-GP-UCB's baseline)",
            )
            .documented(
                "Sui, Zhuang, Burdick & Yue (2017), Kernel Self-Sparring, as COMP-GP-UCB's duels-only baseline (Xu et al. 2020, Sec. 4.2)",
                "duels only: the argmaxes of two independent joint posterior samples of a GP on the 0/1 duel outcomes (after ⌊Λ₀/λ_c⌋ random duels)",
            )
            // Two observations per duel: a 2T×2T system, and the n×n posterior covariance it samples.
            .with_memory(move |s| {
                vec![
                    Allocation::matrix(format!("a 2T×2T Gram (T = {})", s.horizon), 2 * s.horizon, 2 * s.horizon),
                    square(s, "an n×n posterior covariance"),
                ]
            }),
            AlgorithmEntry::of::<bohf_compgpucb::MfGpUcb>(
                "mf-gp-ucb",
                "MF-GP-UCB with duels as the low fidelity (Kandasamy et al. 2016; COMP-GP-UCB's baseline)",
            )
            .documented(
                "Kandasamy et al. (2016), MF-GP-UCB with the MF code's switching and γ/ζ rules, duels as the low fidelity (Xu et al. 2020, Sec. 4.2)",
                "duels (x_t, x′) against uniformly random opponents x′ while β σ¹(x_t) ≥ γ, else evaluations f(x_t); x_t maximises min{UCB¹ + ζ, UCB²}",
            )
            .with_memory(move |s| vec![pairs_t(s)]),
            AlgorithmEntry::of::<bohf_eubo::Eubo>(
                "eubo",
                "EUBO: the duel maximising the expected utility of the best option, on the Laplace preference GP",
            )
            .with_box::<bohf_eubo::Eubo>()
            .documented(
                "Lin, Astudillo, Frazier & Bakshy (2022), EUBO, eq. (6) (closed form by Clark 1961); Laplace preference GP of Chu & Ghahramani (2005)",
                "duels (x, x′), one per step: argmax E[max(f(x), f(x′))] over screened candidate pairs (on a box: multistart L-BFGS over the product box)",
            )
            .with_memory(move |s| laplace(s, 2)),
            AlgorithmEntry::of::<bohf_eubo::Qeubo>(
                "qeubo",
                "qEUBO: Monte Carlo expected utility of the best of q options with fixed base samples, on the Laplace preference GP (duels at q = 2, best-of-q choices at q ≥ 3)",
            )
            .with_box::<bohf_eubo::Qeubo>()
            .documented(
                "Astudillo, Lin, Bakshy & Frazier (2023), qEUBO, eq. (2) (sample-average approximation); choices learnt by the multinomial-logit likelihood in the Laplace GP",
                "one query per step: at q = 2 a duel, the argmax of the qEUBO sample average over screened candidate pairs; at q ≥ 3 a best-of-q choice, exact over the q-subsets of the screened candidates (at most 4096) or greedy with swaps; on a box: multistart L-BFGS over the product box",
            )
            .with_memory_for_params(move |s, params| {
                // q from the params (default 2, bounded by the config's check to [2, MAX_Q]).
                let q = params
                    .get("q")
                    .and_then(toml::Value::as_integer)
                    .and_then(|q| usize::try_from(q).ok())
                    .unwrap_or(bohf_eubo::QeuboConfig::default().q)
                    .clamp(2, bohf_eubo::MAX_Q);
                laplace(s, q)
            }),
            AlgorithmEntry::of::<bohf_eubo::Dts>(
                "dts",
                "DTS: dueling Thompson sampling on the Laplace preference GP (González et al. 2017)",
            )
            .with_box::<bohf_eubo::Dts>()
            .documented(
                "González, Dai, Damianou & Lawrence (2017), PBO, dueling Thompson sampling (§4.3), on the Laplace utility GP",
                "duels (x, x′), one per step: x the argmax of a joint posterior sample of f, x′ the argmax of the variance of P(x ≻ x′) (on a box: over a Sobol pool)",
            )
            .with_memory(move |s| {
                let mut parts = laplace(s, 2);
                parts.push(square(s, "an n×n posterior covariance"));
                parts
            }),
        ];
        for e in entries {
            r.register(e).expect("built-in names are distinct");
        }
        r
    }

    /// Adds an entry; a name that is already registered is an error.
    pub fn register(&mut self, entry: AlgorithmEntry) -> Result<()> {
        if entry.name.is_empty() || self.get(&entry.name).is_some() {
            return Err(ExperimentError::spec(
                "name",
                format!("algorithm name `{}` is empty or already registered", entry.name),
            ));
        }
        self.entries.push(entry);
        Ok(())
    }

    /// The entry called `name`.
    pub fn get(&self, name: &str) -> Option<&AlgorithmEntry> {
        self.entries.iter().find(|e| e.name == name)
    }

    /// The registered names, in registration order.
    pub fn names(&self) -> Vec<&str> {
        self.entries.iter().map(|e| e.name.as_str()).collect()
    }

    /// The entries, in registration order.
    pub fn entries(&self) -> &[AlgorithmEntry] {
        &self.entries
    }

    /// The error for an unknown algorithm `name` in spec field `field`: it lists the valid names
    /// and suggests the closest one.
    pub fn unknown(&self, field: &str, name: &str) -> ExperimentError {
        let names = self.names();
        let closest = names
            .iter()
            .map(|n| (edit_distance(&n.to_lowercase(), &name.to_lowercase()), *n))
            .min()
            .filter(|(d, n)| *d <= (n.len().max(name.len()) / 2).max(1));
        let hint = closest.map(|(_, n)| format!(" (did you mean `{n}`?)")).unwrap_or_default();
        ExperimentError::spec(
            field,
            format!(
                "unknown algorithm `{name}`{hint}; valid names: {}",
                if names.is_empty() { "none".into() } else { names.join(", ") }
            ),
        )
    }
}

/// `a::b::Name<c::D>` → `Name`: the last path segment of a type's name, generics removed.
fn short_type_name(full: &'static str) -> &'static str {
    let head = full.split('<').next().unwrap_or(full);
    head.rsplit("::").next().unwrap_or(head)
}

/// The Levenshtein distance between two strings (by characters).
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != *cb)).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests;
