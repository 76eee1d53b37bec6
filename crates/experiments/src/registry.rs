//! The algorithm registry's interface: a name in a spec → the algorithm's config, deserialised
//! from the spec's `params` table and validated → a boxed [`Optimizer`] built for the problem's
//! [`SearchContext`].
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
//! **Domain kinds.** Each entry declares, once, the kinds of domain it works on
//! ([`bohf_core::DomainKind`]): a finite candidate set ([`AlgorithmEntry::of`]), a box
//! ([`AlgorithmEntry::of_box`]), or both ([`AlgorithmEntry::with_box`] adds a box mode, e.g.
//! `pop-bo` builds POP-BO's box variant on a box). Each kind has its own config type and
//! constructor. [`AlgorithmEntry::check_for`] and [`AlgorithmEntry::build`] refuse a kind the entry
//! does not declare with an error naming the algorithm and the domain, so no constructor checks it.

use crate::de::{Step, render, value_at};
use crate::error::{ExperimentError, Result};
use crate::limits::{Allocation, ProblemShape};
use bohf_core::{AtField, BoxDomain, Domain, DomainKind, FiniteDomain, Optimizer, QueryCosts, SearchContext};
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::fmt;
use std::sync::Arc;

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
    type Config: DeserializeOwned + Serialize + Default;
    /// The validated configuration, the only thing [`RegisteredAlgorithm::build`] takes.
    type Checked;
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
    /// Whether the algorithm maps the points onto the unit cube itself ([`AlgorithmEntry::own_unit_cube`]).
    own_unit_cube: bool,
}

impl fmt::Debug for AlgorithmEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AlgorithmEntry").field("name", &self.name).field("description", &self.description).finish()
    }
}

/// The checked config of `A` from a `params` table; errors name the field's path under `prefix`
/// (`prefix.inference.mle.lambda`), or `prefix` itself when no single key is to blame. A name
/// that is no variant of an enum gets a "did you mean" line ([`crate::de::DeError::with_help`]).
fn parse_params<D, A: RegisteredAlgorithm<D>>(params: &toml::Table, prefix: &str) -> Result<A::Checked> {
    let config: A::Config = deserialise::<A::Config>(params).map_err(|e| {
        let root = toml::Value::Table(params.clone());
        let field = match value_at(&root, &e.path) {
            // serde named the value itself (a key's path, array entries included).
            Some(v) if !e.path.is_empty() && !v.is_table() && !v.is_array() => Some(render(&e.path)),
            // A table or nothing: inside a table tagged by `kind` or `rule` (serde reads those
            // whole, and names no key in them), an unknown key, a missing one.
            _ => blame::<A::Config>(params),
        };
        let field = field.map_or(prefix.to_string(), |k| bohf_core::field_path(prefix, &k));
        ExperimentError::spec(field, e.error.with_help())
    })?;
    A::check(&config).map_err(|e| ExperimentError::in_field(prefix, e))
}

fn deserialise<C: DeserializeOwned>(params: &toml::Table) -> std::result::Result<C, crate::de::PathError> {
    crate::de::from_table(params)
}

/// The path (relative to `params`) of the key a deserialisation error is about, where serde's
/// path ends at a table (inside a table read whole, e.g. tagged by `kind`): innermost keys and
/// array entries first, the first whose replacement by a plain 1, 0.5 or false makes the table
/// deserialise, else the first whose default or removal does. `None` if no single key is to blame.
fn blame<C: DeserializeOwned + Serialize + Default>(params: &toml::Table) -> Option<String> {
    let defaults = toml::Value::Table(toml::Table::try_from(C::default()).unwrap_or_default());
    let root = toml::Value::Table(params.clone());
    let mut keys = Vec::new();
    collect_keys(&root, &mut Vec::new(), &mut keys);
    keys.sort_by_key(|k| std::cmp::Reverse(k.len()));
    let fixes = |key: &[Step], probe: Option<toml::Value>| {
        let mut v = root.clone();
        replace_at(&mut v, key, probe);
        matches!(v, toml::Value::Table(t) if deserialise::<C>(&t).is_ok())
    };
    let plain = [toml::Value::Integer(1), toml::Value::Float(0.5), toml::Value::Boolean(false)];
    let found = keys
        .iter()
        .find(|k| plain.iter().any(|p| fixes(k, Some(p.clone()))))
        .or_else(|| keys.iter().find(|k| fixes(k, value_at(&defaults, k).cloned()) || fixes(k, None)))?;
    Some(render(found))
}

fn collect_keys(v: &toml::Value, at: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
    let children: Vec<(Step, &toml::Value)> = match v {
        toml::Value::Table(t) => t.iter().map(|(k, c)| (Step::Key(k.clone()), c)).collect(),
        toml::Value::Array(a) => a.iter().enumerate().map(|(i, c)| (Step::Index(i), c)).collect(),
        _ => return,
    };
    for (step, child) in children {
        at.push(step);
        collect_keys(child, at, out);
        out.push(at.clone());
        at.pop();
    }
}

/// Sets (`Some`) or removes (`None`; table keys only) the value at `path`.
fn replace_at(v: &mut toml::Value, path: &[Step], probe: Option<toml::Value>) {
    let Some((last, parents)) = path.split_last() else { return };
    let mut v = v;
    for step in parents {
        v = match (step, v) {
            (Step::Key(k), toml::Value::Table(t)) => match t.get_mut(k) {
                Some(c) => c,
                None => return,
            },
            (Step::Index(i), toml::Value::Array(a)) => match a.get_mut(*i) {
                Some(c) => c,
                None => return,
            },
            _ => return,
        };
    }
    match (last, v, probe) {
        (Step::Key(k), toml::Value::Table(t), Some(p)) => {
            t.insert(k.clone(), p);
        }
        (Step::Key(k), toml::Value::Table(t), None) => {
            t.remove(k);
        }
        (Step::Index(i), toml::Value::Array(a), Some(p)) if *i < a.len() => a[*i] = p,
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
            own_unit_cube: false,
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

/// `a::b::Name<c::D>` → `Name`: the last path segment of a type's name, generics removed.
pub fn short_type_name(full: &'static str) -> &'static str {
    let head = full.split('<').next().unwrap_or(full);
    head.rsplit("::").next().unwrap_or(head)
}
