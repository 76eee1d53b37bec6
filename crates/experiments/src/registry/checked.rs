//! An algorithm's parameters after their one check: [`CheckedEntry`], what
//! [`AlgorithmEntry::parse_for`] makes of a spec's `params` table (deserialised and checked once,
//! when the spec is checked), and what every run builds its optimiser from (a clone of the checked
//! config, not the table read again).

use super::{AlgorithmEntry, BoxedOptimizer, MemoryFn, RegisteredAlgorithm};
use crate::error::{ExperimentError, Result};
use crate::limits::{Allocation, ProblemShape};
use bohf_core::{AtField, Domain, DomainKind, FiniteDomain, Query, QueryCosts, SearchContext};
use std::fmt;
use std::sync::Arc;

/// An algorithm's checked config on one kind of domain, type-erased: what builds the optimiser
/// (the way a crate's `XConfig::check()` returns the type its constructor takes). Made once per
/// algorithm of a spec; shared by every run (so `Send + Sync`).
pub trait CheckedAlgorithm: Send + Sync {
    /// Builds the optimiser for a problem from (a clone of) the checked config; a constructor's
    /// error on a config field names it under `params`.
    fn build(&self, ctx: &SearchContext<Domain>) -> bohf_core::Result<BoxedOptimizer>;
    /// [`RegisteredAlgorithm::check_costs`]: what the config needs of the run's costs and budget.
    fn check_costs(&self, costs: Option<&QueryCosts>) -> bohf_core::Result<()>;
}

/// The checked config of a [`RegisteredAlgorithm`] on domains of type `D`, with the config it was
/// checked from (which [`RegisteredAlgorithm::check_costs`] reads).
pub(super) struct Typed<D, A: RegisteredAlgorithm<D>> {
    pub(super) config: A::Config,
    pub(super) checked: A::Checked,
    /// Takes the typed context out of a context of either kind (`None`: another kind).
    pub(super) narrow: fn(&SearchContext<Domain>) -> Option<SearchContext<D>>,
    pub(super) kind: DomainKind,
}

impl<D: 'static, A: RegisteredAlgorithm<D>> CheckedAlgorithm for Typed<D, A> {
    fn build(&self, ctx: &SearchContext<Domain>) -> bohf_core::Result<BoxedOptimizer> {
        let ctx =
            (self.narrow)(ctx).ok_or_else(|| bohf_core::Error::invalid("domain", format!("not {}", self.kind)))?;
        // What the constructor checks against the problem (e.g. POP-BO's `initial.index`) names a
        // config field, which lives under `params`.
        Ok(Box::new(A::build(&ctx, self.checked.clone()).at("params")?) as BoxedOptimizer)
    }

    fn check_costs(&self, costs: Option<&QueryCosts>) -> bohf_core::Result<()> {
        A::check_costs(&self.config, costs)
    }
}

/// The builder of an entry made from closures ([`AlgorithmEntry::new`]): its `params` table,
/// which its `build` closure reads.
pub(super) struct FromClosures {
    pub(super) params: toml::Table,
    pub(super) build: Arc<ClosureBuildFn>,
}

pub(super) type ClosureBuildFn =
    dyn Fn(&SearchContext<FiniteDomain>, &toml::Table) -> bohf_core::Result<BoxedOptimizer> + Send + Sync;

impl CheckedAlgorithm for FromClosures {
    fn build(&self, ctx: &SearchContext<Domain>) -> bohf_core::Result<BoxedOptimizer> {
        let ctx = ctx.finite().ok_or_else(|| bohf_core::Error::invalid("domain", "not a finite candidate set"))?;
        (self.build)(&ctx, &self.params)
    }

    fn check_costs(&self, _: Option<&QueryCosts>) -> bohf_core::Result<()> {
        Ok(())
    }
}

/// One algorithm of a spec after its `params` passed the entry's check for the problem's kind of
/// domain ([`AlgorithmEntry::parse_for`]): the entry, the kind, the table (kept for the memory
/// estimate) and the checked config. Cheap to clone (the checked config is shared).
#[derive(Clone)]
pub struct CheckedEntry {
    pub(super) entry: AlgorithmEntry,
    pub(super) kind: DomainKind,
    pub(super) params: toml::Table,
    pub(super) checked: Arc<dyn CheckedAlgorithm>,
    pub(super) memory: Arc<MemoryFn>,
}

impl fmt::Debug for CheckedEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CheckedEntry")
            .field("name", &self.entry.name())
            .field("kind", &self.kind)
            .field("params", &self.params)
            .finish()
    }
}

impl CheckedEntry {
    /// The registry's entry.
    pub fn entry(&self) -> &AlgorithmEntry {
        &self.entry
    }

    /// The kind of domain the config was checked for.
    pub fn kind(&self) -> DomainKind {
        self.kind
    }

    /// The `params` table the config was read from.
    pub fn params(&self) -> &toml::Table {
        &self.params
    }

    /// The dominant allocations of one run on a problem of this shape
    /// ([`AlgorithmEntry::memory_for`] with these `params`).
    pub fn memory(&self, shape: &ProblemShape) -> Vec<Allocation> {
        (self.memory)(shape, &self.params)
    }

    /// Checks the run's costs and budget (`costs`, from the spec's `[budget]`) for what the config
    /// needs of them ([`RegisteredAlgorithm::check_costs`]); an error names the budget's field
    /// (`budget.duel`, …).
    pub fn check_costs(&self, costs: Option<&QueryCosts>) -> Result<()> {
        self.checked.check_costs(costs).map_err(|e| match e {
            bohf_core::Error::InvalidParameter { name, reason } => ExperimentError::spec(name, reason),
            other => ExperimentError::spec("budget", other.to_string()),
        })
    }

    /// Checks that `query` is of a kind the entry declares ([`AlgorithmEntry::check_query`]).
    pub fn check_query(&self, query: &Query) -> bohf_core::Result<()> {
        self.entry.check_query(query)
    }

    /// Builds the optimiser for a problem on the kind of domain the config was checked for, from
    /// a clone of the checked config (nothing is read or checked again). Another kind of domain is
    /// an error naming `domain`; a constructor's error on a config field names it under `params`
    /// (`params.initial.index`). The context's costs are passed on as they are: they were checked
    /// with the spec ([`CheckedEntry::check_costs`]).
    pub fn build<D: Clone + Into<Domain>>(&self, ctx: &SearchContext<D>) -> bohf_core::Result<BoxedOptimizer> {
        let ctx = widen(ctx)?;
        if ctx.kind() != self.kind {
            return Err(bohf_core::Error::invalid(
                "domain",
                format!("`{}` was checked for {}; the problem is {}", self.entry.name(), self.kind, ctx.domain()),
            ));
        }
        self.checked.build(&ctx)
    }
}

/// The same context on a [`Domain`] of either kind.
pub(super) fn widen<D: Clone + Into<Domain>>(ctx: &SearchContext<D>) -> bohf_core::Result<SearchContext<Domain>> {
    let widened = SearchContext::new(ctx.domain().clone().into(), ctx.horizon())?;
    Ok(match ctx.costs() {
        Some(c) => widened.with_costs(*c),
        None => widened,
    })
}
