//! The algorithm registry's interface: a name in a spec → the algorithm's config, deserialised
//! from the spec's `params` table and validated once ([`AlgorithmEntry::parse_for`], a
//! [`CheckedEntry`]) → a boxed [`Optimizer`] built from a clone of the checked config for the
//! problem's [`SearchContext`], once per run ([`CheckedEntry::build`]).
//!
//! This module names no algorithm. The papers' algorithms are registered by the `bohf-registry`
//! crate (`bohf_registry::builtin()`), the one crate that names algorithm crates; the engine takes
//! a [`Registry`] as a parameter wherever it builds algorithms. `docs/generated/algorithms.md`
//! (`cargo xtask docs`) is written from the built-in entries (name, description, paper, queries,
//! and the config's defaults and field docs).
//!
//! An algorithm joins by a [`RegisteredAlgorithm`] implementation (its config type, the config's
//! one check returning the validated type, and the constructor that takes it) and being added with
//! [`AlgorithmEntry::of`] and [`AlgorithmEntry::documented`]; anything else (e.g. a wrapper with
//! its own parameters) can be registered from closures with [`AlgorithmEntry::new`]. See
//! `docs/extending.md`.
//!
//! **Query kinds.** Each entry declares, once, the kinds of query ([`QueryKind`]) its runs ask
//! with the default params ([`AlgorithmEntry::asks`]) and those other params may add
//! ([`AlgorithmEntry::may_ask`]). A run or a session fails at a query of a kind its entry does not
//! declare ([`AlgorithmEntry::check_query`]); the built-in registry's tests run every entry and check that
//! its defaults ask exactly the kinds declared; the leaderboard takes every entry that asks duels only.
//!
//! **Domain kinds.** Each entry declares, once, the kinds of domain it works on
//! ([`bohf_core::DomainKind`]): a finite candidate set ([`AlgorithmEntry::of`]), a box
//! ([`AlgorithmEntry::of_box`]), or both ([`AlgorithmEntry::with_box`] adds a box mode, e.g.
//! `pop-bo` builds POP-BO's box variant on a box). Each kind has its own config type and
//! constructor. [`AlgorithmEntry::parse_for`] and [`AlgorithmEntry::build`] refuse a kind the entry
//! does not declare with an error naming the algorithm and the domain, so no constructor checks it.

use crate::error::{ExperimentError, Result};
use crate::limits::{Allocation, ProblemShape};
use bohf_core::{BoxDomain, Domain, DomainKind, FiniteDomain, Optimizer, Query, QueryCosts, QueryKind, SearchContext};
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::fmt;
use std::sync::Arc;

mod checked;
mod parse;

pub use checked::{CheckedAlgorithm, CheckedEntry};
use checked::{ClosureBuildFn, FromClosures, Typed};

/// An optimiser built by the registry.
pub type BoxedOptimizer = Box<dyn Optimizer + Send>;

/// How the registry builds an algorithm on a domain of type `D` (a [`FiniteDomain`] by default, or
/// a [`BoxDomain`]): a config type with serde, the config's one check returning the validated
/// type, and a constructor taking that type (the convention of every algorithm crate:
/// `XConfig::check() -> ValidXConfig`, `X::new(&SearchContext<D>, valid)`).
///
/// The implementing type is a registration, not necessarily the algorithm itself
/// ([`RegisteredAlgorithm::Algorithm`] is what is built): the registry crate implements it on its
/// own marker type for each algorithm crate's type, so neither the engine nor the algorithm crates
/// need to know each other.
pub trait RegisteredAlgorithm<D = FiniteDomain>: Sized + 'static {
    /// The optimiser built.
    type Algorithm: Optimizer + Send + 'static;
    /// The configuration, deserialised from a spec's `params` table (missing keys take their
    /// defaults, unknown keys are errors).
    type Config: DeserializeOwned + Serialize + Default + Send + Sync + 'static;
    /// The validated configuration, the only thing [`RegisteredAlgorithm::build`] takes: made once
    /// per algorithm of a spec ([`AlgorithmEntry::parse_for`]) and cloned for each run's build.
    type Checked: Clone + Send + Sync + 'static;
    /// Checks the config; an error names the invalid field by its path in the `params` table, as
    /// written in TOML (e.g. `inference.mle.lambda`).
    fn check(config: &Self::Config) -> bohf_core::Result<Self::Checked>;
    /// Builds the algorithm for a problem.
    fn build(ctx: &SearchContext<D>, config: Self::Checked) -> bohf_core::Result<Self::Algorithm>;
    /// Checks the run's costs and budget ([`QueryCosts`], from the spec's `[budget]`; `None`
    /// without one) for what the algorithm `config` needs of them; errors name the budget's field
    /// (`budget.duel`, `budget.evaluate`, `budget.total`). The default needs nothing.
    fn check_costs(config: &Self::Config, costs: Option<&QueryCosts>) -> bohf_core::Result<()> {
        let _ = (config, costs);
        Ok(())
    }
    /// The config struct whose fields document the `box_search` table of a box mode
    /// (the registry's `BoxModeConfig`), for the generated reference; `None` for modes without one.
    fn box_search_type() -> Option<&'static str> {
        None
    }
}

