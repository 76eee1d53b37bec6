//! The [`RegisteredAlgorithm`] implementations that do more than the usual
//! `XConfig::check()` / `X::new(ctx, valid)` pair (those are the `registered!` lines of the crate
//! root, beside the entries): cost checks, box searches; and the `params` of a box mode ([`BoxModeConfig`]) with the bounds of
//! [`limits`] on a box search.

use crate::Builtin;
use bohf_core::{AtField, BoxDomain, QueryCosts, SearchContext};
use bohf_experiments::limits;
use bohf_experiments::registry::{RegisteredAlgorithm, short_type_name};
use serde::Serialize;
use serde::de::DeserializeOwned;

impl RegisteredAlgorithm for Builtin<bohf_baselines::GpUcb> {
    type Algorithm = bohf_baselines::GpUcb;
    type Config = bohf_baselines::GpUcbConfig;
    type Checked = bohf_baselines::ValidGpUcbConfig;
    fn check(config: &Self::Config) -> bohf_core::Result<Self::Checked> {
        config.check()
    }
    fn build(ctx: &SearchContext, config: Self::Checked) -> bohf_core::Result<Self::Algorithm> {
        <Self::Algorithm>::new(ctx, config)
    }
    /// Λ₀ > 0 needs an evaluation cost > 0.
    fn check_costs(config: &Self::Config, costs: Option<&QueryCosts>) -> bohf_core::Result<()> {
        config.initial_values(costs).map(|_| ())
    }
}

