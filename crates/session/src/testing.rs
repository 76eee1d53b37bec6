//! Fixtures for tests of the session front ends (compiled in every build but hidden from the docs: a
//! `test-support` feature made the tests' build of every crate above differ from the main job's,
//! so `cargo test --release` rebuilt them all): an algorithm that asks best-of-k choices, which no built-in algorithm does yet. Helpers here may
//! panic: they serve tests.

use bohf_core::Answer;

/// A test-only algorithm that asks best-of-3 choices between random distinct candidates and
/// recommends the option chosen most often (simpler than qEUBO, the built-in algorithm that asks
/// choices with `q` ≥ 3). Its answer type is checked ([`bohf_core::Query::check_answer`]).
pub struct ThreeWay {
    domain: bohf_core::FiniteDomain,
    chosen: Vec<usize>,
}

impl bohf_core::Optimizer for ThreeWay {
    fn name(&self) -> &'static str {
        "three-way"
    }
    fn suggest(&mut self, rng: &mut dyn bohf_core::rand::Rng) -> bohf_core::Result<bohf_core::Query> {
        use bohf_core::rand::RngExt;
        if self.domain.len() < 3 {
            return Err(bohf_core::Error::invalid("candidates", "three-way needs at least 3 candidates"));
        }
        let mut picked: Vec<usize> = Vec::new();
        while picked.len() < 3 {
            let i = rng.random_range(0..self.domain.len());
            if !picked.contains(&i) {
                picked.push(i);
            }
        }
        Ok(bohf_core::Query::Choice(picked.into_iter().map(|i| self.domain.point(i)).collect::<Result<_, _>>()?))
    }
    fn observe(&mut self, query: &bohf_core::Query, answer: Answer) -> bohf_core::Result<()> {
        query.check_answer(&answer)?;
        let options = query.choice_options(self.name())?;
        let winner = options[answer.choice_index(options.len())?].index.expect("a candidate");
        self.chosen[winner] += 1;
        Ok(())
    }
    fn recommend(&self) -> bohf_core::Result<bohf_core::Point> {
        let best = (0..self.chosen.len()).fold(0, |b, i| if self.chosen[i] > self.chosen[b] { i } else { b });
        self.domain.point(best)
    }
}

/// The built-in registry plus `three-way` ([`ThreeWay`]); use it with [`crate::Session::create_with`]
/// and [`crate::Session::open_with`].
pub fn three_way_registry() -> bohf_experiments::Registry {
    let mut r = bohf_registry::builtin();
    r.register(bohf_experiments::AlgorithmEntry::new(
        "three-way",
        "best-of-3 choices between random candidates (test)",
        |_, _| Ok(()),
        |ctx, _| {
            let domain = ctx.domain().clone();
            let chosen = vec![0; domain.len()];
            Ok(Box::new(ThreeWay { domain, chosen }) as bohf_experiments::BoxedOptimizer)
        },
    ))
    .unwrap();
    r
}

/// A test-only duel algorithm that asks self-duels: `(0, 0)` at every query when `every` is 1,
/// else a self-duel of candidate 0 at every `every`-th query and the duel (0, 1) otherwise. With
/// `horizon`, it refuses to choose a query once it has made `ctx.horizon()` (as MR-LPF does).
pub struct SelfDueller {
    domain: bohf_core::FiniteDomain,
    every: usize,
    horizon: Option<usize>,
    round: usize,
}

impl bohf_core::Optimizer for SelfDueller {
    fn name(&self) -> &'static str {
        "self-dueller"
    }
    fn suggest(&mut self, _rng: &mut dyn bohf_core::rand::Rng) -> bohf_core::Result<bohf_core::Query> {
        if self.horizon.is_some_and(|h| self.round >= h) {
            return Err(bohf_core::Error::invalid("horizon", "self-dueller has made all its queries"));
        }
        let other = if (self.round + 1).is_multiple_of(self.every) { 0 } else { 1 };
        Ok(bohf_core::Query::Duel(self.domain.point(0)?, self.domain.point(other)?))
    }
    fn observe(&mut self, query: &bohf_core::Query, answer: Answer) -> bohf_core::Result<()> {
        query.check_answer(&answer)?;
        self.round += 1;
        Ok(())
    }
    fn recommend(&self) -> bohf_core::Result<bohf_core::Point> {
        self.domain.point(0)
    }
}

/// The built-in registry plus `self-duels` (a [`SelfDueller`] that asks only self-duels) and
/// `self-duels-horizon` (one self-duel every second query, and no query past the horizon).
pub fn self_duel_registry() -> bohf_experiments::Registry {
    let mut r = bohf_registry::builtin();
    for (name, every, horizon) in [("self-duels", 1, false), ("self-duels-horizon", 2, true)] {
        r.register(bohf_experiments::AlgorithmEntry::new(
            name,
            "self-duels (test)",
            |_, _| Ok(()),
            move |ctx, _| {
                let domain = ctx.domain().clone();
                let horizon = horizon.then(|| ctx.horizon());
                Ok(Box::new(SelfDueller { domain, every, horizon, round: 0 }) as bohf_experiments::BoxedOptimizer)
            },
        ))
        .unwrap();
    }
    r
}

/// `body` with the times of every answer removed (`asked_at`, `answered_at`): two sessions given
/// the same answers at different moments are then equal.
pub fn without_times(mut body: crate::SessionBody) -> crate::SessionBody {
    for step in &mut body.history {
        step.asked_at = None;
        step.answered_at = None;
    }
    body
}

/// The session file at `path`, parsed, with its times removed ([`without_times`]).
pub fn untimed_file(path: &std::path::Path) -> crate::SessionBody {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("cannot read `{}`: {e}", path.display()));
    without_times(crate::file::parse_session(&bytes).unwrap_or_else(|e| panic!("`{}`: {e}", path.display())))
}