type ParseFn = dyn Fn(&toml::Table, &str) -> Result<Arc<dyn CheckedAlgorithm>> + Send + Sync;
type MemoryFn = dyn Fn(&ProblemShape, &toml::Table) -> Vec<Allocation> + Send + Sync;
type DefaultsFn = dyn Fn() -> toml::Table + Send + Sync;

/// How an entry works on one kind of domain: its parameters' parse and check (to the checked
/// config that builds the optimiser), its default parameters and config type.
#[derive(Clone)]
struct Mode {
    kind: DomainKind,
    /// A `params` table → its checked config ([`CheckedAlgorithm`]); errors name fields under
    /// the prefix given.
    parse: Arc<ParseFn>,
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
            parse: Arc::new(move |params, prefix| {
                let (config, checked) = parse::parse_params::<D, A>(params, prefix)?;
                Ok(Arc::new(Typed::<D, A> { config, checked, narrow, kind }) as Arc<dyn CheckedAlgorithm>)
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
    /// Whether the algorithm maps the points onto the unit cube itself ([`AlgorithmEntry::own_unit_cube`]).
    own_unit_cube: bool,
    /// The kinds of query a run with the default params may ask ([`AlgorithmEntry::asks`]), and
    /// those only other params may add ([`AlgorithmEntry::may_ask`]); sorted, without repeats.
    asks: (Vec<QueryKind>, Vec<QueryKind>),
}

impl fmt::Debug for AlgorithmEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AlgorithmEntry").field("name", &self.name).field("description", &self.description).finish()
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
            own_unit_cube: false,
            asks: (Vec::new(), Vec::new()),
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
        let build: Arc<ClosureBuildFn> = Arc::new(build);
        let parse = move |params: &toml::Table, prefix: &str| {
            check(params, prefix)?;
            Ok(Arc::new(FromClosures { params: params.clone(), build: build.clone() }) as Arc<dyn CheckedAlgorithm>)
        };
        let mode = Mode {
            kind: DomainKind::Finite,
            parse: Arc::new(parse),
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

    /// The same entry, declaring the kinds of query its runs ask with the default params (each a
    /// kind some run may ask, and none other: the built-in registry's tests run every entry and
    /// check each query's kind against the declaration). What the leaderboard and the generated
    /// reference read ([`AlgorithmEntry::asked_by_default`]). Replaces a declaration given before.
    pub fn asks(mut self, kinds: &[QueryKind]) -> Self {
        self.asks.0 = sorted(kinds);
        self
    }

    /// The same entry, declaring the kinds of query that params other than the defaults may make
    /// it ask besides those of [`AlgorithmEntry::asks`] (qEUBO: best-of-q choices at q ≥ 3).
    pub fn may_ask(mut self, kinds: &[QueryKind]) -> Self {
        self.asks.1 = sorted(kinds);
        self
    }

    /// The kinds of query the entry asks with its default params ([`AlgorithmEntry::asks`]; empty
    /// if it declares none, e.g. an entry from closures that did not say).
    pub fn asked_by_default(&self) -> &[QueryKind] {
        &self.asks.0
    }

    /// Every kind of query the entry may ask, whatever its params: [`AlgorithmEntry::asks`] and
    /// [`AlgorithmEntry::may_ask`], in [`QueryKind::ALL`] order.
    pub fn asked(&self) -> Vec<QueryKind> {
        sorted(&[self.asks.0.as_slice(), self.asks.1.as_slice()].concat())
    }

    /// Checks that `query` is of a kind the entry declares ([`AlgorithmEntry::asked`]: with any
    /// params); an error names `query`, the algorithm, the kind and the declaration. An entry that
    /// declares nothing (one made from closures without [`AlgorithmEntry::asks`]) may ask anything.
    /// The runner and the sessions check every query with it.
    pub fn check_query(&self, query: &Query) -> bohf_core::Result<()> {
        let asked = self.asked();
        let kind = query.kind();
        if asked.is_empty() || asked.contains(&kind) {
            return Ok(());
        }
        let declared: Vec<&str> = asked.iter().map(|k| k.as_str()).collect();
        Err(bohf_core::Error::invalid(
            "query",
            format!(
                "`{}` asked a query of kind `{kind}`, which its registry entry does not declare (it asks {})",
                self.name,
                declared.join(", ")
            ),
        ))
    }

    /// Whether the entry's default params ask queries of `kind` only (the leaderboard's duel
    /// algorithms: `asks_only(QueryKind::Duel)`).
    pub fn asks_only(&self, kind: QueryKind) -> bool {
        self.asks.0 == [kind]
    }

    /// The same entry, marked as an algorithm that maps the points onto the unit cube itself (the
    /// candidates' bounding box, or the box), whatever `problem.inputs` is: its kernel's
    /// lengthscales are in unit-cube coordinates either way (EUBO's Laplace GP, COBOL). Read by
    /// the lengthscale warning of `bohf check` ([`crate::warnings`]).
    pub fn maps_to_unit_cube(mut self) -> Self {
        self.own_unit_cube = true;
        self
    }

    /// Whether the algorithm maps the points onto the unit cube itself
    /// ([`AlgorithmEntry::maps_to_unit_cube`]).
    pub fn own_unit_cube(&self) -> bool {
        self.own_unit_cube
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
        (self.modes[0].parse)(params, prefix).map(|_| ())
    }

    /// Reads and checks a `params` table for a problem on a domain of `kind`, described by
    /// `domain` (e.g. "a box [0, 1] × [0, 1]"), once: the result builds the optimiser of every
    /// run ([`CheckedEntry::build`]). An entry that does not work on that kind is an error naming
    /// `name_field` (the algorithm's name in the spec), the algorithm and the domain
    /// ([`AlgorithmEntry::unsupported`]); otherwise the mode's check, naming fields under `prefix`.
    pub fn parse_for(
        &self,
        kind: DomainKind,
        domain: &str,
        params: &toml::Table,
        name_field: &str,
        prefix: &str,
    ) -> Result<CheckedEntry> {
        match self.mode(kind) {
            Some(m) => Ok(CheckedEntry {
                entry: self.clone(),
                kind,
                params: params.clone(),
                checked: (m.parse)(params, prefix)?,
                memory: self.memory.clone(),
            }),
            None => Err(ExperimentError::spec(name_field, self.unsupported(kind, domain).unwrap_or_default())),
        }
    }

    /// [`AlgorithmEntry::parse_for`], keeping only whether the `params` pass.
    pub fn check_for(
        &self,
        kind: DomainKind,
        domain: &str,
        params: &toml::Table,
        name_field: &str,
        prefix: &str,
    ) -> Result<()> {
        self.parse_for(kind, domain, params, name_field, prefix).map(|_| ())
    }

    /// Reads, checks and builds in one go, for one optimiser (a spec checks its `params` once with
    /// [`AlgorithmEntry::parse_for`] and builds every run from the result): the optimiser for a
    /// problem on a finite candidate set, a box, or either (`SearchContext<Domain>`). A domain the
    /// entry does not work on is an error naming `domain`, the algorithm and the domain. For an
    /// entry of a [`RegisteredAlgorithm`], an invalid field is named by its path from the
    /// algorithm's table: `params.inference.mle.lambda`, `params.initial.index`. The context's
    /// costs ([`SearchContext::costs`]) are passed on; what the algorithm needs of them is checked
    /// first (errors name `budget.duel`, …).
    pub fn build<D: Clone + Into<Domain>>(
        &self,
        ctx: &SearchContext<D>,
        params: &toml::Table,
    ) -> bohf_core::Result<BoxedOptimizer> {
        let ctx = checked::widen(ctx)?;
        let Some(m) = self.mode(ctx.kind()) else {
            return Err(bohf_core::Error::invalid(
                "domain",
                self.unsupported(ctx.kind(), &ctx.domain().to_string()).unwrap_or_default(),
            ));
        };
        let checked = (m.parse)(params, "params").map_err(|e| match e {
            ExperimentError::Spec { field, reason } => bohf_core::Error::invalid(field, reason),
            other => bohf_core::Error::invalid("params", other.to_string()),
        })?;
        checked.check_costs(ctx.costs())?;
        checked.build(&ctx)
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
        let hint = bohf_core::closest_name(name, &names).map(|n| format!(" (did you mean `{n}`?)")).unwrap_or_default();
        ExperimentError::spec(
            field,
            format!(
                "unknown algorithm `{name}`{hint}; valid names: {}",
                if names.is_empty() { "none".into() } else { names.join(", ") }
            ),
        )
    }
}

/// `kinds` sorted ([`QueryKind::ALL`] order), without repeats.
fn sorted(kinds: &[QueryKind]) -> Vec<QueryKind> {
    let mut v = kinds.to_vec();
    v.sort_unstable();
    v.dedup();
    v
}

/// `a::b::Name<c::D>` → `Name`: the last path segment of a type's name, generics removed.
pub fn short_type_name(full: &'static str) -> &'static str {
    let head = full.split('<').next().unwrap_or(full);
    head.rsplit("::").next().unwrap_or(head)
}