/// The registration of an algorithm that reads the run's costs ([`bohf_compgpucb::Costs`]).
macro_rules! costed {
    ($ty:ty, $cfg:ty, $checked:ty) => {
        impl RegisteredAlgorithm for Builtin<$ty> {
            type Algorithm = $ty;
            type Config = $cfg;
            type Checked = $checked;
            fn check(config: &$cfg) -> bohf_core::Result<$checked> {
                config.check()
            }
            fn build(ctx: &SearchContext, config: $checked) -> bohf_core::Result<Self::Algorithm> {
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

impl RegisteredAlgorithm for Builtin<bohf_compgpucb::CompGpUcb> {
    type Algorithm = bohf_compgpucb::CompGpUcb;
    type Config = bohf_compgpucb::CompGpUcbConfig;
    type Checked = bohf_compgpucb::ValidCompGpUcbConfig;
    fn check(config: &Self::Config) -> bohf_core::Result<Self::Checked> {
        config.check()
    }
    fn build(ctx: &SearchContext, config: Self::Checked) -> bohf_core::Result<Self::Algorithm> {
        <Self::Algorithm>::new(ctx, config)
    }
    /// λ_c > 0, λ_l ≥ λ_c, Λ > 0 ([`bohf_compgpucb::Costs::of_context`]); Algorithm 2 needs a budget.
    fn check_costs(config: &Self::Config, costs: Option<&QueryCosts>) -> bohf_core::Result<()> {
        let costs = bohf_compgpucb::Costs::of_context(costs)?;
        config.stage_labels(&costs).map(|_| ())
    }
}

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
        // The two parts' errors passed on as `De`'s: an unknown variant as one (typed, so the
        // suggestion is made from the names), anything else by its message.
        fn pass_on<E: serde::de::Error>(e: bohf_experiments::de::PathError) -> E {
            match e.error.unknown_variant() {
                Some((given, expected)) => E::unknown_variant(given, expected),
                None => E::custom(e.error.message()),
            }
        }
        let mut t = toml::Table::deserialize(d)?;
        let box_search = match t.remove("box_search") {
            Some(v) => bohf_experiments::de::from_value(&v).map_err(pass_on)?,
            None => S::default(),
        };
        let config = bohf_experiments::de::from_table(&t).map_err(pass_on)?;
        Ok(Self { config, box_search })
    }
}

/// Errors unless `value` ≤ `max`, naming `box_search.<field>` (the bounds of [`limits`] on a
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

/// The bounds of [`limits`] on a multistart box search's `samples`, `starts` and
/// `local.max_iterations` ([`box_bound`]).
fn multistart_bounds(samples: usize, starts: usize, local_iterations: usize) -> bohf_core::Result<()> {
    box_bound("samples", samples, limits::MAX_BOX_SAMPLE_VALUES)?;
    box_bound("starts", starts, limits::MAX_BOX_SEARCH_STEPS)?;
    box_bound("local.max_iterations", local_iterations, limits::MAX_BOX_SEARCH_STEPS)
}

/// Errors unless `points` × d ≤ [`limits::MAX_BOX_SAMPLE_VALUES`] (the points a box search
/// screens: `design` + `samples`, or COBOL's `candidates`), naming `box_search.<field>`.
fn box_samples(field: &str, points: usize, domain: &BoxDomain) -> bohf_core::Result<()> {
    let d = domain.dim();
    if points.saturating_mul(d) > limits::MAX_BOX_SAMPLE_VALUES {
        return Err(bohf_core::Error::invalid(
            format!("box_search.{field}"),
            format!(
                "{points} screened points × {d} dimensions is more than {} coordinates (the limit)",
                limits::MAX_BOX_SAMPLE_VALUES
            ),
        ));
    }
    Ok(())
}

impl RegisteredAlgorithm<BoxDomain> for Builtin<bohf_popbo::PopBoBox> {
    type Algorithm = bohf_popbo::PopBoBox;
    type Config = BoxModeConfig<bohf_popbo::PopBoConfig, bohf_popbo::BoxSearchConfig>;
    type Checked = (bohf_popbo::ValidPopBoConfig, bohf_popbo::ValidBoxSearchConfig);
    /// POP-BO's check, the search's check, and the bounds of [`limits`] on `starts` and
    /// `iterations`.
    fn check(c: &Self::Config) -> bohf_core::Result<Self::Checked> {
        let s = &c.box_search;
        box_bound("starts", s.starts, limits::MAX_BOX_SEARCH_STEPS)?;
        box_bound("iterations", s.iterations, limits::MAX_BOX_SEARCH_STEPS)?;
        Ok((c.config.check()?, s.check().at("box_search")?))
    }
    /// Refuses (`design` + `samples`) × d above [`limits::MAX_BOX_SAMPLE_VALUES`], then builds.
    fn build(ctx: &SearchContext<BoxDomain>, (config, search): Self::Checked) -> bohf_core::Result<Self::Algorithm> {
        box_samples("samples", search.design.saturating_add(search.samples), ctx.domain())?;
        bohf_popbo::PopBoBox::new(ctx.domain().clone(), config, search)
    }
    fn box_search_type() -> Option<&'static str> {
        Some(short_type_name(std::any::type_name::<bohf_popbo::BoxSearchConfig>()))
    }
}

impl RegisteredAlgorithm<BoxDomain> for Builtin<bohf_baselines::GpUcbBox> {
    type Algorithm = bohf_baselines::GpUcbBox;
    type Config = BoxModeConfig<bohf_baselines::GpUcbConfig, bohf_optim::MultistartConfig>;
    type Checked = (bohf_baselines::ValidGpUcbConfig, bohf_optim::ValidMultistartConfig);
    /// GP-UCB's check, the search's check, and the bounds of [`limits`] on `samples`,
    /// `starts` and `local.max_iterations`.
    fn check(c: &Self::Config) -> bohf_core::Result<Self::Checked> {
        let s = &c.box_search;
        multistart_bounds(s.samples, s.starts, s.local.max_iterations)?;
        Ok((c.config.check()?, s.check().at("box_search")?))
    }
    /// Refuses (`design` + `samples`) × d above [`limits::MAX_BOX_SAMPLE_VALUES`], then builds.
    fn build(ctx: &SearchContext<BoxDomain>, (config, search): Self::Checked) -> bohf_core::Result<Self::Algorithm> {
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

impl RegisteredAlgorithm<BoxDomain> for Builtin<bohf_compgpucb::CompGpUcbBox> {
    type Algorithm = bohf_compgpucb::CompGpUcbBox;
    type Config = BoxModeConfig<bohf_compgpucb::CompGpUcbConfig, bohf_compgpucb::CompBoxSearch>;
    type Checked = (bohf_compgpucb::ValidCompGpUcbConfig, bohf_compgpucb::ValidCompBoxSearch);
    /// COMP-GP-UCB's check, the search's check, and the bounds of [`limits`] on `samples`,
    /// `starts` and `local.max_iterations`.
    fn check(c: &Self::Config) -> bohf_core::Result<Self::Checked> {
        let s = &c.box_search;
        multistart_bounds(s.samples, s.starts, s.local.max_iterations)?;
        Ok((c.config.check()?, s.check().at("box_search")?))
    }
    /// Refuses (`design` + `samples`) × d above [`limits::MAX_BOX_SAMPLE_VALUES`], then builds.
    fn build(ctx: &SearchContext<BoxDomain>, (config, search): Self::Checked) -> bohf_core::Result<Self::Algorithm> {
        box_samples("samples", search.design.saturating_add(search.samples), ctx.domain())?;
        bohf_compgpucb::CompGpUcbBox::new(ctx, config, search)
    }
    /// As on candidates.
    fn check_costs(c: &Self::Config, costs: Option<&QueryCosts>) -> bohf_core::Result<()> {
        <Builtin<bohf_compgpucb::CompGpUcb> as RegisteredAlgorithm>::check_costs(&c.config, costs)
    }
    fn box_search_type() -> Option<&'static str> {
        Some(short_type_name(std::any::type_name::<bohf_compgpucb::CompBoxSearch>()))
    }
}

impl RegisteredAlgorithm<BoxDomain> for Builtin<bohf_cobol::Cobol> {
    type Algorithm = bohf_cobol::Cobol;
    type Config = BoxModeConfig<bohf_cobol::CobolConfig, bohf_cobol::CobolBoxSearch>;
    type Checked = (bohf_cobol::ValidCobolConfig, bohf_cobol::ValidCobolBoxSearch);
    /// COBOL's check, the search's check, and the bounds of [`limits`] on `candidates`,
    /// `lcb.samples`, `lcb.starts` and `lcb.local.max_iterations`.
    fn check(c: &Self::Config) -> bohf_core::Result<Self::Checked> {
        let s = &c.box_search;
        box_bound("candidates", s.candidates, limits::MAX_BOX_SAMPLE_VALUES)?;
        box_bound("lcb.samples", s.lcb.samples, limits::MAX_BOX_SAMPLE_VALUES)?;
        box_bound("lcb.starts", s.lcb.starts, limits::MAX_BOX_SEARCH_STEPS)?;
        box_bound("lcb.local.max_iterations", s.lcb.local.max_iterations, limits::MAX_BOX_SEARCH_STEPS)?;
        Ok((c.config.check()?, s.check().at("box_search")?))
    }
    /// Refuses `candidates` × d above [`limits::MAX_BOX_SAMPLE_VALUES`], then builds.
    fn build(ctx: &SearchContext<BoxDomain>, (config, search): Self::Checked) -> bohf_core::Result<Self::Algorithm> {
        box_samples("candidates", search.candidates, ctx.domain())?;
        bohf_cobol::Cobol::new_box(ctx, config, search)
    }
    fn box_search_type() -> Option<&'static str> {
        Some(short_type_name(std::any::type_name::<bohf_cobol::CobolBoxSearch>()))
    }
}

/// The box modes of EUBO and qEUBO: the config plus a [`bohf_optim::MultistartConfig`] over the
/// 2d-dimensional product box of the duel, with the bounds of [`limits`] as for `gp-ucb`.
macro_rules! pair_search_box_mode {
    ($ty:ty, $cfg:ty, $valid:ty) => {
        impl RegisteredAlgorithm<BoxDomain> for Builtin<$ty> {
            type Algorithm = $ty;
            type Config = BoxModeConfig<$cfg, bohf_optim::MultistartConfig>;
            type Checked = ($valid, bohf_optim::ValidMultistartConfig);
            /// The config's check, the search's check, and the bounds of [`limits`] on
            /// `samples`, `starts` and `local.max_iterations`.
            fn check(c: &Self::Config) -> bohf_core::Result<Self::Checked> {
                let s = &c.box_search;
                multistart_bounds(s.samples, s.starts, s.local.max_iterations)?;
                Ok((c.config.check()?, s.check().at("box_search")?))
            }
            /// Refuses (`design` + `samples`) × 2d above [`limits::MAX_BOX_SAMPLE_VALUES`], then builds.
            fn build(
                ctx: &SearchContext<BoxDomain>,
                (config, search): Self::Checked,
            ) -> bohf_core::Result<Self::Algorithm> {
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
impl RegisteredAlgorithm<BoxDomain> for Builtin<bohf_eubo::Dts> {
    type Algorithm = bohf_eubo::Dts;
    type Config = bohf_eubo::DtsConfig;
    type Checked = bohf_eubo::ValidDtsConfig;
    fn check(c: &Self::Config) -> bohf_core::Result<Self::Checked> {
        c.check()
    }
    /// Refuses `pool` × d above [`limits::MAX_BOX_SAMPLE_VALUES`], then builds.
    fn build(ctx: &SearchContext<BoxDomain>, config: Self::Checked) -> bohf_core::Result<Self::Algorithm> {
        let d = ctx.domain().dim();
        if config.pool.saturating_mul(d) > limits::MAX_BOX_SAMPLE_VALUES {
            return Err(bohf_core::Error::invalid(
                "pool",
                format!(
                    "{} pool points × {d} dimensions is more than {} coordinates (the limit)",
                    config.pool,
                    limits::MAX_BOX_SAMPLE_VALUES
                ),
            ));
        }
        bohf_eubo::Dts::new_box(ctx, config)
    }
}
